import KilnLanguage

/// Static facts about statements and expressions that lowering needs before it lowers
/// them: which variables a region assigns (they get home registers), whether a region
/// can retire lanes, which arrays are indexed dynamically.
enum StatementScanner {
    /// The direct subexpressions of `expression` (as an array: walks use `forEachChild`).
    static func children(_ expression: TypedExpression) -> [TypedExpression] {
        var result: [TypedExpression] = []
        forEachChild(expression) { result.append($0) }
        return result
    }

    /// Calls `body` with each direct subexpression of `expression`, in source order.
    /// The walks below go through this rather than `children`: an array per node visited
    /// was a heap allocation and a release per node, and lowering walks the same subtrees
    /// again for every copy of an unrolled loop (callgrind, instructions a compile:
    /// art_starfield 28.97 M → 27.97 M, raymarch 14.07 M → 13.62 M, wave 2.62 M → 2.56 M).
    @inline(__always)
    static func forEachChild(_ expression: TypedExpression, _ body: (TypedExpression) -> Void) {
        switch expression.kind {
        case .constant, .variable, .global: return
        case .construct(let items), .call(_, let items), .builtin(_, let items): for item in items { body(item) }
        case .convert(let a), .unary(_, let a), .swizzle(let a, _), .member(let a, _), .addressOf(let a), .dereference(let a):
            body(a)
        case .increment(let a, _, _), .textureSize(let a, _): body(a)
        case .binary(_, let a, let b), .matrixMultiply(let a, let b), .assign(let a, let b),
             .compoundAssign(_, let a, let b), .index(let a, let b), .layerSample(let a, let b),
             .textureRead(let a, let b), .sequence(let a, let b):
            body(a); body(b)
        case .conditional(let a, let b, let c), .textureWrite(let a, let b, let c): body(a); body(b); body(c)
        case .textureSample(let a, _, let b): body(a); body(b)
        }
    }

    /// Calls `body` with each expression directly in `statement` (not in nested statements), in source order.
    @inline(__always)
    static func forEachExpression(_ statement: TypedStatement, _ body: (TypedExpression) -> Void) {
        switch statement.kind {
        case .declare(_, let e): if let e { body(e) }
        case .expression(let e): body(e)
        case .ifElse(let c, _, _): body(c)
        case .loop(let c, let s, _, _): if let c { body(c) }; if let s { body(s) }
        case .returnValue(let e): if let e { body(e) }
        case .switchOn(let e, _): body(e)
        case .block, .breakLoop, .continueLoop, .discard: return
        }
    }

    /// Calls `body` with each statement list nested directly in `statement`, in source order.
    @inline(__always)
    static func forEachNested(_ statement: TypedStatement, _ body: ([TypedStatement]) -> Void) {
        switch statement.kind {
        case .block(let b): body(b)
        case .ifElse(_, let t, let e): body(t); body(e)
        case .loop(_, _, let b, _): body(b)
        case .switchOn(_, let cases): for c in cases { body(c.body) }
        default: return
        }
    }

    static func visit(_ expression: TypedExpression, _ body: (TypedExpression) -> Void) {
        body(expression)
        forEachChild(expression) { visit($0, body) }
    }

    static func visit(_ statements: [TypedStatement], _ body: (TypedExpression) -> Void) {
        for statement in statements {
            forEachExpression(statement) { visit($0, body) }
            forEachNested(statement) { visit($0, body) }
        }
    }

    /// Whether `statements` are worth a `jnone` in front (`FunctionLowerer.lowerBlock`'s
    /// guard after an early return): a loop, a `switch`, a texture or layer access, a
    /// call of a helper, or more than `costlyExpressionCount` expression nodes. Below that a
    /// `jnone` (a reduction over the mask and a branch) costs about what it could skip.
    static func isCostly(_ statements: [TypedStatement]) -> Bool {
        var nodes = 0, costly = false
        func scan(_ statements: [TypedStatement]) {
            for statement in statements where !costly {
                switch statement.kind {
                case .loop, .switchOn: costly = true
                default: break
                }
                forEachExpression(statement) { e in
                    visit(e) { e in
                        nodes += 1
                        switch e.kind {
                        case .call, .textureSample, .layerSample, .textureRead: costly = true
                        default: break
                        }
                    }
                }
                forEachNested(statement) { scan($0) }
            }
        }
        scan(statements)
        return costly || nodes > costlyExpressionCount
    }
    static let costlyExpressionCount = 24

