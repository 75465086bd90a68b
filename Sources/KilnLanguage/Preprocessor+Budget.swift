/// Resource bounds of macro expansion: the `maxTokens` budget of tokens produced by
/// expansion, the nesting depth of argument pre-expansion (`maxMacroExpansionDepth`), and
/// the exact expanded size of simple object-like macros, so that a macro bomb such as
/// `#define A1 A0 A0` … `A40` fails at once instead of after a million expansion steps.
extension Preprocessor {
    /// Stops preprocessing with the `maxTokens` error (reported once).
    mutating func stopForTokenLimit(at range: SourceRange) {
        guard !stopped else { return }
        diagnostics.append(.error("too many tokens (limit maxTokens = \(limits.maxTokens))", at: range))
        stopped = true
    }

    /// Counts `count` tokens produced by one expansion step against `maxTokens`; `false`
    /// (and preprocessing stopped) when the budget is exhausted. Every token that macro
    /// expansion creates is counted, including those of pre-expanded arguments that are
    /// later copied or dropped, so the memory held by expansion stays proportional to the limit.
    mutating func spendTokens(_ count: Int, at range: SourceRange) -> Bool {
        producedTokens += count
        if producedTokens > limits.maxTokens || emittedCount + count > limits.maxTokens {
            stopForTokenLimit(at: range)
            return false
        }
        if producedTokens > limits.maxExpansionTokens {
            if !stopped {
                diagnostics.append(.error("macro expansion creates too many tokens (limit maxExpansionTokens = \(limits.maxExpansionTokens))", at: range))
                stopped = true
            }
            return false
        }
        return true
    }

    /// Stops preprocessing because macro arguments are nested deeper than
    /// `maxMacroExpansionDepth` (each level pre-expands the next one recursively).
    mutating func stopForArgumentDepth(at token: Token) {
        guard !stopped else { return }
        if !expansionDepthReported {
            expansionDepthReported = true
            diagnostics.append(.error("macro arguments nested too deeply (limit maxMacroExpansionDepth = \(limits.maxMacroExpansionDepth))",
                                      at: table.expansion(of: token)?.useRange ?? token.range, notes: expansionNotes(token)))
        }
        stopped = true
    }

    /// The exact number of tokens a use of the object-like macro `name` (by a token with
    /// an empty hide set) expands to, when that is cheap to know: its body, transitively
    /// through object-like macros, contains no function-like macro name, no `##` and no
    /// cycle, and the expansion is at most `maxMacroExpansionDepth` macros deep. Then hide
    /// sets never block and nothing after the use is consumed, so the expansion is exactly
    /// the sum of its parts. `nil` otherwise. Sizes saturate at `maxTokens + 1`.
    mutating func knownExpansionSize(of name: String) -> Int? {
        var visiting: Set<String> = []
        return knownExpansion(of: name, depth: 0, visiting: &visiting)?.size
    }

    /// Size and height (macro levels) of the expansion of `name` at nesting `depth`, as
    /// described at `knownExpansionSize(of:)`. Memoized until the next `#define`/`#undef`.
    private mutating func knownExpansion(of name: String, depth: Int, visiting: inout Set<String>) -> KnownExpansion? {
        if let known = expansionSizes[name] { return known.size >= 0 && depth + known.height <= limits.maxMacroExpansionDepth ? known : nil }
        guard let macro = macros[name], macro.parameters == nil, depth < limits.maxMacroExpansionDepth,
              !visiting.contains(name) else { return nil }
        visiting.insert(name)
        defer { visiting.remove(name) }
        let cap = limits.maxTokens + 1
        var result: KnownExpansion? = KnownExpansion(size: 0, height: 1)
        for token in macro.body where result != nil {
            if token.isPunctuator("##") {
                result = nil
            } else if token.kind == .identifier, macros[text(token)] != nil {
                if let inner = knownExpansion(of: text(token), depth: depth + 1, visiting: &visiting) {
                    result!.size = min(cap, result!.size + inner.size)
                    result!.height = max(result!.height, inner.height + 1)
                } else {
                    result = nil
                }
            } else {
                result!.size = min(cap, result!.size + 1)
            }
        }
        // A failure below the top may come from the depth or an enclosing cycle, not from
        // this macro alone: memoize sizes, and failures only at the top.
        if let result {
            expansionSizes[name] = result
        } else if depth == 0 {
            expansionSizes[name] = KnownExpansion(size: -1, height: 0)
        }
        return result
    }
}

/// A memoized expansion size (`size` -1: not known) and the macro levels it spans.
struct KnownExpansion {
    var size: Int
    var height: Int
}
