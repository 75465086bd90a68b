/// The depth bound on expression trees at the checker: the parser bounds its recursion
/// and each operator chain it builds in a loop (see `Expression.height`), but a tree mixing
/// both can still be up to about twice `maxNestingDepth` high. Before the checker recurses
/// into an outermost expression it measures the tree without recursion and rejects trees
/// higher than `maxNestingDepth`, so checking and every later recursive pass (constant
/// folding, lowering) stay within that many levels.
extension Checker {
    /// `true` when `expression` is at most `limits.maxNestingDepth` levels high; otherwise
    /// reports the error and returns `false`.
    func expressionFitsDepthLimit(_ expression: Expression) -> Bool {
        guard expression.height > limits.maxNestingDepth else { return true }
        error("expression nested too deeply: each operand of an operator chain like 'a + b + c' counts as one level "
              + "(limit maxNestingDepth = \(limits.maxNestingDepth)); split it into several statements", at: expression.range)
        return false
    }
}