    /// The variable an lvalue expression is rooted at.
    static func root(_ expression: TypedExpression) -> VariableID? {
        switch expression.kind {
        case .variable(let id): return id
        case .swizzle(let a, _), .member(let a, _), .index(let a, _), .addressOf(let a), .dereference(let a): return root(a)
        default: return nil
        }
    }

    /// Variables of the current function that `statements` (or `extra` expressions) may write,
    /// including through `thread T &` and `thread T *` arguments of calls.
    static func assignedVariables(_ statements: [TypedStatement], extra: [TypedExpression] = [],
                                  program: CheckedProgram) -> Set<VariableID> {
        var result = Set<VariableID>()
        func note(_ e: TypedExpression) {
            switch e.kind {
            case .assign(let lhs, _), .compoundAssign(_, let lhs, _), .increment(let lhs, _, _):
                if let id = root(lhs) { result.insert(id) }
            case .call(let function, let arguments):
                let parameters = program.functions[function].parameters
                for (index, argument) in arguments.enumerated()
                where index < parameters.count && (parameters[index].isReference || parameters[index].type.isThreadPointer) {
                    if let id = root(argument) { result.insert(id) }
                }
            case .builtin(.modf, let arguments) where arguments.count == 2:
                if let id = root(arguments[1]) { result.insert(id) }
            default: break
            }
        }
        // Only subtrees that write anything (`TypedExpression.mayWrite`) can hold what `note`
        // looks for.
        func visitWrites(_ e: TypedExpression) {
            guard e.mayWrite else { return }
            note(e)
            forEachChild(e, visitWrites)
        }
        func scan(_ statements: [TypedStatement]) {
            for statement in statements {
                forEachExpression(statement, visitWrites)
                forEachNested(statement, scan)
            }
        }
        scan(statements)
        for e in extra { visitWrites(e) }
        return result
    }

    /// The variables a `for` step counts that a masked loop may step where the loop started,
    /// unmasked, when the step reads nothing varying (the caller's test): every variable
    /// the step assigns is one of `scopedLocals` (nothing after the loop reads them), the
    /// body and condition assign none of them, and the step only computes — no helper
    /// calls, texture writes or pointers, as it runs in lanes that are not running too.
    static func counterCandidates(_ step: TypedExpression?, _ body: [TypedStatement], _ condition: TypedExpression?,
                                  _ scopedLocals: Set<VariableID>, program: CheckedProgram) -> Set<VariableID> {
        guard let step, !scopedLocals.isEmpty else { return [] }
        var computesOnly = true
        visit(step) { e in
            switch e.kind {
            case .call, .textureWrite, .addressOf, .dereference: computesOnly = false
            default: break
            }
        }
        guard computesOnly else { return [] }
        let stepAssigned = assignedVariables([], extra: [step], program: program)
        guard !stepAssigned.isEmpty, stepAssigned.isSubset(of: scopedLocals),
              assignedVariables(body, extra: condition.map { [$0] } ?? [], program: program).isDisjoint(with: stepAssigned)
        else { return [] }
        return stepAssigned
    }

