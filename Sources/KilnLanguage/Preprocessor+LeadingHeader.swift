/// The unit's leading header: the first `#include` of the main file, when nothing came
/// before it — no token, no `#define`, no other header, not inside `#if`. What preprocessing
/// leaves behind after such a header depends on the request's files alone, so `HeaderCache`
/// can keep it and the next compile can skip the header's tokens (`Frontend.check`).
extension Preprocessor {
    /// What became of the leading header.
    indirect enum LeadingHeader {
        /// Found in the cache: its tokens were skipped and the state after it restored.
        case resumed(HeaderCache.Entry)
        /// Preprocessed here without a diagnostic: its tokens are the first
        /// `Resumption.tokenCount` of `output`.
        case recorded(HeaderCache.Key, Resumption)
    }

    /// The preprocessor's state after a leading header, everything later lines can observe:
    /// the macros (an include guard, the header's own), and what counts against the limits.
    /// Not the header's tokens, their lexed files or hide sets: the tokens after the header
    /// never refer to them (a header included again is lexed again, which gives the same tokens).
    struct Resumption: Sendable {
        var macros: [String: Macro]
        var macroLengthMask: UInt64
        var producedTokens: Int
        var expansionSteps: Int
        var includeCount: Int
        var tokenCount: Int
        /// The table the macros' long spellings and annexes are in.
        var table: TokenTable
    }

    /// Whether an `#include` reached now would be the unit's leading header (its own
    /// `includeCount` already counted).
    func atLeadingHeader(depth: Int, unconditional: Bool) -> Bool {
        headerCache != nil && leadingHeader == nil && depth == 0 && unconditional && includeCount == 1
            && output.isEmpty && diagnostics.isEmpty && !macrosChanged && !stopped
            && producedTokens == 0 && expansionSteps == 0 && skippedTokens == 0
    }

    /// Includes file `target` as the leading header: from the cache when it holds the
    /// state after it, else by preprocessing it and recording that state.
    mutating func includeLeadingHeader(_ target: Int, cache: HeaderCache) {
        guard let key = HeaderCache.Key(files: files, mainFile: mainFile, header: target,
                                        searchPaths: searchPaths, limits: limits) else {
            processFile(target, depth: 1)
            return
        }
        if let entry = cache.entry(for: key) {
            resume(after: entry.preprocessor)
            leadingHeader = .resumed(entry)
            return
        }
        processFile(target, depth: 1)
        // What the header leaves behind depends on the main file's text if it included that.
        guard diagnostics.isEmpty, !stopped, !mainFileReentered else { return }
        let resumption = Resumption(macros: macros, macroLengthMask: macroLengthMask, producedTokens: producedTokens,
                                    expansionSteps: expansionSteps, includeCount: includeCount,
                                    tokenCount: output.count, table: table)
        leadingHeader = .recorded(key, resumption)
    }

    /// Continues as if the leading header had just been preprocessed. The macros' tokens
    /// move into this compile's table: their long spellings and annexes were indexes into
    /// the recording compile's.
    mutating func resume(after resumption: Resumption) {
        var restored = resumption.macros
        for (name, macro) in resumption.macros
        where macro.body.contains(where: { $0.spelling.inlineText == nil || $0.annex != 0 }) {
            var moved = macro
            for index in moved.body.indices {
                let token = macro.body[index]
                if token.spelling.inlineText == nil {
                    moved.body[index].spelling = table.spelling(resumption.table.text(of: token))
                }
                if token.annex != 0 {
                    let annex = resumption.table.annexes[Int(token.annex)]
                    moved.body[index].annex = table.annex(documentation: annex.documentation, expansion: annex.expansion)
                }
            }
            restored[name] = moved
        }
        macros = restored
        macroLengthMask = resumption.macroLengthMask
        producedTokens = resumption.producedTokens
        expansionSteps = resumption.expansionSteps
        includeCount = resumption.includeCount
        skippedTokens = resumption.tokenCount
    }
}
