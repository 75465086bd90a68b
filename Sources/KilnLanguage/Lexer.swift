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

    private func peek(_ ahead: Int = 0) -> UInt8 {
        let index = position + ahead
        return index < bytes.count ? bytes[index] : 0
    }

    private mutating func newline() {
        position += 1
        line += 1
        lineStart = position
        atLineStart = true
        leadingSpace = true
    }

    private mutating func run() -> [Token] {
        // Spellings are made from a buffer, not from `bytes[a..<b]`: each slice retained and
        // released the array, twice per identifier (its text and its word flags).
        let source = bytes
        return source.withUnsafeBufferPointer { source in
            // The array lives inside the closure rather than being captured from outside it:
            // 0.4 % fewer instructions a compile (docs/benchmarks.md, "thirty-eighth session").
            var tokens: [Token] = []
            tokens.reserveCapacity(bytes.count / 3 + 1)
            // Read once: each access of the lazily made global is a `swift_once` call.
            let words = WordTable.shared
            while true {
                skipTrivia()
                let start = location
                guard position < bytes.count else {
                    tokens.append(Token(kind: .endOfFile, spelling: .empty, range: SourceRange(at: start), isAtLineStart: true))
                    return tokens
                }
                if tokens.count >= maxTokens {
                    diagnostics.append(.error("too many tokens (limit maxTokens = \(maxTokens))", at: SourceRange(at: start)))
                    tokens.append(Token(kind: .endOfFile, spelling: .empty, range: SourceRange(at: start), isAtLineStart: true))
                    return tokens
                }
                guard var kind = scanToken() else { continue }
                let end = location
                let spelling = UnsafeBufferPointer(rebasing: source[start.offset..<end.offset])
                // Identifiers, numbers and punctuators are ASCII (anything else was reported
                // and skipped); only quoted literals may hold other bytes.
                let text = kind == .punctuator && spelling.count == 1
                    ? Lexer.spelling(ofPunctuator: spelling[0])
                    : spelling.count <= 15 && (kind == .identifier || kind == .integerLiteral || kind == .punctuator)
                        ? smallASCIIString(spelling)
                        : String(decoding: spelling, as: UTF8.self)
                let range = SourceRange(start: start, end: end)
                var wordFlags: UInt8 = 0
                if kind == .identifier {
                    wordFlags = words.flags(of: spelling)
                } else if kind == .integerLiteral || kind == .floatLiteral {
                    switch NumericLiteral.parse(text) {
                    case .invalid(let message): diagnostics.append(.error(message, at: range))
                    case .integer: kind = .integerLiteral
                    case .float: kind = .floatLiteral
                    }
                }
                var token = Token(kind: kind, spelling: table.spelling(text), range: range, isAtLineStart: atLineStart,
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
    private mutating func skipTrivia() {
        while position < bytes.count {
            let c = bytes[position]
            switch c {
            case UInt8(ascii: "\n"):
                newline()
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                position += 1
                leadingSpace = true
            case UInt8(ascii: "\\") where peek(1) == UInt8(ascii: "\n") || (peek(1) == UInt8(ascii: "\r") && peek(2) == UInt8(ascii: "\n")):
                // Line splice: the logical line continues.
                position += peek(1) == UInt8(ascii: "\r") ? 2 : 1
                let keep = atLineStart
                newline()
                atLineStart = keep
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                let isDoc = peek(2) == UInt8(ascii: "/") && peek(3) != UInt8(ascii: "/")
                let textStart = position + (isDoc ? 3 : 2)
                while position < bytes.count, bytes[position] != UInt8(ascii: "\n") { position += 1 }
                if isDoc {
                    // Trimmed as bytes, before the one `String` is made.
                    var from = textStart, to = position
                    while from < to, isBlank(bytes[from]) { from += 1 }
                    while to > from, isBlank(bytes[to - 1]) { to -= 1 }
                    pendingDocumentation.append(String(decoding: bytes[from..<to], as: UTF8.self))
                }
                leadingSpace = true
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                let start = location
                position += 2
                var closed = false
                while position < bytes.count {
                    if bytes[position] == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                        position += 2
                        closed = true
                        break
                    }
                    if bytes[position] == UInt8(ascii: "\n") {
                        newline()
                    } else {
                        position += 1
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

    /// Scans one token starting at `position`; `nil` when the bytes were skipped after an error.
    private mutating func scanToken() -> Token.Kind? {
        let c = bytes[position]
        if isIdentifierStart(c) {
            position += 1
            while position < bytes.count, isIdentifierContinue(bytes[position]) { position += 1 }
            return .identifier
        }
        if isDigit(c) || (c == UInt8(ascii: ".") && isDigit(peek(1))) {
            scanNumber()
            return .integerLiteral
        }
        if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
            return scanQuoted(c)
        }
        if let length = punctuatorLength() {
            position += length
            return .punctuator
        }
        let start = location
        if c >= 0x80 {
            // Skip the whole run of non-ASCII bytes so one stray character reports once.
            while position < bytes.count, bytes[position] >= 0x80 { position += 1 }
            diagnostics.append(.error("non-ASCII characters are not allowed outside of literals and comments",
                                      at: SourceRange(start: start, end: location)))
        } else {
            position += 1
            let shown = c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16, uppercase: true)
            diagnostics.append(.error("invalid character '\(shown)' in source", at: SourceRange(start: start, end: location)))
        }
        return nil
    }

    /// pp-number: digit or `.digit`, then digits, letters, `_`, `.`, and signs after an exponent letter.
    private mutating func scanNumber() {
        let isHex = bytes[position] == UInt8(ascii: "0") && (peek(1) | 0x20) == UInt8(ascii: "x")
        position += 1
        while position < bytes.count {
            let c = bytes[position]
            if isIdentifierContinue(c) || c == UInt8(ascii: ".") {
                position += 1
                let lower = c | 0x20
                if (lower == UInt8(ascii: "e") && !isHex) || (lower == UInt8(ascii: "p") && isHex),
                   peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
                    position += 1
                }
            } else {
                return
            }
        }
    }

    /// `"…"` or `'…'` with backslash escapes, on one line.
    private mutating func scanQuoted(_ quote: UInt8) -> Token.Kind? {
        let start = location
        position += 1
        while position < bytes.count {
            let c = bytes[position]
            if c == quote {
                position += 1
                return quote == UInt8(ascii: "\"") ? .stringLiteral : .characterLiteral
            }
            if c == UInt8(ascii: "\n") { break }
            position += c == UInt8(ascii: "\\") && position + 1 < bytes.count && bytes[position + 1] != UInt8(ascii: "\n") ? 2 : 1
        }
        let what = quote == UInt8(ascii: "\"") ? "string literal" : "character constant"
        diagnostics.append(.error("missing terminating \(quote == UInt8(ascii: "\"") ? "'\"'" : "\"'\"") character in \(what)",
                                  at: SourceRange(start: start, end: location)))
        return nil
    }

    /// Longest-match punctuator length at `position`, or `nil`.
    private func punctuatorLength() -> Int? {
        let c = bytes[position], d = peek(1), e = peek(2)
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

    /// The spelling of a one-character punctuator, as a literal: a `String` made from the
    /// bytes cost ~135 instructions, and half of all tokens are one of these.
    private static func spelling(ofPunctuator c: UInt8) -> String {
        switch c {
        case UInt8(ascii: "("): return "("
        case UInt8(ascii: ")"): return ")"
        case UInt8(ascii: "["): return "["
        case UInt8(ascii: "]"): return "]"
        case UInt8(ascii: "{"): return "{"
        case UInt8(ascii: "}"): return "}"
        case UInt8(ascii: ";"): return ";"
        case UInt8(ascii: ","): return ","
        case UInt8(ascii: "."): return "."
        case UInt8(ascii: "="): return "="
        case UInt8(ascii: "+"): return "+"
        case UInt8(ascii: "-"): return "-"
        case UInt8(ascii: "*"): return "*"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "<"): return "<"
        case UInt8(ascii: ">"): return ">"
        case UInt8(ascii: ":"): return ":"
        case UInt8(ascii: "?"): return "?"
        case UInt8(ascii: "!"): return "!"
        case UInt8(ascii: "&"): return "&"
        case UInt8(ascii: "|"): return "|"
        case UInt8(ascii: "^"): return "^"
        case UInt8(ascii: "%"): return "%"
        case UInt8(ascii: "~"): return "~"
        case UInt8(ascii: "#"): return "#"
        default: return String(decoding: CollectionOfOne(c), as: UTF8.self)
        }
    }

    @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    /// Space, tab or carriage return: trimmed from `///` lines.
    @inline(__always) private func isBlank(_ c: UInt8) -> Bool {
        c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r")
    }
    @inline(__always) private func isIdentifierStart(_ c: UInt8) -> Bool {
        (c | 0x20 >= 97 && c | 0x20 <= 122) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
    }
    @inline(__always) private func isIdentifierContinue(_ c: UInt8) -> Bool { isIdentifierStart(c) || isDigit(c) }
}
