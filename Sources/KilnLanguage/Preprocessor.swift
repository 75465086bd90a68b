/// The token-level preprocessor (as in clang): directives, conditional inclusion and macro
/// expansion over the lexer's tokens of the compile request's files.
///
/// Expanded tokens carry the range of the macro *use* in the user's file and an
/// `expansion` record naming the macro, so every diagnostic points into text the user
/// wrote. Rescanning follows Prosser's algorithm: each token carries the set of macros
/// whose expansion produced it (`hideSet`), which stops recursion; the size of that set is
/// the expansion depth checked against `maxMacroExpansionDepth`.
public struct Preprocessor {
    /// A `#define`d macro.
    struct Macro {
        var name: String
        /// `nil` for object-like macros.
        var parameters: [String]?
        var isVariadic: Bool
        var body: [Token]
        var range: SourceRange
    }

    /// One open `#if` group.
    struct Conditional {
        /// The enclosing region is active.
        var parentActive: Bool
        /// Some branch of this group was taken already.
        var anyTaken: Bool
        /// The current branch is active.
        var active: Bool
        var sawElse: Bool
        var range: SourceRange
    }

    /// Headers of the Metal and SwiftUI SDKs that Kiln knows without a file: their contents are built in.
    static let systemHeaders: Set<String> = [
        "metal_stdlib", "metal_math", "metal_common", "metal_geometric", "metal_relational",
        "metal_integer", "metal_matrix", "metal_texture", "metal_types", "metal_graphics",
        "metal_compute", "metal_pack", "metal_atomic", "metal_simdgroup", "metal_numeric",
        "metal_limits", "metal_type_traits", "metal_array", "metal_vector", "metal_uniform",
        "simd/simd.h", "SwiftUI/SwiftUI.h", "SwiftUI/SwiftUI_Metal.h",
    ]

    let files: [SourceFile]
    /// Folders (as file-name prefixes) `#include` searches after the including file's own
    /// (`IncludePath`).
    let searchPaths: [String]
    let limits: LanguageLimits
    var macros: [String: Macro] = [:] {
        didSet {
            expansionSizes.removeAll(keepingCapacity: true)
            macrosChanged = true
        }
    }
    /// Set once a `#define` or `#undef` changed `macros` from the predefined ones.
    var macrosChanged = false
    /// Memo of `knownExpansionSize(of:)`; cleared when a macro changes.
    var expansionSizes: [String: KnownExpansion] = [:]
    /// Tokens produced by macro expansion so far, counted against `maxTokens`.
    var producedTokens = 0
    /// Nesting of argument pre-expansion (`F(G(H(x)))`), bounded by `maxMacroExpansionDepth`.
    var argumentExpansionDepth = 0
    /// Bit `n` is set when some macro name has `n` bytes (63: longer): most identifiers
    /// are then known not to be macros without hashing them.
    var macroLengthMask: UInt64 = 0
    var output: [Token] = []
    /// Long spellings and annexes of every token of the compile (`TokenTable`).
    var table = TokenTable()
    var diagnostics: [Diagnostic] = []
    var lexed: [Int: [Token]] = [:]
    /// Set when a limit stopped preprocessing; everything after is dropped.
    var stopped = false
    var expansionDepthReported = false
    /// Interned hide sets (`Token.hideSet` indexes this; 0 is empty), the memo of
    /// `set ∪ {name}` and the memo of `a ∪ b` (key `a << 32 | b`).
    var hideSets: [HideSet] = [HideSet()]
    var hideSetAdditions: [HideSetKey: Int32] = [:]
    var hideSetUnions: [Int64: Int32] = [:]
    /// Counts expansions, so macros that expand to nothing forever still end.
    var expansionSteps = 0
    /// Files entered through `#include` so far (`maxIncludes`), and whether the limit was reported.
    var includeCount = 0
    var includeLimitReported = false
    /// The file preprocessed as the translation unit.
    var mainFile = 0
    /// Where the unit's leading header is looked up and kept (`HeaderCache`); nil: never.
    var headerCache: HeaderCache?
    /// What became of the unit's leading header, when it has one and the cache was asked.
    var leadingHeader: LeadingHeader?
    /// Tokens of a leading header taken from the cache instead of preprocessed: they are
    /// not in `output` but count against `maxTokens` as if they were.
    var skippedTokens = 0
    /// Set when an `#include` entered the main file again.
    var mainFileReentered = false
    /// Tokens of the unit so far, a skipped leading header's included.
    var emittedCount: Int { skippedTokens + output.count }

    init(files: [SourceFile], limits: LanguageLimits, searchPaths: [String] = []) {
        self.files = files
        self.limits = limits
        self.searchPaths = searchPaths.map(IncludePath.normalize)
        (macros, macroLengthMask) = Self.predefined
    }

