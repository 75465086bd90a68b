/// Turns one source file into tokens.
///
/// Comments and whitespace are skipped, except that `///` lines are collected and handed
/// to the next token as its `documentation`. A bad character or literal is reported and
/// skipped; lexing always reaches the end of the file.
public struct Lexer {
    private let bytes: [UInt8]
    private let fileIndex: Int
    private let maxTokens: Int
    private var position = 0
    private var line = 1
    private var lineStart = 0
    private var atLineStart = true
    private var leadingSpace = false
    private var pendingDocumentation: [String] = []
    private var table = TokenTable()
    public private(set) var diagnostics: [Diagnostic] = []

    public init(file: SourceFile, fileIndex: Int, maxTokens: Int = LanguageLimits.default.maxTokens) {
        self.bytes = file.bytes
        self.fileIndex = fileIndex
        self.maxTokens = maxTokens
    }

    /// Lexes the whole file; the last token is `.endOfFile`. The tokens' long spellings and
    /// documentation are in the returned table.
    public static func tokenize(_ file: SourceFile, fileIndex: Int,
                                limits: LanguageLimits = .default) -> (tokens: [Token], table: TokenTable, diagnostics: [Diagnostic]) {
        var table = TokenTable()
        let (tokens, diagnostics) = tokenize(file, fileIndex: fileIndex, limits: limits, into: &table)
        return (tokens, table, diagnostics)
    }

    /// Lexes the whole file, adding long spellings and documentation to `table`.
    static func tokenize(_ file: SourceFile, fileIndex: Int, limits: LanguageLimits,
                         into table: inout TokenTable) -> (tokens: [Token], diagnostics: [Diagnostic]) {
        var lexer = Lexer(file: file, fileIndex: fileIndex, maxTokens: limits.maxTokens)
        swap(&lexer.table, &table)
        let tokens = lexer.run()
        swap(&lexer.table, &table)
        return (tokens, lexer.diagnostics)
    }

    private var location: SourceLocation {
        SourceLocation(file: fileIndex, offset: position, line: line, column: position - lineStart + 1)
    }

    /// The byte `ahead` bytes past `position` in `source`, 0 past the end.
    @inline(__always)
    private func peek(_ source: UnsafeBufferPointer<UInt8>, _ ahead: Int = 0) -> UInt8 {
        let index = position + ahead
        return index < source.count ? source[index] : 0
    }

    private mutating func newline() {
        position &+= 1
        line &+= 1
        lineStart = position
        atLineStart = true
        leadingSpace = true
    }

    // Every scanning function below reads the file through `source`, the buffer of `bytes`
    // that `run` opens once: indexing the array itself reloaded and bounds-checked it on
    // every byte. Each read is guarded by a `position < source.count` test of its own.
    private mutating func run() -> [Token] {
        let source = bytes
        return source.withUnsafeBufferPointer { source in
            // The array lives inside the closure rather than being captured from outside it:
            // 0.4 % fewer instructions a compile (docs/benchmarks.md, "thirty-eighth session").
            var tokens: [Token] = []
            tokens.reserveCapacity(source.count / 3 + 1)
            // Read once: each access of the lazily made global is a `swift_once` call.
            let words = WordTable.shared
            while true {
                skipTrivia(source)
                let start = location
                guard position < source.count else {
                    tokens.append(Token(kind: .endOfFile, spelling: .empty, range: SourceRange(at: start), isAtLineStart: true))
                    return tokens
                }
                if tokens.count >= maxTokens {
                    diagnostics.append(.error("too many tokens (limit maxTokens = \(maxTokens))", at: SourceRange(at: start)))
                    tokens.append(Token(kind: .endOfFile, spelling: .empty, range: SourceRange(at: start), isAtLineStart: true))
                    return tokens
                }
                guard var kind = scanToken(source) else { continue }
                let end = location
                let spelling = UnsafeBufferPointer(rebasing: source[start.offset..<end.offset])
                let range = SourceRange(start: start, end: end)
                var wordFlags: UInt8 = 0
                let stored: TokenSpelling
                // Identifiers, numbers and punctuators are ASCII (anything else was reported
                // and skipped), so the short ones are stored inline straight from the bytes,
                // with no `String` made and released per token; only quoted literals may
                // hold other bytes.
                if spelling.count <= 15 && kind != .stringLiteral && kind != .characterLiteral {
                    stored = TokenSpelling(ascii: spelling, in: source, at: start.offset)
                } else {
                    stored = table.spelling(String(decoding: spelling, as: UTF8.self))
                }
                if kind == .identifier {
                    wordFlags = spelling.count <= 15 ? words.flags(ofShort: stored) : words.flags(of: spelling)
                } else if kind == .integerLiteral {
                    if let simple = NumericLiteral.simpleKind(of: spelling) {
                        kind = simple
                    } else {
                        switch NumericLiteral.parse(String(decoding: spelling, as: UTF8.self)) {
                        case .invalid(let message): diagnostics.append(.error(message, at: range))
                        case .integer: kind = .integerLiteral
                        case .float: kind = .floatLiteral
                        }
                    }
                }
                var token = Token(kind: kind, spelling: stored, range: range, isAtLineStart: atLineStart,
                                  hasLeadingSpace: leadingSpace, wordFlags: wordFlags)
                if !pendingDocumentation.isEmpty {
                    token.annex = table.annex(documentation: pendingDocumentation, expansion: nil)
                    pendingDocumentation = []
                }
                tokens.append(token)
                atLineStart = false
                leadingSpace = false
            }
        }
    }

