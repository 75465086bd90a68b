/// The height of an expression tree, measured without recursion.
///
/// The parser builds operator chains (`a + b + c + …`) and postfix chains (`a.b.c`,
/// `f()()`) in loops, so its recursion depth does not bound the tree: a 100,000-term sum
/// is a left-deep tree 100,000 levels high, and every recursive pass over it (checking,
/// lowering, even releasing it) would overflow the stack. The parser and the checker use
/// this measure to hold trees to `maxNestingDepth` levels.
extension Expression {
    /// Levels from this node to its deepest leaf (a leaf is 1).
    var height: Int {
        var deepest = 0
        var stack: [(expression: Expression, depth: Int)] = [(self, 1)]
        while let (node, depth) = stack.popLast() {
            deepest = max(deepest, depth)
            for child in node.operands { stack.append((child, depth + 1)) }
        }
        return deepest
    }

    /// The direct operands, the left one first (not expressions inside type names, which
    /// the parser bounds by recursion).
    var operands: [Expression] {
        switch kind {
        case .integerLiteral, .floatLiteral, .booleanLiteral, .identifier:
            return []
        case .unary(_, let x), .postfix(_, let x), .cast(_, let x), .member(let x, _, _, _):
            return [x]
        case .binary(_, let a, let b), .assignment(_, let a, let b), .index(let a, let b):
            return [a, b]
        case .conditional(let a, let b, let c):
            return [a, b, c]
        case .call(let callee, let arguments):
            return [callee] + arguments
        case .construct(_, let arguments), .initializerList(let arguments):
            return arguments
        }
    }
}
