/// Recursive-descent parser from preprocessed tokens to a `TranslationUnit`.
///
/// The grammar is split by area into extensions (`Parser+Declarations`, `+Statements`,
/// `+Expressions`, `+Types`); each parse function opens with its production.
///
/// Errors follow clox's panic mode: the first problem in a declaration or statement is
/// reported and the parse function throws `Failure`; the nearest declaration or statement
/// loop catches it and skips to a synchronization point (`;`, the `}` that closes the
/// current block, the next declaration start), so one mistake reports once and later,
/// independent mistakes are still found in the same pass.
public struct Parser {
    /// Thrown after an error has been reported, to unwind to the nearest recovery point.
    struct Failure: Error {}

    var tokens: [Token]
    /// The tokens' long spellings and annexes.
    var table: TokenTable
    var position = 0
    let limits: LanguageLimits
    var diagnostics: [Diagnostic]
    var errorCount: Int
    /// Set after `maxErrors`: every loop ends and nothing more is reported.
    var stopped = false
    /// Current nesting of expressions, statements and blocks.
    var depth = 0
    /// Stack address where parsing started (see `StackGuard`).
    let stackBase = StackGuard.currentAddress()
    /// Names declared as types so far (struct, enum, `using`, `typedef`).
    var declaredTypeNames: Set<String> = []