    /// `__METAL_VERSION__` and `__KILN__`, made once for the process: their spellings are
    /// stored in the tokens (`TokenSpelling`), so they need no compile's table, and every
    /// compile starts from the same dictionary without building it (a copy is shared until
    /// a `#define` changes it).
    private static let predefined: (macros: [String: Macro], lengthMask: UInt64) = {
        var macros: [String: Macro] = [:]
        var mask: UInt64 = 0
        for (name, value) in [("__METAL_VERSION__", "310"), ("__KILN__", "1")] {
            let range = SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1))
            let body = Token(kind: .integerLiteral, spelling: TokenSpelling.inline(value)!, range: range)
            macros[name] = Macro(name: name, parameters: nil, isVariadic: false, body: [body], range: range)
            mask |= lengthBit(name)
        }
        return (macros, mask)
    }()

    /// Preprocesses `files[mainFile]` and everything it includes; the result ends with
    /// `.endOfFile`, and `table` holds its tokens' long spellings and annexes.
    public static func preprocess(files: [SourceFile], mainFile: Int, limits: LanguageLimits = .default,
                                  searchPaths: [String] = []) -> (tokens: [Token], table: TokenTable, diagnostics: [Diagnostic]) {
        guard files.indices.contains(mainFile) else {
            let nowhere = SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1))
            return ([Token(kind: .endOfFile, spelling: .empty, range: nowhere)], TokenTable(), [.error("no main file", at: nowhere)])
        }
        var preprocessor = Preprocessor(files: files, limits: limits, searchPaths: searchPaths)
        return preprocessor.run(mainFile: mainFile)
    }

    /// Preprocesses `files[mainFile]` (a valid index) as `preprocess` does; what became of
    /// its leading header is in `leadingHeader` afterwards.
    mutating func run(mainFile: Int) -> (tokens: [Token], table: TokenTable, diagnostics: [Diagnostic]) {
        self.mainFile = mainFile
        let start = SourceRange(at: SourceLocation(file: mainFile, offset: 0, line: 1, column: 1))
        let totalBytes = files.reduce(0) { $0 + $1.bytes.count }
        // Capped below 2³¹: a `SourceLocation` stores its offset in 32 bits.
        let maxSourceBytes = min(limits.maxSourceBytes, Int(Int32.max))
        if totalBytes > maxSourceBytes {
            return ([Token(kind: .endOfFile, spelling: .empty, range: start)], TokenTable(),
                    [.error("source too large: \(totalBytes) bytes (limit maxSourceBytes = \(maxSourceBytes))", at: start)])
        }
        // About a token per four bytes of source (comments make it fewer): one allocation
        // instead of growing the token array by doubling, each step copying every token.
        output.reserveCapacity(min(totalBytes / 4, limits.maxTokens) + 1)
        processFile(mainFile, depth: 0)
        let end = lex(mainFile).last?.range ?? start
        output.append(Token(kind: .endOfFile, spelling: .empty, range: end, isAtLineStart: true))
        return (output, table, diagnostics)
    }

    /// The spelling of `token`.
    @inline(__always) func text(_ token: Token) -> String { table.text(of: token) }

    @inline(__always)
    static func lengthBit(_ name: String) -> UInt64 { 1 << UInt64(min(name.utf8.count, 63)) }

    mutating func lex(_ fileIndex: Int) -> [Token] {
        if let tokens = lexed[fileIndex] { return tokens }
        let (tokens, problems) = Lexer.tokenize(files[fileIndex], fileIndex: fileIndex, limits: limits, into: &table)
        diagnostics.append(contentsOf: problems)
        lexed[fileIndex] = tokens
        return tokens
    }

    /// Emits one finished token, enforcing `maxTokens`.
    /// Takes the token over (`consuming`): the caller's copy moves into `output` instead
    /// of being copied again, a copy and a destroy less per token.
    mutating func emit(_ token: consuming Token) {
        guard !stopped else { return }
        if emittedCount >= limits.maxTokens {
            diagnostics.append(.error("too many tokens (limit maxTokens = \(limits.maxTokens))", at: token.range))
            stopped = true
            return
        }
        output.append(token)
    }

    /// Whether `token` passes through unchanged wherever text is active: not the end, not a
    /// directive's `#`, and not an identifier that may name a macro.
    @inline(__always)
    private func isInert(_ token: Token) -> Bool {
        switch token.kind {
        case .endOfFile: return false
        case .identifier: return macroLengthMask & Preprocessor.lengthBit(text(token)) == 0
        case .punctuator: return !(token.isAtLineStart && token.isPunctuator("#"))
        default: return true
        }
    }

    /// group := { directive-line | text-line } — one file, with its own conditional stack.
    mutating func processFile(_ fileIndex: Int, depth: Int) {
        if depth > 0 && fileIndex == mainFile { mainFileReentered = true }
        let tokens = lex(fileIndex)
        let reader = TokenReader(raw: tokens)
        var conditionals: [Conditional] = []
        while !stopped {
            if reader.pending.isEmpty {
                let raw = tokens[reader.cursor]
                if raw.kind == .endOfFile { break }
                if raw.isPunctuator("#") && raw.isAtLineStart {
                    var end = reader.cursor + 1
                    while !tokens[end].isAtLineStart && tokens[end].kind != .endOfFile { end += 1 }
                    let line = Array(tokens[(reader.cursor + 1)..<end])
                    reader.cursor = end
                    handleDirective(hash: raw, line: line, conditionals: &conditionals, depth: depth)
                    continue
                }
                if let innermost = conditionals.last, !innermost.active {
                    reader.cursor += 1
                    continue
                }
                if isInert(raw) {
                    // Fast path: a run of tokens that cannot start an expansion or a directive
                    // goes to the output in one copy instead of one append per token.
                    var end = reader.cursor + 1
                    while end < tokens.count, isInert(tokens[end]) { end += 1 }
                    if !stopped, emittedCount + (end - reader.cursor) <= limits.maxTokens {
                        output.append(contentsOf: tokens[reader.cursor..<end])
                        reader.cursor = end
                    } else {
                        reader.cursor += 1
                        emit(raw)
                    }
                    continue
                }
            }
            guard let token = reader.next() else { continue }
            if let expansion = expand(token, from: reader) {
                // A prefix without macro names is final: emit it instead of rescanning it.
                let inert = inertPrefixLength(expansion)
                for finished in expansion[..<inert] { emit(finished) }
                reader.pushFront(expansion[inert...])
            } else {
                emit(token)
            }
        }
        if !stopped {
            for open in conditionals {
                diagnostics.append(.error("unterminated conditional directive", at: open.range))
            }
        }
    }
}