    /// Whether running `statements` can retire lanes out of the region they form:
    /// `return`, `discard_fragment()` (also inside called helpers), and `break`/`continue`
    /// that leave it.
    static func canRetire(_ statements: [TypedStatement], discards: [Bool], insideLoop: Bool = false,
                          insideSwitch: Bool = false) -> Bool {
        let anyDiscards = discards.contains(true)
        for statement in statements {
            if anyDiscards {
                var calls = false
                forEachExpression(statement) { e in
                    visit(e) { if case .call(let f, _) = $0.kind, discards[f] { calls = true } }
                }
                if calls { return true }
            }
            switch statement.kind {
            case .returnValue, .discard: return true
            case .breakLoop: if !insideLoop && !insideSwitch { return true }
            case .continueLoop: if !insideLoop { return true }
            case .loop(_, _, let body, _):
                if canRetire(body, discards: discards, insideLoop: true, insideSwitch: insideSwitch) { return true }
            case .switchOn(_, let cases):
                for c in cases where canRetire(c.body, discards: discards, insideLoop: insideLoop, insideSwitch: true) {
                    return true
                }
            case .block(let b):
                if canRetire(b, discards: discards, insideLoop: insideLoop, insideSwitch: insideSwitch) { return true }
            case .ifElse(_, let t, let e):
                if canRetire(t, discards: discards, insideLoop: insideLoop, insideSwitch: insideSwitch)
                    || canRetire(e, discards: discards, insideLoop: insideLoop, insideSwitch: insideSwitch) { return true }
            default: break
            }
        }
        return false
    }

    /// Whether `statements` contain a `continue` of the loop they are the body of.
    static func containsContinue(_ statements: [TypedStatement]) -> Bool {
        for statement in statements {
            switch statement.kind {
            case .continueLoop: return true
            case .loop: continue
            default:
                var found = false
                forEachNested(statement) { if !found && containsContinue($0) { found = true } }
                if found { return true }
            }
        }
        return false
    }

    /// Number of `return` statements in `statements`.
    static func returnCount(_ statements: [TypedStatement]) -> Int {
        var total = 0
        for statement in statements {
            if case .returnValue = statement.kind { total += 1 }
            forEachNested(statement) { total += returnCount($0) }
        }
        return total
    }

    /// Whether the function's only `return` is its last top-level statement.
    static func hasSingleFinalReturn(_ body: [TypedStatement]) -> Bool {
        guard let last = body.last, case .returnValue = last.kind else { return false }
        return returnCount(body) == 1
    }

    /// Local variables indexed with a non-constant index directly (`a[i]`): they live in
    /// a register group so `ldr`/`str` can index them.
    static func dynamicallyIndexedVariables(_ statements: [TypedStatement]) -> Set<VariableID> {
        var result = Set<VariableID>()
        visit(statements) { e in
            if case .index(let base, let index) = e.kind, case .variable(let id) = base.kind {
                if case .constant = index.kind { return }
                if case .array = base.type { result.insert(id) }
            }
        }
        return result
    }

    /// `dynamicallyIndexedVariables` of `function`'s body, without visiting it when the
    /// function declares no array (most functions: the visit was 1.3 % of a median compile).
    static func dynamicallyIndexedVariables(of function: CheckedFunction) -> Set<VariableID> {
        guard function.variables.contains(where: { if case .array = $0.type { return true } else { return false } })
        else { return [] }
        return dynamicallyIndexedVariables(function.body)
    }

    /// For each function: whether it or a function it calls executes `discard_fragment()`.
    static func discardingFunctions(_ program: CheckedProgram) -> [Bool] {
        var result = program.functions.map { function -> Bool in
            var found = false
            func scan(_ statements: [TypedStatement]) {
                for s in statements {
                    if case .discard = s.kind { found = true }
                    forEachNested(s) { scan($0) }
                }
            }
            scan(function.body)
            return found
        }
        // Without a `discard_fragment()` statement anywhere no function discards, whatever
        // calls what: skip visiting every expression of the program for its calls (most
        // programs; the visit was 1.8 % of a median compile, docs/benchmarks.md).
        guard result.contains(true) else { return result }
        let callees = program.functions.map { function -> Set<FunctionID> in
            var set = Set<FunctionID>()
            visit(function.body) { if case .call(let f, _) = $0.kind { set.insert(f) } }
            return set
        }
        var changed = true
        var rounds = 0
        while changed && rounds <= program.functions.count {
            changed = false
            rounds += 1
            for index in result.indices where !result[index] {
                if callees[index].contains(where: { $0 < result.count && result[$0] }) {
                    result[index] = true
                    changed = true
                }
            }
        }
        return result
    }
}
