/// Block scoping for the locals of one function body.
///
/// Lookups are O(1): every name maps to a stack of the bindings that currently shadow one
/// another, and a log of declarations lets `pop()` undo exactly one block's declarations.
/// (A chain of per-block dictionaries would make lookups linear in nesting depth.)
struct Scope {
    struct Binding {
        var variable: VariableID
        /// Nesting level of the block that declared it (0 = the function's parameters and body).
        var depth: Int
    }

    private var bindings: [String: [Binding]] = [:]
    private var log: [String] = []
    private var marks: [Int] = []

    /// Nesting level of the innermost open block.
    var depth: Int { marks.count }

    /// Opens a block.
    mutating func push() {
        marks.append(log.count)
    }

    /// Closes the innermost block, forgetting its declarations.
    mutating func pop() {
        guard let mark = marks.popLast() else { return }
        while log.count > mark {
            let name = log.removeLast()
            bindings[name]?.removeLast()
        }
    }

    /// Forgets everything (between functions).
    mutating func reset() {
        bindings.removeAll(keepingCapacity: true)
        log.removeAll(keepingCapacity: true)
        marks.removeAll(keepingCapacity: true)
    }

    /// Declares `name` in the innermost block. Returns the variable it would redeclare in
    /// that same block (a redefinition), or `nil`.
    @discardableResult
    mutating func declare(_ name: String, variable: VariableID) -> VariableID? {
        let depth = self.depth
        if let existing = bindings[name]?.last, existing.depth == depth {
            return existing.variable
        }
        bindings[name, default: []].append(Binding(variable: variable, depth: depth))
        log.append(name)
        return nil
    }

    /// The innermost visible variable called `name`.
    func lookup(_ name: String) -> VariableID? {
        bindings[name]?.last?.variable
    }

    /// Every name currently visible (for "did you mean" suggestions; not a hot path).
    var visibleNames: [String] {
        bindings.compactMap { $0.value.isEmpty ? nil : $0.key }
    }
}
