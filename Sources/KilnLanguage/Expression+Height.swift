/// The height of an expression tree, kept in every node.
///
/// The parser builds operator chains (`a + b + c + …`) and postfix chains (`a.b.c`,
/// `f()()`) in loops, so its recursion depth does not bound the tree: a 100,000-term sum
/// is a left-deep tree 100,000 levels high, and every recursive pass over it (checking,
/// lowering, even releasing it) would overflow the stack. The parser and the checker hold
/// trees to `maxNestingDepth` levels by this measure. Each node computes its height from
/// its operands' when it is made, so asking costs nothing: measuring on demand walked the
/// tree every time the parser extended a chain or the checker met a statement (4.5 % of
/// compile time over `shaders/`).
extension Expression {
    static func height(of kind: Kind) -> Int {
        switch kind {
        case .integerLiteral, .floatLiteral, .booleanLiteral, .identifier:
            return 1
        case .unary(_, let x), .postfix(_, let x), .cast(_, let x), .member(let x, _, _, _):
            return x.height + 1
        case .binary(_, let a, let b), .assignment(_, let a, let b), .index(let a, let b):
            return max(a.height, b.height) + 1
        case .conditional(let a, let b, let c):
            return max(a.height, b.height, c.height) + 1
        case .call(let callee, let arguments):
            return arguments.reduce(callee.height) { max($0, $1.height) } + 1
        case .construct(_, let arguments), .initializerList(let arguments):
            return arguments.reduce(0) { max($0, $1.height) } + 1
        }
    }
}
