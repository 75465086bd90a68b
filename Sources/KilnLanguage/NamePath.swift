/// A possibly qualified name as written: `x`, `metal::sin`, `Mode::fast`, `filter::linear`.
///
/// A collection of its components, stored as the first one and the rest: nearly every name
/// has one component, and an array per name was an allocation (and a release when the
/// tree is freed) for every identifier in every expression.
public struct NamePath: RandomAccessCollection, ExpressibleByArrayLiteral, Hashable, Sendable {
    /// The first component.
    public var head: String
    /// The components after the first (empty for a plain name; no allocation then).
    public var rest: [String]

    public init(_ head: String, rest: [String] = []) {
        self.head = head
        self.rest = rest
    }

    /// A path of at least one component.
    public init(arrayLiteral elements: String...) {
        precondition(!elements.isEmpty, "a name has at least one component")
        self.init(elements[0], rest: Array(elements.dropFirst()))
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { 1 + rest.count }

    public subscript(position: Int) -> String {
        position == 0 ? head : rest[position - 1]
    }

    /// Appends a component (`a::b` after `a`).
    public mutating func append(_ component: String) {
        rest.append(component)
    }
}
