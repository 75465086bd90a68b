import KilnLanguage

/// Loops whose control is certainly varying go straight to the masked lowering.
///
/// `lowerLoop` first tries jump-based control and rolls back when the attempt meets varying
/// control: a condition that differs between lanes, or a `break`, `continue` or `return`
/// under an `if` whose condition does. For a sphere tracer (`if (d < 0.001) break;` after a
/// call of the scene's distance function) the attempt lowers the whole body — with loop
/// unrolling, eight inlined copies of the scene — before it finds that out: a third of
/// compiling `bench/raymarch.metal`. When the typed tree already shows it — the condition
/// or such an `if`'s condition reads a value that is varying now (the uniformity the
/// attempt would use) or a variable the body assigns from one, transitively, or a texture
/// read — the attempt cannot succeed, and the masked loop it would fall back to is lowered
/// at once from the same state: the same code, without the wasted attempt.
extension FunctionLowerer {
    func loopControlIsObviouslyVarying(_ condition: TypedExpression?, _ body: [TypedStatement]) -> Bool {
        // Variables of this function the body sets from varying values, to a fixed point.
        var varyingVariables = Set<VariableID>()
        func isVarying(_ e: TypedExpression) -> Bool { readsVaryingValue(e, or: varyingVariables) }
        func collect(_ statements: [TypedStatement]) -> Bool {
            var grew = false
            for statement in statements {
                if case .declare(let id, let initializer?) = statement.kind, !varyingVariables.contains(id),
                   isVarying(initializer) {
                    varyingVariables.insert(id)
                    grew = true
                }
                for e in StatementScanner.expressions(statement) {
                    StatementScanner.visit(e) { inner in
                        switch inner.kind {
                        case .assign(let lhs, let rhs), .compoundAssign(_, let lhs, let rhs):
                            if let id = StatementScanner.root(lhs), !varyingVariables.contains(id), isVarying(rhs) {
                                varyingVariables.insert(id)
                                grew = true
                            }
                        default:
                            break
                        }
                    }
                }
                for inner in StatementScanner.nested(statement) where collect(inner) { grew = true }
            }
            return grew
        }
        while collect(body) {}
        if let condition, isVarying(condition) { return true }
        /// A `break`/`continue` of this loop, or a `return`, under a varying `if`.
        func leavesUnderVaryingIf(_ statements: [TypedStatement], varying: Bool, inNestedLoop: Bool) -> Bool {
            for statement in statements {
                switch statement.kind {
                case .breakLoop, .continueLoop:
                    if varying && !inNestedLoop { return true }
                case .returnValue:
                    if varying { return true }
                case .ifElse(let c, let then, let otherwise):
                    let inner = varying || isVarying(c)
                    if leavesUnderVaryingIf(then, varying: inner, inNestedLoop: inNestedLoop)
                        || leavesUnderVaryingIf(otherwise, varying: inner, inNestedLoop: inNestedLoop) { return true }
                case .block(let statements):
                    if leavesUnderVaryingIf(statements, varying: varying, inNestedLoop: inNestedLoop) { return true }
                case .loop(_, _, let statements, _):
                    if leavesUnderVaryingIf(statements, varying: varying, inNestedLoop: true) { return true }
                default:
                    break   // a `switch` is left to the attempt
                }
            }
            return false
        }
        return leavesUnderVaryingIf(body, varying: false, inNestedLoop: false)
    }
}
