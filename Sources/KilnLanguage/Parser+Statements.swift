/// Statements and blocks.
extension Parser {
    /// block := '{' { statement } '}'
    mutating func parseBlock() throws(Failure) -> BlockStatement {
        let open = try expect("{")
        try enterNesting()
        defer { leaveNesting() }
        // Room for a typical block (a statement is one reference) rather than doubling from one.
        var statements: [Statement] = []
        statements.reserveCapacity(8)
        while !check("}"), !isAtEnd, !stopped {
            if let statement = parseStatementRecovering() { statements.append(statement) }
        }
        if stopped { throw Failure() }
        try expect("}", "at end of block", matching: open)
        return BlockStatement(statements: statements, range: range(from: open.range.start))
    }

    /// A statement, or `nil` after an error was reported and skipped (the recovery point
    /// for everything inside it).
    mutating func parseStatementRecovering() -> Statement? {
        let start = position
        do {
            return try parseStatement()
        } catch {
            if position == start, !check("}") { advance() }
            synchronizeStatement()
            return nil
        }
    }

    /// statement := block | if-statement | for-statement | while-statement | do-statement
    ///            | switch-statement | 'break' ';' | 'continue' ';' | 'return' [ expression ] ';'
    ///            | ';' | declaration | expression ';'
    mutating func parseStatement() throws(Failure) -> Statement {
        try enterNesting()
        defer { leaveNesting() }
        let token = current
        if token.isPunctuator("{") { return .block(try parseBlock()) }
        if token.isPunctuator(";") {
            advance()
            return .empty(token.range)
        }
        if token.kind == .identifier, token.isReservedWord {
            switch Spelling(text(token)) {
            case "if": return try parseIf()
            case "for": return try parseFor()
            case "while":
                // while-statement := 'while' '(' expression ')' statement
                advance()
                let open = try expect("(", "after 'while'")
                let condition = try parseExpression()
                try expect(")", "", matching: open)
                let body = try parseStatement()
                return .whileStatement(condition: condition, body: body, range: range(from: token.range.start))
            case "do":
                // do-statement := 'do' statement 'while' '(' expression ')' ';'
                advance()
                let body = try parseStatement()
                guard matchKeyword("while") else { throw fail("expected 'while' in do/while loop", at: current) }
                let open = try expect("(", "after 'while'")
                let condition = try parseExpression()
                try expect(")", "", matching: open)
                try expectSemicolon(after: "do/while statement")
                return .doWhileStatement(body: body, condition: condition, range: range(from: token.range.start))
            case "switch": return try parseSwitch()
            case "break", "continue":
                advance()
                try expectSemicolon(after: "'\(text(token))' statement")
                return text(token) == "break" ? .breakStatement(range(from: token.range.start))
                    : .continueStatement(range(from: token.range.start))
            case "return":
                advance()
                var value: Expression?
                if !check(";") { value = try parseExpression() }
                try expectSemicolon(after: "return statement")
                return .returnStatement(value, range(from: token.range.start))
            case "case", "default":
                throw fail("'\(text(token))' statement not in switch statement", at: token)
            case "else":
                throw fail("expected expression", at: token)
            case "goto":
                throw fail("not supported: 'goto'", at: token)
            case "using", "typedef", "struct", "enum", "class", "union", "namespace":
                throw fail("not supported: type declarations inside functions", at: token)
            case "template":
                throw fail("not supported: templates", at: token)
            default:
                break
            }
        }
        if looksLikeDeclaration() {
            var declaration = try parseVariableDeclaration()
            try expectSemicolon(after: "declaration")
            declaration.range = range(from: declaration.range.start)
            return .declaration(declaration)
        }
        let expression = try parseExpression()
        try expectSemicolon(after: "expression")
        return .expression(expression)
    }