struct HideSetKey: Hashable {
    var set: Int32
    var name: String
}

/// The macro names a token may no longer expand (C's "hide set"), in the order they were
/// added and as a set. Why both: every identifier scanned asks whether its set holds it,
/// and nested function-like macros make sets as deep as the expansion (a chain of 60
/// `F(x) F(x)` macros): a linear search of the names, repeated for each name of a union,
/// was 80 % of a 2-KB macro bomb's 0.45-s compile.
struct HideSet {
    private(set) var names: [String] = []
    private var members: Set<String> = []

    var count: Int { names.count }

    func contains(_ name: String) -> Bool { !names.isEmpty && members.contains(name) }

    /// This set with `name` added (the caller checks it is not already in).
    func adding(_ name: String) -> HideSet {
        var result = self
        result.names.append(name)
        result.members.insert(name)
        return result
    }
}

/// Tokens to preprocess: a stack of tokens produced by expansion in front of a raw token array.
///
/// Reading raw tokens stops at the end and, for file text, at a directive line.
final class TokenReader {
    let raw: [Token]
    var cursor = 0
    /// Expansion output still to be rescanned, last element first.
    var pending: [Token] = []

    init(raw: [Token]) { self.raw = raw }

    private func rawAvailable() -> Bool {
        guard cursor < raw.count else { return false }
        let token = raw[cursor]
        return token.kind != .endOfFile && !(token.isAtLineStart && token.isPunctuator("#"))
    }

    func next() -> Token? {
        if let token = pending.popLast() { return token }
        guard rawAvailable() else { return nil }
        cursor += 1
        return raw[cursor - 1]
    }

    func peek() -> Token? {
        if let token = pending.last { return token }
        return rawAvailable() ? raw[cursor] : nil
    }

    func pushFront(_ tokens: [Token]) {
        pending.append(contentsOf: tokens.reversed())
    }

    func pushFront(_ tokens: ArraySlice<Token>) {
        pending.append(contentsOf: tokens.reversed())
    }
}

/// The function-like macro invocations open while collecting macro arguments, by the
/// parenthesis level of their `(`: how deeply argument pre-expansion will recurse.
struct MacroInvocationNesting {
    private var levels: [Int] = []
    private var afterMacroName = false

    /// Open invocations.
    var depth: Int { levels.count }

    /// Records whether the token just read (after `open`/`close` have seen it) names a function-like macro.
    mutating func follows(isFunctionLikeMacro: Bool) {
        afterMacroName = isFunctionLikeMacro
    }

    /// A `(` at parenthesis `level`; `true` when it opens a macro invocation.
    mutating func open(at level: Int) -> Bool {
        guard afterMacroName else { return false }
        levels.append(level)
        return true
    }

    /// A `)` closing parenthesis `level`.
    mutating func close(at level: Int) {
        if levels.last == level { levels.removeLast() }
    }
}
