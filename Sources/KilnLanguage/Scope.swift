/// Block scoping for the locals of one function body.
///
/// The bindings are a stack in declaration order; closing a block pops its declarations.
/// A lookup searches the stack from the top, comparing a name only with names of the same
/// length — a function has a few dozen locals, and this costs less than hashing the name
/// for a dictionary (one `[String: [Binding]]` with an array per name was 2 % of a median
/// compile: docs/benchmarks.md, "thirty-sixth session"). Past `indexedFrom` bindings (a
/// generated function with thousands of locals) the stack gets a dictionary from name to its
/// positions, so lookups stay O(1) whatever the source.
struct Scope {
    /// Bindings on the stack from which lookups go through `index`.
    static let indexedFrom = 48

    private var names: [String] = []
    private var variables: [VariableID] = []
    /// Nesting level of the block that declared each binding (0: the function's parameters and body).
    private var depths: [Int] = []
    /// Stack height at each open block's start.
    private var marks: [Int] = []
    /// Stack positions of each name, innermost last, once the stack has held `indexedFrom` bindings.
    private var index: [String: [Int]]?

    /// Nesting level of the innermost open block.
    var depth: Int { marks.count }

    /// An empty scope with room for a typical function's locals and blocks (the stack is
    /// reset between functions keeping its room; grown from nothing it was reallocated about
    /// a dozen times a compile).
    init() {
        names.reserveCapacity(Self.indexedFrom)
        variables.reserveCapacity(Self.indexedFrom)
        depths.reserveCapacity(Self.indexedFrom)
        marks.reserveCapacity(8)
    }

    /// Opens a block.
    mutating func push() {
        marks.append(names.count)
    }

    /// Closes the innermost block, forgetting its declarations.
    mutating func pop() {
        guard let mark = marks.popLast() else { return }
        while names.count > mark {
            let name = names.removeLast()
            variables.removeLast()
            depths.removeLast()
            index?[name]?.removeLast()
        }
    }

    /// Forgets everything (between functions).
    mutating func reset() {
        names.removeAll(keepingCapacity: true)
        variables.removeAll(keepingCapacity: true)
        depths.removeAll(keepingCapacity: true)
        marks.removeAll(keepingCapacity: true)
        index = nil
    }

    /// Declares `name` in the innermost block. Returns the variable it would redeclare in
    /// that same block (a redefinition), or `nil`.
    @discardableResult
    mutating func declare(_ name: String, variable: VariableID) -> VariableID? {
        if let position = position(of: name), depths[position] == depth {
            return variables[position]
        }
        names.append(name)
        variables.append(variable)
        depths.append(depth)
        if index != nil {
            index![name, default: []].append(names.count - 1)
        } else if names.count >= Self.indexedFrom {
            var built: [String: [Int]] = [:]
            for (position, name) in names.enumerated() { built[name, default: []].append(position) }
            index = built
        }
        return nil
    }

    /// The innermost visible variable called `name`.
    func lookup(_ name: String) -> VariableID? {
        position(of: name).map { variables[$0] }
    }

    /// Stack position of the innermost binding of `name`.
    private func position(of name: String) -> Int? {
        if let index { return index[name]?.last }
        let length = name.utf8.count
        var position = names.count - 1
        while position >= 0 {
            if names[position].utf8.count == length && sameSpelling(names[position], name) { return position }
            position -= 1
        }
        return nil
    }

    /// Every name currently visible, in declaration order (for "did you mean" suggestions;
    /// not a hot path).
    var visibleNames: [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }
}
