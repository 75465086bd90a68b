import KilnLanguage

/// Which values of a loop differ between lanes, proved on the typed tree before the loop
/// is lowered (docs/compiler.md "Uniformity analysis").
///
/// Lowering asks it once per loop it does not unroll, and the answer decides the loop's
/// form: jump-based control when no lane can leave or stay while another does, masks
/// otherwise, and which of the loop's variables (their home registers) hold varying values
/// from the start. Before it, lowering tried jump-based control on a snapshot and rolled
/// back on finding out otherwise, once per home that turned varying (a fixed point by
/// re-lowering the whole body each time).
///
/// The analysis is a fixed point over the set of varying variables, in the terms lowering
/// uses, so that it agrees with it:
/// - A value is varying when it reads a varying variable, a texture, or a register array
///   by an index lowering cannot fold (`ldr`); a call's result is varying when its
///   callee, analysed with the arguments' uniformity (memoised per callee and mask),
///   returns a varying value or returns from under varying control.
/// - A write makes its variable varying when it stores a varying value, or when control
///   has diverged since the variable was declared (a masked write keeps other lanes'
///   values): inside an `if` or `switch` on a varying value, or a masked loop.
/// - Variables a loop writes are one home register each for the whole loop, so the set is
///   flow-insensitive: varying anywhere in the loop is varying everywhere in it.
/// - A loop's control is varying when its condition is, or a `break`/`continue` of it sits
///   under control that diverged inside it, or a `return` under control that diverged
///   inside its function, or it can `discard_fragment()`.
///
/// It errs only towards varying (a masked write or masked loop is correct, just slower),
/// and lowering checks it: should a loop promised uniform meet varying control or a home
/// promised uniform receive a varying value, the loop is lowered masked and the miss
/// counted (`CompileResult.uniformityMisses`; the corpus tests expect none).
struct LoopUniformityAnalysis {
    /// What the analysis proves about one loop.
    struct LoopFacts {
        /// Some lane may leave the loop, or skip the rest of an iteration, while another
        /// does not: the loop needs execution masks.
        var controlIsVarying: Bool
        /// Variables (of the function being lowered) that the loop can leave varying.
        var varyingVariables: Set<VariableID>
    }

    /// What a call does, given which of its arguments are varying.
    struct CallSummary {
        var resultIsVarying: Bool
        /// Per parameter: a `thread T &` or `thread T *` parameter the callee assigns.
        var writes: [Bool]
        /// Per parameter: a `thread T &` or `thread T *` parameter the callee can leave varying.
        var writesVarying: [Bool]
    }

    struct CallKey: Hashable {
        var function: FunctionID
        var varyingArguments: [Bool]
    }

    /// What the analyses of one entry's loops share: call summaries (a summary depends
    /// only on the callee and which arguments are varying) and the work budget.
    final class Shared {
        var known: [CallKey: CallSummary] = [:]
        var inProgress = Set<CallKey>()
        /// Statements and expressions the analyses may still visit
        /// (`CompileOptions.maxUniformitySteps`); past it every loop is masked.
        var stepsLeft: Int
        init(steps: Int) { stepsLeft = steps }
        var exhausted: Bool { stepsLeft <= 0 }
    }

    /// Where control stands at a statement.
    struct Context {
        /// Divergent constructs (a varying `if`, a `switch`, a masked loop) entered so far.
        var depth = 0
        /// `depth` where the body of the innermost loop starts: its `break` and `continue`
        /// are varying when `depth` is greater.
        var loopDepth = 0
        /// A `break` here leaves a `switch`, not a loop.
        var inSwitch = false
    }

    let program: CheckedProgram
    let function: FunctionID
    let discards: [Bool]
    /// Variables read before the analysed code that hold a varying value there (lowering's
    /// own view for the function being lowered; the varying arguments for a callee).
    let isVaryingBefore: (VariableID) -> Bool
    /// Variables declared before the analysed code that a write masks even without
    /// divergence inside it (declared outside a divergent region the code is in).
    let isMaskedBefore: (VariableID) -> Bool
    /// Control has diverged since the function began: every `return` retires lanes by mask.
    let returnsAreMasked: Bool
    /// Arrays lowering keeps in a register group (indexed at run time): varying.
    let pinned: Set<VariableID>
    /// `const` arrays declared before the analysed code whose elements are all known
    /// constants: an index reads them with `ldk`, uniform for a uniform index.
    let isConstantTableBefore: (VariableID) -> Bool

