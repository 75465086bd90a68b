import KilnBytecode
import KilnLanguage

/// Full unrolling of loops whose trip count the compiler knows.
///
/// `for (int i = 0; i < 9; i++)` over a body of a few instructions costs the VM, per
/// iteration, the counter's increment, compare and conditional jump — each a dispatch for
/// every batch — and keeps `i` (and everything computed from it: `float(i) * 1.3`, `i % 4`,
/// `(i & 1) == 0 ? box : circle`) a run-time value. Lowered as straight-line copies of the
/// body, the counter is a constant in each copy, so constant folding removes the loop
/// control and everything derived from the counter alone, and a select on it lowers only
/// the arm it picks.
///
/// The test is the lowering itself: the loop's variables are bound to their values when
/// the loop is reached, so the condition folds to a constant exactly when the trip count is
/// known. The lowerer tries: it lowers condition, body and step over and over while the
/// condition folds to true, and gives up — restoring the state it started from — when the
/// condition does not fold, or the copies would exceed `CompileOptions.maxUnrolledIterations`
/// or `maxUnrolledInstructions` (projected from the latest copy when the trip count is
/// known), or a loop nested in the body cannot be unrolled itself.
/// Bodies that can leave early (`break`, `continue`, `return`, `discard_fragment`) are never
/// unrolled. The copies compute the same operations in the same order, so the pictures
/// are the same bytes (`LoopUnrollingTests`).
extension FunctionLowerer {
    /// Lowers the loop unrolled and returns true, or returns false with nothing emitted.
    func unrolled(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement],
                  _ testFirst: Bool) throws -> Bool {
        guard maxUnrolledIterations > 0, let condition,
              !StatementScanner.canRetire(body, discards: functionDiscards) else { return false }
        guard unrollsLoops else {
            if mightUnroll(condition, step, body, testFirst) { loopsLeftForUnrolling += 1 }
            return false
        }
        let tripCount = try tripCountBeforeLowering(condition, step, body, testFirst)
        guard tripCount.mayBeWithinLimit else { return false }
        // Inside a loop being unrolled, a loop that cannot be unrolled makes the outer one
        // give up and restore its own snapshot: no snapshot here (each is a copy of the whole
        // lowering state once it is written to).
        let nested = unrollingDepth > 0
        let saved = nested ? nil : state.snapshot()
        let (savedBudget, savedCalls) = (speculationBudget, inlinedCalls)
        func giveUp() throws -> Bool {
            guard let saved else { throw LoweringError.notUnrollable }
            state.restore(saved)
            (speculationBudget, inlinedCalls) = (savedBudget, savedCalls)
            return false
        }
        let start = state.body.count + state.prologue.count
        unrollingDepth += 1
        defer { unrollingDepth -= 1 }
        var iterations = 0
        do {
            while true {
                if testFirst || iterations > 0 {
                    guard let known = state.knownConstant[try value(condition)[0]] else { return try giveUp() }
                    if known == 0 { return true }
                }
                iterations += 1
                guard iterations <= maxUnrolledIterations else { return try giveUp() }
                let bodyBefore = state.body.count
                try lowerBlock(body)
                if let step { _ = try value(step) }
                let used = state.body.count + state.prologue.count - start
                if used > maxUnrolledInstructions { return try giveUp() }
                // With the trip count known, each copy still to come adds about as much to
                // the body as this one did: give up now rather than after lowering them.
                // (Body only: the prologue part of a copy is mostly the constants and uniform
                // values it hoisted, which the later copies reuse.)
                if let count = tripCount.count,
                   used + (state.body.count - bodyBefore) * (count - iterations) > maxUnrolledInstructions {
                    return try giveUp()
                }
            }
        } catch LoweringError.notUnrollable {
            return try giveUp()
        }
    }

    /// With unrolling off, whether a compile with it might unroll this loop: false only when
    /// its trip count, evaluated without lowering, is over the limit — there that compile
    /// gives up before lowering anything (`tripCountBeforeLowering`), so the two compiles
    /// stay the same.
    func mightUnroll(_ condition: TypedExpression, _ step: TypedExpression?, _ body: [TypedStatement],
                     _ testFirst: Bool) -> Bool {
        guard evaluatesTripCounts else { return true }
        let read = Self.variablesRead(by: condition, step)
        guard assignedVariables(body, program: program).isDisjoint(with: read),
              let count = evaluatedTripCount(condition, step, read, testFirst) else { return true }
        return count <= maxUnrolledIterations
    }

    /// The variables a loop's condition and step read.
    static func variablesRead(by condition: TypedExpression, _ step: TypedExpression?) -> Set<VariableID> {
        var read = Set<VariableID>()
        for e in [condition] + (step.map { [$0] } ?? []) {
            StatementScanner.visit(e) { if case .variable(let id) = $0.kind { read.insert(id) } }
        }
        return read
    }

    /// What is known of the trip count before the body is lowered. `mayBeWithinLimit` is
    /// false when the loop certainly runs more than `maxUnrolledIterations` times or its
    /// condition certainly does not fold; `count` is how many times the body runs, when
    /// known. Both found by running only the condition and step, which is possible when the
    /// body assigns none of the variables they read. (Trying the whole body first made
    /// `swirl`'s 32 iterations cost 16 copies of its body before giving up: twice the
    /// compile time for nothing.) Leaves the state as it found it.
    func tripCountBeforeLowering(_ condition: TypedExpression, _ step: TypedExpression?, _ body: [TypedStatement],
                                 _ testFirst: Bool) throws -> (mayBeWithinLimit: Bool, count: Int?) {
        let read = Self.variablesRead(by: condition, step)
        guard assignedVariables(body, program: program).isDisjoint(with: read) else { return (true, nil) }
        if evaluatesTripCounts {
            if let count = evaluatedTripCount(condition, step, read, testFirst) {
                return count <= maxUnrolledIterations ? (true, count) : (false, nil)
            }
            // `i < n` with `n` not known: the trial's first lowering of the condition is not
            // a constant either, and it gives up there — without the snapshot, 15 000
            // instructions a loop (1 % of compiling `art_rings`).
            if conditionStaysUnknown(condition) { return (false, nil) }
        }
        let saved = state.snapshot()
        let (savedBudget, savedCalls) = (speculationBudget, inlinedCalls)
        defer {
            state.restore(saved)
            (speculationBudget, inlinedCalls) = (savedBudget, savedCalls)
        }
        var iterations = testFirst ? 0 : 1
        while true {
            guard let known = state.knownConstant[try value(condition)[0]] else { return (false, nil) }
            if known == 0 { return (true, iterations) }
            iterations += 1
            if iterations > maxUnrolledIterations { return (false, nil) }
            if let step { _ = try value(step) }
        }
    }

    /// The trip count `tripCountBeforeLowering`'s trial would find (more than
    /// `maxUnrolledIterations`: that limit plus one), for the common loop — an
    /// `int`/`uint` counter known now, a condition of constants and counters, a step of
    /// `++`, `--`, `+=`-style or plain assignments to counters — found with
    /// `ConstantEvaluator` instead of lowering: the trial snapshots the whole lowering state
    /// and its first write copies it (the instructions, the register tables, the debug
    /// events), once for every nested loop of every unrolled copy, which was a tenth of
    /// `art_starfield`'s compile time. Integer arithmetic folds to the same bits either way
    /// (`ConstantEvaluator` follows the VM's wrapping rules), so the answer is the same.
    /// Nil when the loop is of another form: the trial decides.
    func evaluatedTripCount(_ condition: TypedExpression, _ step: TypedExpression?, _ read: Set<VariableID>,
                            _ testFirst: Bool) -> Int? {
        // A counter's kind is the type of the expressions that read it.
        var kinds: [VariableID: ScalarKind] = [:]
        var plain = true
        for e in [condition] + (step.map { [$0] } ?? []) {
            StatementScanner.visit(e) {
                guard case .variable(let id) = $0.kind else { return }
                guard case .scalar(let kind) = $0.type, kind == .int || kind == .uint, kinds[id] ?? kind == kind else {
                    plain = false
                    return
                }
                kinds[id] = kind
            }
        }
        guard plain else { return nil }
        // Its value is what its one register is known to hold now.
        var values: [VariableID: ConstantValue] = [:]
        for id in read {
            guard let kind = kinds[id], let slot = slot(frameIndex, id), let registers = slot.components,
                  registers.count == 1, let bits = state.knownConstant[registers[0]] else { return nil }
            values[id] = kind == .int ? .int(Int32(bitPattern: bits)) : .uint(bits)
        }
        let evaluator = ConstantEvaluator(globalValue: { _ in nil }, variableValue: { values[$0] })
        var iterations = testFirst ? 0 : 1
        while true {
            guard case .bool(let holds)? = evaluator.evaluate(condition) else { return nil }
            if !holds { return iterations }
            iterations += 1
            if iterations > maxUnrolledIterations { return iterations }
            if let step {
                guard Self.applyStep(step, to: &values) else { return nil }
            }
        }
    }

    /// True when lowering `condition` now cannot give a known constant: it is made only of
    /// variables, constants and arithmetic, comparison, bitwise, unary and conversion nodes
    /// (no `&&`, `||`, `?:` or call, whose lowering may not read every operand), and it reads
    /// a scalar variable whose register holds no known constant. Each of those nodes lowers
    /// to `op` over its operands' registers, and `op` gives a known register only by folding
    /// operands that are all known, or by returning one of its operands (`x + 0`) — so a
    /// known result needs every variable it reads to be known.
    func conditionStaysUnknown(_ condition: TypedExpression) -> Bool {
        var foldFree = true, readsUnknown = false
        func walk(_ e: TypedExpression) {
            guard foldFree else { return }
            switch e.kind {
            case .constant:
                break
            case .variable(let id):
                guard case .scalar = e.type, let slot = slot(frameIndex, id), let registers = slot.components,
                      registers.count == 1 else { foldFree = false; return }
                if state.knownConstant[registers[0]] == nil { readsUnknown = true }
            case .binary(let operator_, let a, let b):
                guard operator_ != .logicalAnd && operator_ != .logicalOr else { foldFree = false; return }
                walk(a)
                walk(b)
            case .unary(_, let a), .convert(let a):
                walk(a)
            default:
                foldFree = false
            }
        }
        walk(condition)
        return foldFree && readsUnknown
    }

    /// Runs a loop step made of counter updates on `values`; false for any other form.
    private static func applyStep(_ e: TypedExpression, to values: inout [VariableID: ConstantValue]) -> Bool {
        func update(_ target: TypedExpression, _ newValue: (ConstantValue, ScalarKind) -> ConstantValue?) -> Bool {
            guard case .variable(let id) = target.kind, case .scalar(let kind) = target.type,
                  let old = values[id], let new = newValue(old, kind) else { return false }
            values[id] = new
            return true
        }
        let current = values
        let evaluator = ConstantEvaluator(globalValue: { _ in nil }, variableValue: { current[$0] })
        switch e.kind {
        case .increment(let target, let delta, _):
            return update(target) { old, kind in
                ConstantEvaluator.binary(.add, old, ConstantValue.int(Int32(delta)).converted(to: kind), operandKind: kind)
            }
        case .compoundAssign(let op, let target, let operand):
            guard operand.type == target.type, let amount = evaluator.evaluate(operand) else { return false }
            return update(target) { old, kind in ConstantEvaluator.binary(op, old, amount, operandKind: kind) }
        case .assign(let target, let newValue):
            guard newValue.type == target.type, let value = evaluator.evaluate(newValue) else { return false }
            return update(target) { _, _ in value }
        case .sequence(let first, let second):
            return applyStep(first, to: &values) && applyStep(second, to: &values)
        default:
            return false
        }
    }
}