    /// whitespace, `\`-newline splices, `// …`, `/* … */`; `///` lines are kept as documentation.
    @inline(__always)
    private mutating func skipTrivia(_ source: UnsafeBufferPointer<UInt8>) {
        while position < source.count {
            let c = source[position]
            switch c {
            case UInt8(ascii: "\n"):
                newline()
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                position &+= 1
                leadingSpace = true
            case UInt8(ascii: "\\") where peek(source, 1) == UInt8(ascii: "\n")
                || (peek(source, 1) == UInt8(ascii: "\r") && peek(source, 2) == UInt8(ascii: "\n")):
                // Line splice: the logical line continues.
                position &+= peek(source, 1) == UInt8(ascii: "\r") ? 2 : 1
                let keep = atLineStart
                newline()
                atLineStart = keep
            case UInt8(ascii: "/") where peek(source, 1) == UInt8(ascii: "/"):
                let isDoc = peek(source, 2) == UInt8(ascii: "/") && peek(source, 3) != UInt8(ascii: "/")
                let textStart = position + (isDoc ? 3 : 2)
                position = Lexer.lineEnd(in: source, from: position)
                if isDoc {
                    // Trimmed as bytes, before the one `String` is made.
                    var from = textStart, to = position
                    while from < to, isBlank(source[from]) { from += 1 }
                    while to > from, isBlank(source[to - 1]) { to -= 1 }
                    pendingDocumentation.append(String(decoding: UnsafeBufferPointer(rebasing: source[from..<to]), as: UTF8.self))
                }
                leadingSpace = true
            case UInt8(ascii: "/") where peek(source, 1) == UInt8(ascii: "*"):
                let start = location
                position &+= 2
                var closed = false
                while position < source.count {
                    if source[position] == UInt8(ascii: "*"), peek(source, 1) == UInt8(ascii: "/") {
                        position &+= 2
                        closed = true
                        break
                    }
                    if source[position] == UInt8(ascii: "\n") {
                        newline()
                    } else {
                        position &+= 1
                    }
                }
                if !closed {
                    diagnostics.append(.error("unterminated /* comment", at: SourceRange(start: start, end: start)))
                }
                leadingSpace = true
            default:
                return
            }
        }
    }

    /// The index of the first newline in `source` at or after `index`, or `source.count`.
    /// Eight bytes at a time: most of a shader's bytes are in `//` comments (a file's
    /// header, `///` argument documentation), and a byte-at-a-time loop was a tenth of lexing.
    /// `x - 0x01…01 & ~x & 0x80…80` is nonzero exactly when a byte of `x` (the word xor-ed
    /// with newlines) is zero, and its lowest set bit marks the first such byte.
    @inline(__always)
    static func lineEnd(in source: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        var index = index
        if let base = source.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= source.count {
                let x = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
                let zero = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
                if zero != 0 { return index + UInt64(littleEndian: zero).trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < source.count, source[index] != UInt8(ascii: "\n") { index += 1 }
        return index
    }

    /// Scans one token starting at `position`; `nil` when the bytes were skipped after an error.
    @inline(__always)
    private mutating func scanToken(_ source: UnsafeBufferPointer<UInt8>) -> Token.Kind? {
        let c = source[position]
        if isIdentifierStart(c) {
            position &+= 1
            while position < source.count, isIdentifierContinue(source[position]) { position &+= 1 }
            return .identifier
        }
        if isDigit(c) || (c == UInt8(ascii: ".") && isDigit(peek(source, 1))) {
            scanNumber(source)
            return .integerLiteral
        }
        if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
            return scanQuoted(source, c)
        }
        if let length = punctuatorLength(source) {
            position &+= length
            return .punctuator
        }
        let start = location
        if c >= 0x80 {
            // Skip the whole run of non-ASCII bytes so one stray character reports once.
            while position < source.count, source[position] >= 0x80 { position &+= 1 }
            diagnostics.append(.error("non-ASCII characters are not allowed outside of literals and comments",
                                      at: SourceRange(start: start, end: location)))
        } else {
            position &+= 1
            let shown = c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16, uppercase: true)
            diagnostics.append(.error("invalid character '\(shown)' in source", at: SourceRange(start: start, end: location)))
        }
        return nil
    }