    init(tokens: [Token], table: TokenTable, limits: LanguageLimits, diagnostics: [Diagnostic]) {
        self.tokens = tokens.isEmpty
            ? [Token(kind: .endOfFile, spelling: .empty, range: SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1)))]
            : tokens
        self.table = table
        self.limits = limits
        self.diagnostics = []
        self.errorCount = 0
        for diagnostic in diagnostics where !stopped {
            record(diagnostic)
        }
    }

    /// Preprocesses `files[mainFile]` (with its includes) and parses it.
    /// Always returns a unit; it holds every declaration that parsed.
    public static func parse(files: [SourceFile], mainFile: Int, limits: LanguageLimits = .default,
                             searchPaths: [String] = []) -> (unit: TranslationUnit, diagnostics: [Diagnostic]) {
        let (tokens, table, problems) = Preprocessor.preprocess(files: files, mainFile: mainFile, limits: limits,
                                                                searchPaths: searchPaths)
        var parser = Parser(tokens: tokens, table: table, limits: limits, diagnostics: problems)
        let unit = parser.parseTranslationUnit()
        return (unit, parser.diagnostics)
    }

    /// Parses an already preprocessed token array (ending in `.endOfFile`) whose long
    /// spellings and annexes are in `table`.
    public static func parse(tokens: [Token], table: TokenTable,
                             limits: LanguageLimits = .default) -> (unit: TranslationUnit, diagnostics: [Diagnostic]) {
        var parser = Parser(tokens: tokens, table: table, limits: limits, diagnostics: [])
        let unit = parser.parseTranslationUnit()
        return (unit, parser.diagnostics)
    }

    // MARK: - Token access

    @inline(__always) var current: Token { tokens[position] }

    /// The spelling of `token`.
    @inline(__always) func text(_ token: Token) -> String { table.text(of: token) }

    @inline(__always) func peek(_ ahead: Int) -> Token {
        tokens[min(position + ahead, tokens.count - 1)]
    }

    var isAtEnd: Bool { tokens[position].kind == .endOfFile }

    /// End of the last consumed token (where clang puts "expected ';'").
    @inline(__always) var previousEnd: SourceLocation {
        position > 0 ? tokens[position - 1].range.end : tokens[0].range.start
    }

    @discardableResult
    mutating func advance() -> Token {
        let token = tokens[position]
        if token.kind != .endOfFile { position += 1 }
        return token
    }

    @inline(__always) func check(_ punctuator: String) -> Bool { tokens[position].isPunctuator(punctuator) }
    @inline(__always) func checkKeyword(_ keyword: String) -> Bool { tokens[position].isIdentifier(keyword) }

    mutating func match(_ punctuator: String) -> Bool {
        guard check(punctuator) else { return false }
        position += 1
        return true
    }

    mutating func matchKeyword(_ keyword: String) -> Bool {
        guard checkKeyword(keyword) else { return false }
        position += 1
        return true
    }

    /// Consumes `punctuator` or reports "expected 'p'" at the current token and throws.
    @discardableResult
    mutating func expect(_ punctuator: String, _ context: String = "", matching open: Token? = nil) throws(Failure) -> Token {
        if check(punctuator) { return advance() }
        throw expectationFailure(punctuator, context, matching: open)
    }

    @inline(never)
    mutating func expectationFailure(_ punctuator: String, _ context: String, matching open: Token?) -> Failure {
        var notes: [Diagnostic.Note] = []
        if let open { notes.append(.init(message: "to match this '\(text(open))'", range: open.range)) }
        return fail("expected '\(punctuator)'\(context.isEmpty ? "" : " " + context)", at: current, notes: notes)
    }

    /// `;` at the end of a declaration or statement. When it is missing, reports clang-style
    /// at the end of the previous token with a fix-it; parsing goes on as if it were there when
    /// the next token starts a new line (the usual forgotten `;`), otherwise it throws.
    mutating func expectSemicolon(after what: String) throws(Failure) {
        if match(";") { return }
        let at = SourceRange(at: previousEnd)
        report("expected ';' after \(what)", at: at, fixIt: .init(range: at, replacement: ";"))
        if current.isAtLineStart || check("}") || isAtEnd || tokens[position].isExpanded && !tokens[position - 1].isExpanded {
            if stopped { throw Failure() }
            return
        }
        throw Failure()
    }

    /// An identifier that is not a reserved word, or an error "expected identifier".
    mutating func expectIdentifier(_ context: String = "") throws(Failure) -> Token {
        if tokens[position].kind == .identifier, !tokens[position].isReservedWord { return advance() }
        throw identifierFailure(context)
    }

    @inline(never)
    mutating func identifierFailure(_ context: String) -> Failure {
        fail("expected identifier\(context.isEmpty ? "" : " " + context)", at: current)
    }

    // MARK: - Diagnostics

    /// Reports an error at `token` (with "expanded from macro" when it came from one).
    @inline(never)
    mutating func report(_ message: String, at token: Token, notes: [Diagnostic.Note] = []) {
        var all = notes
        if let expansion = table.expansion(of: token) {
            all.append(.init(message: "expanded from macro '\(expansion.macro)'", range: expansion.useRange))
        }
        report(message, at: token.range, notes: all)
    }

    @inline(never)
    mutating func report(_ message: String, at range: SourceRange, notes: [Diagnostic.Note] = [],
                         fixIt: Diagnostic.FixIt? = nil) {
        record(.error(message, at: range, notes: notes, fixIt: fixIt))
    }

    /// Appends a diagnostic, stopping after `maxErrors` errors.
    mutating func record(_ diagnostic: Diagnostic) {
        guard !stopped else { return }
        diagnostics.append(diagnostic)
        guard diagnostic.severity == .error else { return }
        errorCount += 1
        if errorCount >= limits.maxErrors {
            diagnostics.append(.error("too many errors emitted, stopping now (limit maxErrors = \(limits.maxErrors))",
                                      at: diagnostic.range))
            stopped = true
        }
    }

    /// Reports and returns the `Failure` to throw.
    @inline(never)
    mutating func fail(_ message: String, at token: Token, notes: [Diagnostic.Note] = []) -> Failure {
        report(message, at: token, notes: notes)
        return Failure()
    }

    /// Enters one level of expression/statement nesting, failing past `maxNestingDepth`
    /// (which also bounds the parser's stack use on hostile input).
    mutating func enterNesting() throws(Failure) {
        depth += 1
        if depth > limits.maxNestingDepth || stackIsLow() {
            depth -= 1
            throw nestingFailure()
        }
    }

    @inline(never)
    mutating func nestingFailure() -> Failure {
        fail("nesting too deep (limit maxNestingDepth = \(limits.maxNestingDepth))", at: current)
    }

    /// Whether parsing has used up `StackGuard.budget` bytes of stack.
    func stackIsLow() -> Bool {
        let here = StackGuard.currentAddress()
        return stackBase > here && stackBase - here > StackGuard.budget
    }

    mutating func leaveNesting() { depth -= 1 }

    /// A range from `start` to the end of the last consumed token. (Inlined: every syntax
    /// node asks, and as a call it was 0.6 % of a compile.)
    @inline(__always) func range(from start: SourceLocation) -> SourceRange {
        SourceRange(start: start, end: max(start, previousEnd))
    }

    // MARK: - Recovery

    /// Skips to the end of the current statement: past a `;` at this level, past a `{…}`
    /// block that ends it, or up to (not past) the `}` closing the enclosing block.
    mutating func synchronizeStatement() {
        var braces = 0, parentheses = 0
        while !isAtEnd {
            let token = current
            if token.kind == .punctuator {
                switch text(token) {
                case ";" where braces == 0 && parentheses == 0:
                    advance()
                    return
                case "(": parentheses += 1
                case ")": parentheses = max(0, parentheses - 1)
                case "{": braces += 1
                case "}":
                    if braces == 0 { return }
                    braces -= 1
                    if braces == 0 {
                        advance()
                        _ = match(";")
                        return
                    }
                default: break
                }
            }
            advance()
        }
    }

    /// Skips to the next program-scope declaration: past a `;` or a `{…}` group at the top,
    /// or to a line that starts like a declaration.
    mutating func synchronizeDeclaration(startedAt start: Int) {
        if position == start { advance() }
        var braces = 0
        while !isAtEnd {
            let token = current
            if braces == 0, token.isAtLineStart, position > start, startsDeclaration(token) { return }
            if token.kind == .punctuator {
                switch text(token) {
                case ";" where braces == 0:
                    advance()
                    return
                case "{": braces += 1
                case "}":
                    braces -= 1
                    if braces <= 0 {
                        advance()
                        _ = match(";")
                        return
                    }
                default: break
                }
            }
            advance()
        }
    }

    /// Tokens that begin a program-scope declaration on a fresh line.
    func startsDeclaration(_ token: Token) -> Bool {
        if token.isPunctuator("[") { return true }
        guard token.kind == .identifier else { return false }
        switch text(token) {
        case "struct", "enum", "using", "typedef", "template", "constant", "constexpr", "static", "inline",
             "vertex", "fragment", "kernel", "namespace", "METAL_FUNC":
            return true
        default:
            return isTypeName(token)
        }
    }

    // MARK: - Words

    /// Words that cannot name a variable, function or field (`WordTable` keeps them for
    /// lookups).
    static let reservedWords: [StaticString] = [
        "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return",
        "struct", "class", "enum", "union", "using", "namespace", "typedef", "template", "typename",
        "const", "constexpr", "static", "inline", "extern", "volatile", "constant", "device", "thread",
        "threadgroup", "true", "false", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
        "sizeof", "operator", "goto", "public", "private", "protected", "virtual", "this", "new", "delete",
        "void", "unsigned", "signed", "alignof",
    ]
}

/// How much stack the parser may use, for its recursion guard.
enum StackGuard {
    /// Stack the parser may use below its entry point. The nesting limit alone cannot
    /// promise to stay inside a thread's stack: debug builds use several times bigger
    /// frames than release builds (about 12 KiB against 3 KiB per parenthesis level).
    /// Linux threads get 8 MiB by default; a caller on a smaller stack should parse on a
    /// thread of its own.
    static let budget: UInt = 1024 * 1024

    /// An address in the current stack frame.
    @inline(__always)
    static func currentAddress() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }
}