    /// `const` arrays declared in the analysed code from constants alone.
    var constantTables = Set<VariableID>()

    /// The fixed point being computed.
    var varying = Set<VariableID>()
    /// Depth at which each variable declared inside the analysed code was declared.
    var declaredAt: [VariableID: Int] = [:]
    /// Loops found masked (by source position): they stay masked as `varying` grows.
    var maskedLoops = Set<SourceLocation>()
    /// One flag per loop being walked, innermost last: its control was found varying.
    var loopFlags: [Bool] = []
    /// The analysed code can retire lanes by mask out of every loop around it.
    var retires = false
    /// Some `return` returns a varying value or from under divergent control.
    var returnsVarying = false
    /// Some `return` retires lanes by mask (from under divergent control).
    var returnsMasked = false
    /// Shared with the lowerer across loops and callees.
    let shared: Shared

    // MARK: - Loops

    /// The facts about `loop` (condition, step, body as lowering receives them).
    mutating func loop(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement],
                       scopedLocals: Set<VariableID>) -> LoopFacts {
        var controlIsVarying = false
        repeat {
            let before = varying.count
            loopFlags = [false]
            retires = false
            walkLoopBody(condition, step, body, Context(), scopedLocals: scopedLocals, masked: false)
            controlIsVarying = loopFlags[0] || retires || condition.map(isVarying) == true
            if controlIsVarying || varying.count == before { break }
        } while !shared.exhausted
        // Out of budget the answer is the one that is always right: masks.
        if shared.exhausted { return LoopFacts(controlIsVarying: true, varyingVariables: varying) }
        return LoopFacts(controlIsVarying: controlIsVarying, varyingVariables: varying)
    }

    /// Walks one loop's condition, body and step; `masked`: the loop runs under masks.
    private mutating func walkLoopBody(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement],
                                       _ outside: Context, scopedLocals: Set<VariableID>, masked: Bool) {
        var inside = outside
        if masked { inside.depth += 1 }
        inside.loopDepth = inside.depth
        inside.inSwitch = false
        if let condition { effects(condition, inside) }
        walk(body, inside)
        guard let step else { return }
        // A masked loop's uniform counters are stepped where the loop started, unmasked
        // (`FunctionLowerer.uniformCounters`).
        let counters = masked && stepIsUniformCounter(step, body, condition, scopedLocals)
        effects(step, counters ? outside : inside)
    }

    /// The test of `FunctionLowerer.uniformCounters`, on the analysis's view.
    private func stepIsUniformCounter(_ step: TypedExpression, _ body: [TypedStatement], _ condition: TypedExpression?,
                                      _ scopedLocals: Set<VariableID>) -> Bool {
        !StatementScanner.counterCandidates(step, body, condition, scopedLocals, program: program).isEmpty
            && !isVarying(step)
    }

    /// A loop nested in the analysed code: walked as a loop with jumps, then, once its
    /// control turns out varying, as a masked loop from then on.
    private mutating func nestedLoop(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement],
                                     at position: SourceLocation, _ context: Context, scopedLocals: Set<VariableID>) {
        if !maskedLoops.contains(position) {
            loopFlags.append(false)
            walkLoopBody(condition, step, body, context, scopedLocals: scopedLocals, masked: false)
            let flagged = loopFlags.removeLast() || condition.map(isVarying) == true
            guard flagged else { return }
            maskedLoops.insert(position)
        }
        loopFlags.append(false)
        walkLoopBody(condition, step, body, context, scopedLocals: scopedLocals, masked: true)
        loopFlags.removeLast()
    }

    // MARK: - Statements

    private mutating func walk(_ statements: [TypedStatement], _ context: Context) {
        for statement in statements { walk(statement, context) }
    }

    private mutating func walk(_ statement: TypedStatement, _ context: Context) {
        shared.stepsLeft -= 1
        guard !shared.exhausted else { return }
        switch statement.kind {
        case .declare(let id, let initializer):
            declaredAt[id] = context.depth
            if let initializer {
                effects(initializer, context)
                if isVarying(initializer) { varying.insert(id) }
                if program.functions[function].variables[id].isConst && Self.isLiteral(initializer) { constantTables.insert(id) }
            }
            if pinned.contains(id) && !program.functions[function].variables[id].isConst { varying.insert(id) }
        case .expression(let e):
            effects(e, context)
        case .block(let statements):
            // `for`: its declarations, then its loop (`FunctionLowerer.lowerStatement`).
            let declarations = statements.dropLast()
            let declared = declarations.compactMap { if case .declare(let id, _) = $0.kind { id } else { nil } }
            if let last = statements.last, case .loop(let condition, let step, let body, _) = last.kind,
               declared.count == declarations.count {
                walk(Array(declarations), context)
                nestedLoop(condition, step, body, at: last.range.start, context, scopedLocals: Set(declared))
            } else {
                walk(statements, context)
            }
        case .ifElse(let condition, let then, let otherwise):
            effects(condition, context)
            let inner = under(condition, context)
            walk(then, inner)
            walk(otherwise, inner)
        case .loop(let condition, let step, let body, _):
            nestedLoop(condition, step, body, at: statement.range.start, context, scopedLocals: [])
        case .breakLoop:
            if !context.inSwitch { leave(context) }
        case .continueLoop:
            leave(context)
        case .returnValue(let e):
            if let e {
                effects(e, context)
                if isVarying(e) { returnsVarying = true }
            }
            if context.depth > 0 || returnsAreMasked {
                returnsVarying = true
                returnsMasked = true
                retires = true
            }
        case .switchOn(let subject, let cases):
            // Always lowered with masks (`FunctionLowerer.lowerSwitch`).
            effects(subject, context)
            var inner = context
            inner.depth += 1
            inner.inSwitch = true
            for c in cases { walk(c.body, inner) }
        case .discard:
            retires = true
        }
    }

    /// The context inside code that runs only where `condition` holds: diverged once more
    /// when the condition is varying.
    private func under(_ condition: TypedExpression, _ context: Context) -> Context {
        var inner = context
        if isVarying(condition) { inner.depth += 1 }
        return inner
    }

    /// `break`/`continue` of the innermost loop: varying under control diverged inside it.
    private mutating func leave(_ context: Context) {
        if context.depth > context.loopDepth, !loopFlags.isEmpty { loopFlags[loopFlags.count - 1] = true }
    }

    // MARK: - Writes

    /// Records the writes `e` performs. A subtree that writes nothing
    /// (`TypedExpression.mayWrite`) calls nothing either, so there is nothing to record in
    /// it: not visited, and not counted against the budget.
    private mutating func effects(_ e: TypedExpression, _ context: Context) {
        guard e.mayWrite else { return }
        shared.stepsLeft -= 1
        guard !shared.exhausted else { return }
        switch e.kind {
        case .assign(let lhs, let rhs), .compoundAssign(_, let lhs, let rhs):
            effects(lhs, context)
            effects(rhs, context)
            write(lhs, varyingValue: isVarying(rhs), context)
        case .increment(let lhs, _, _):
            effects(lhs, context)
            write(lhs, varyingValue: false, context)
        case .conditional(let c, let a, let b):
            effects(c, context)
            let inner = under(c, context)
            effects(a, inner)
            effects(b, inner)
        case .binary(.logicalAnd, let a, let b), .binary(.logicalOr, let a, let b):
            effects(a, context)
            effects(b, under(a, context))
        case .call(let f, let arguments):
            for argument in arguments { effects(argument, context) }
            if discards[f] { retires = true }
            let summary = self.summary(f, arguments)
            let parameters = program.functions[f].parameters
            for (index, argument) in arguments.enumerated() where index < parameters.count
                && (parameters[index].isReference || parameters[index].type.isThreadPointer) {
                if summary.writes[index] { write(argument, varyingValue: summary.writesVarying[index], context) }
            }
        case .builtin(.modf, let arguments) where arguments.count == 2:
            for argument in arguments { effects(argument, context) }
            write(arguments[1], varyingValue: isVarying(arguments[0]), context)
        case .constant, .variable, .global:
            break
        case .convert(let a), .unary(_, let a), .swizzle(let a, _), .member(let a, _):
            effects(a, context)
        case .binary(_, let a, let b), .matrixMultiply(let a, let b):
            effects(a, context)
            effects(b, context)
        case .construct(let items), .builtin(_, let items):
            for item in items { effects(item, context) }
        default:
            StatementScanner.forEachChild(e) { effects($0, context) }
        }
    }

    /// A write to the variable under `lhs`.
    private mutating func write(_ lhs: TypedExpression, varyingValue: Bool, _ context: Context) {
        guard let id = StatementScanner.root(lhs) else { return }
        var masked: Bool
        if let depth = declaredAt[id] {
            masked = context.depth > depth
        } else {
            masked = context.depth > 0 || isMaskedBefore(id)
        }
        if !masked && indexesAtRunTime(lhs) { masked = true }
        if varyingValue || masked { varying.insert(id) }
    }

    // MARK: - Reads

    /// Whether `e`'s value can differ between lanes.
    func isVarying(_ e: TypedExpression) -> Bool {
        shared.stepsLeft -= 1
        switch e.kind {
        case .constant, .global, .textureSize:
            return false
        case .variable(let id):
            return varying.contains(id) || (declaredAt[id] == nil && isVaryingBefore(id))
        case .textureSample, .layerSample, .textureRead:
            return true
        case .index(let base, let index):
            if case .pointer = base.type, !base.type.isThreadPointer {
                return isVarying(base) || isVarying(index)     // a buffer load: as its address
            }
            if case .constant = index.kind { return isVarying(base) }
            if case .variable(let id) = base.kind, constantTables.contains(id) || (declaredAt[id] == nil && isConstantTableBefore(id)) {
                return isVarying(index)                         // a table of constants: `ldk`
            }
            return true                                         // `ldr` of a register group
        case .call(let f, let arguments):
            return summary(f, arguments).resultIsVarying
        // The common shapes without `children`'s array (this runs for every operand).
        case .convert(let a), .unary(_, let a), .swizzle(let a, _), .member(let a, _):
            return isVarying(a)
        case .binary(_, let a, let b), .matrixMultiply(let a, let b):
            return isVarying(a) || isVarying(b)
        case .construct(let items), .builtin(_, let items):
            return items.contains(where: isVarying)
        default:
            return StatementScanner.children(e).contains(where: isVarying)
        }
    }

    /// Built from literals alone (a subset of what lowering folds to known constants).
    static func isLiteral(_ e: TypedExpression) -> Bool {
        switch e.kind {
        case .constant: return true
        case .construct, .convert, .unary, .binary: return StatementScanner.children(e).allSatisfy(isLiteral)
        default: return false
        }
    }

    /// A write through an index lowering cannot fold writes a register group in place.
    private func indexesAtRunTime(_ lhs: TypedExpression) -> Bool {
        switch lhs.kind {
        case .index(let base, let index):
            if case .constant = index.kind { return indexesAtRunTime(base) }
            return isVarying(index) || indexesAtRunTime(base)
        case .swizzle(let base, _), .member(let base, _), .dereference(let base), .addressOf(let base):
            return indexesAtRunTime(base)
        default:
            return false
        }
    }

    // MARK: - Calls

    /// The summary of calling `f` with `arguments` (memoised).
    func summary(_ f: FunctionID, _ arguments: [TypedExpression]) -> CallSummary {
        let callee = program.functions[f]
        let mask = arguments.map(isVarying)
        let key = CallKey(function: f, varyingArguments: mask)
        if let known = shared.known[key] { return known }
        // A helper that (indirectly) calls itself: assume the worst.
        let all = Array(repeating: true, count: callee.parameters.count)
        let worst = CallSummary(resultIsVarying: true, writes: all, writesVarying: all)
        if shared.inProgress.contains(key) || shared.exhausted { return worst }
        shared.inProgress.insert(key)
        defer { shared.inProgress.remove(key) }
        var inner = LoopUniformityAnalysis(
            program: program, function: f, discards: discards,
            isVaryingBefore: { id in
                callee.parameters.firstIndex { $0.variable == id }.map { $0 < mask.count && mask[$0] } ?? false
            },
            isMaskedBefore: { _ in false }, returnsAreMasked: false,
            pinned: StatementScanner.dynamicallyIndexedVariables(callee.body), isConstantTableBefore: { _ in false },
            shared: shared)
        repeat {
            let before = inner.varying.count
            inner.loopFlags = []
            inner.walk(callee.body, Context())
            if inner.varying.count == before { break }
        } while !shared.exhausted
        if shared.exhausted { return worst }
        var result = CallSummary(resultIsVarying: inner.returnsVarying, writes: [], writesVarying: [])
        let assigned = StatementScanner.assignedVariables(callee.body, program: program)
        for parameter in callee.parameters {
            let written = (parameter.isReference || parameter.type.isThreadPointer) && assigned.contains(parameter.variable)
            result.writes.append(written)
            // A parameter is left varying when the callee wrote it a varying value or under
            // divergence, or wrote it after a masked `return` (the caller's variable is then
            // written under a mask).
            result.writesVarying.append(written && (inner.varying.contains(parameter.variable) || inner.returnsMasked))
        }
        shared.known[key] = result
        return result
    }
}