    /// if-statement := 'if' '(' expression ')' statement [ 'else' statement ]
    mutating func parseIf() throws(Failure) -> Statement {
        let keyword = advance()
        let open = try expect("(", "after 'if'")
        let condition = try parseExpression()
        try expect(")", "", matching: open)
        let then = try parseStatement()
        var otherwise: Statement?
        if matchKeyword("else") { otherwise = try parseStatement() }
        return .ifStatement(condition: condition, then: then, otherwise: otherwise, range: range(from: keyword.range.start))
    }

    /// for-statement := 'for' '(' ( declaration ';' | [ expression ] ';' ) [ expression ] ';' [ expression ] ')' statement
    mutating func parseFor() throws(Failure) -> Statement {
        let keyword = advance()
        let open = try expect("(", "after 'for'")
        var initializer: Statement?
        if !check(";") {
            if looksLikeDeclaration() {
                initializer = .declaration(try parseVariableDeclaration())
            } else {
                initializer = .expression(try parseExpression())
            }
        }
        try expect(";", "in 'for' statement specifier")
        var condition: Expression?
        if !check(";") { condition = try parseExpression() }
        try expect(";", "in 'for' statement specifier")
        var step: Expression?
        if !check(")") { step = try parseExpression() }
        try expect(")", "", matching: open)
        let body = try parseStatement()
        return .forStatement(initializer: initializer, condition: condition, step: step, body: body,
                             range: range(from: keyword.range.start))
    }

    /// switch-statement := 'switch' '(' expression ')' '{' { case-group } '}'
    /// case-group := ( 'case' conditional-expression ':' | 'default' ':' ) { … } { statement }
    mutating func parseSwitch() throws(Failure) -> Statement {
        let keyword = advance()
        let open = try expect("(", "after 'switch'")
        let subject = try parseExpression()
        try expect(")", "", matching: open)
        let brace = try expect("{", "after switch condition")
        var cases: [SwitchCase] = []
        while !check("}"), !isAtEnd, !stopped {
            let groupStart = current.range.start
            var labels: [Expression?] = []
            while checkKeyword("case") || checkKeyword("default") {
                let label = advance()
                if text(label) == "case" {
                    do {
                        labels.append(try parseExpression(.conditional))
                        try expect(":", "after 'case'")
                    } catch {
                        synchronizeLabel()
                    }
                } else {
                    labels.append(nil)
                    if !match(":") {
                        report("expected ':' after 'default'", at: current)
                    }
                }
            }
            if labels.isEmpty {
                report("expected 'case' or 'default' in switch statement", at: current)
                synchronizeStatement()
                continue
            }
            var statements: [Statement] = []
            while !checkKeyword("case"), !checkKeyword("default"), !check("}"), !isAtEnd, !stopped {
                if let statement = parseStatementRecovering() { statements.append(statement) }
            }
            cases.append(SwitchCase(labels: labels, statements: statements, range: range(from: groupStart)))
        }
        if stopped { throw Failure() }
        try expect("}", "at end of switch", matching: brace)
        return .switchStatement(subject: subject, cases: cases, range: range(from: keyword.range.start))
    }

    /// Skips a broken `case` label up to its `:`.
    mutating func synchronizeLabel() {
        while !isAtEnd, !check("}"), !checkKeyword("case"), !checkKeyword("default") {
            if advance().isPunctuator(":") { return }
        }
    }

    /// Whether the statement at the current token is a declaration: it starts with a
    /// declaration specifier, or with a type followed by a name (`float2 p`, `Foo x`).
    func looksLikeDeclaration() -> Bool {
        let token = current
        guard token.kind == .identifier else { return false }
        switch Spelling(token.isReservedWord ? text(token) : "") {
        case "const", "constexpr", "static", "constant", "device", "thread", "threadgroup", "volatile", "unsigned",
             "signed", "auto":
            return true
        default:
            break
        }
        if let end = typeEnd(at: position) {
            return tokens[min(end, tokens.count - 1)].kind == .identifier
        }
        // An unknown name followed by a name can only be a declaration with a misspelled or
        // undeclared type; the checker reports the type.
        return peek(1).kind == .identifier && !peek(1).isReservedWord
    }
}