    /// pp-number: digit or `.digit`, then digits, letters, `_`, `.`, and signs after an exponent letter.
    private mutating func scanNumber(_ source: UnsafeBufferPointer<UInt8>) {
        let isHex = source[position] == UInt8(ascii: "0") && (peek(source, 1) | 0x20) == UInt8(ascii: "x")
        position &+= 1
        while position < source.count {
            let c = source[position]
            if isIdentifierContinue(c) || c == UInt8(ascii: ".") {
                position &+= 1
                let lower = c | 0x20
                if (lower == UInt8(ascii: "e") && !isHex) || (lower == UInt8(ascii: "p") && isHex),
                   peek(source) == UInt8(ascii: "+") || peek(source) == UInt8(ascii: "-") {
                    position &+= 1
                }
            } else {
                return
            }
        }
    }

    /// `"…"` or `'…'` with backslash escapes, on one line.
    private mutating func scanQuoted(_ source: UnsafeBufferPointer<UInt8>, _ quote: UInt8) -> Token.Kind? {
        let start = location
        position &+= 1
        while position < source.count {
            let c = source[position]
            if c == quote {
                position &+= 1
                return quote == UInt8(ascii: "\"") ? .stringLiteral : .characterLiteral
            }
            if c == UInt8(ascii: "\n") { break }
            position &+= c == UInt8(ascii: "\\") && position + 1 < source.count && source[position + 1] != UInt8(ascii: "\n") ? 2 : 1
        }
        let what = quote == UInt8(ascii: "\"") ? "string literal" : "character constant"
        diagnostics.append(.error("missing terminating \(quote == UInt8(ascii: "\"") ? "'\"'" : "\"'\"") character in \(what)",
                                  at: SourceRange(start: start, end: location)))
        return nil
    }

    /// Longest-match punctuator length at `position`, or `nil`.
    @inline(__always)
    private func punctuatorLength(_ source: UnsafeBufferPointer<UInt8>) -> Int? {
        let c = source[position], d = peek(source, 1), e = peek(source, 2)
        switch c {
        case UInt8(ascii: "<"), UInt8(ascii: ">"):
            if d == c { return e == UInt8(ascii: "=") ? 3 : 2 }           // << >> <<= >>=
            return d == UInt8(ascii: "=") ? 2 : 1
        case UInt8(ascii: "."):
            return d == UInt8(ascii: ".") && e == UInt8(ascii: ".") ? 3 : 1
        case UInt8(ascii: "-"):
            if d == UInt8(ascii: ">") || d == UInt8(ascii: "-") || d == UInt8(ascii: "=") { return 2 }
            return 1
        case UInt8(ascii: "+"), UInt8(ascii: "&"), UInt8(ascii: "|"):
            return d == c || d == UInt8(ascii: "=") ? 2 : 1              // ++ += && &= || |=
        case UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "%"), UInt8(ascii: "^"),
             UInt8(ascii: "="), UInt8(ascii: "!"):
            return d == UInt8(ascii: "=") ? 2 : 1
        case UInt8(ascii: ":"):
            return d == UInt8(ascii: ":") ? 2 : 1
        case UInt8(ascii: "#"):
            return d == UInt8(ascii: "#") ? 2 : 1
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ";"), UInt8(ascii: ","),
             UInt8(ascii: "?"), UInt8(ascii: "~"):
            return 1
        default:
            return nil
        }
    }

    @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c &- 48 < 10 }
    /// Space, tab or carriage return: trimmed from `///` lines.
    @inline(__always) private func isBlank(_ c: UInt8) -> Bool {
        c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r")
    }
    @inline(__always) private func isIdentifierStart(_ c: UInt8) -> Bool {
        (c | 0x20) &- 97 < 26 || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
    }
    @inline(__always) private func isIdentifierContinue(_ c: UInt8) -> Bool { isIdentifierStart(c) || isDigit(c) }
}
