/// Expressions: precedence climbing over one operator table (C precedence), then unary,
/// postfix and primary expressions.
extension Parser {
    /// Binding strength of infix operators, weakest first.
    enum Precedence: Int, Comparable {
        case comma = 1, assignment, conditional, logicalOr, logicalAnd, bitwiseOr, bitwiseXor, bitwiseAnd,
             equality, relational, shift, additive, multiplicative,
             /// Above every infix operator: the right operand of `*` binds no infix operator,
             /// which is what makes `a / b * c` mean `(a / b) * c`.
             prefix

        static func < (lhs: Precedence, rhs: Precedence) -> Bool { lhs.rawValue < rhs.rawValue }
        var next: Precedence { Precedence(rawValue: rawValue + 1) ?? .prefix }
    }

    /// What an infix operator builds.
    enum InfixOperator {
        case binary(BinaryOperator)
        case assignment(AssignmentOperator)
        case conditional
    }

    /// The one operator table: spelling → (precedence, meaning). Assignment and `?:` are
    /// right-associative; everything else is left-associative.
    static let infixOperators: [String: (Precedence, InfixOperator)] = {
        var table: [String: (Precedence, InfixOperator)] = [
            ",": (.comma, .binary(.comma)),
            "=": (.assignment, .assignment(AssignmentOperator(compound: nil))),
            "?": (.conditional, .conditional),
            "||": (.logicalOr, .binary(.logicalOr)),
            "&&": (.logicalAnd, .binary(.logicalAnd)),
            "|": (.bitwiseOr, .binary(.bitwiseOr)),
            "^": (.bitwiseXor, .binary(.bitwiseXor)),
            "&": (.bitwiseAnd, .binary(.bitwiseAnd)),
            "==": (.equality, .binary(.equal)), "!=": (.equality, .binary(.notEqual)),
            "<": (.relational, .binary(.less)), "<=": (.relational, .binary(.lessEqual)),
            ">": (.relational, .binary(.greater)), ">=": (.relational, .binary(.greaterEqual)),
            "<<": (.shift, .binary(.shiftLeft)), ">>": (.shift, .binary(.shiftRight)),
            "+": (.additive, .binary(.add)), "-": (.additive, .binary(.subtract)),
            "*": (.multiplicative, .binary(.multiply)), "/": (.multiplicative, .binary(.divide)),
            "%": (.multiplicative, .binary(.remainder)),
        ]
        let compound: [BinaryOperator] = [.add, .subtract, .multiply, .divide, .remainder, .bitwiseAnd, .bitwiseOr,
                                          .bitwiseXor, .shiftLeft, .shiftRight]
        for op in compound {
            table[op.rawValue + "="] = (.assignment, .assignment(AssignmentOperator(compound: op)))
        }
        return table
    }()

    /// The entry of `infixOperators` for a punctuator's spelling, without hashing it.
    ///
    /// Why: `parseExpression` asks after every operand, and there most punctuators are not
    /// operators (`)`, `;`, `]`); a `[String: …]` lookup hashed the spelling every time,
    /// ~360 instructions, over 1 % of compiling a small shader. Spellings are at most three
    /// ASCII bytes, so they pack into an integer, and the table is split by first byte (at
    /// most four entries share one: `<`, `<=`, `<<`, `<<=`).
    static func infixOperator(spelledBy text: String) -> (Precedence, InfixOperator)? {
        var key: UInt32 = 0, count = 0
        for byte in text.utf8 {
            key = key << 8 | UInt32(byte)
            count += 1
            if count > 3 { return nil }
        }
        guard count > 0 else { return nil }
        let first = Int(key >> (8 * UInt32(count - 1)))
        guard first < infixOperatorsByFirstByte.count else { return nil }
        for entry in infixOperatorsByFirstByte[first] where entry.key == key { return entry.value }
        return nil
    }

    /// `infixOperators` by the first byte of the spelling, each entry keyed by its bytes
    /// packed as `infixOperator(spelledBy:)` packs them.
    private static let infixOperatorsByFirstByte: [[(key: UInt32, value: (Precedence, InfixOperator))]] = {
        var table = Array(repeating: [(key: UInt32, value: (Precedence, InfixOperator))](), count: 128)
        for (spelling, value) in infixOperators {
            let bytes = Array(spelling.utf8)
            precondition(bytes.count <= 3 && bytes[0] < 128, "operator spellings are 1–3 ASCII bytes")
            table[Int(bytes[0])].append((bytes.reduce(0) { $0 << 8 | UInt32($1) }, value))
        }
        return table
    }()

    /// expression := operand { infix-operator operand }, climbing `infixOperators` from `minimum`:
    ///   binary: left-assoc; assignment := unary assignment-operator assignment-expression;
    ///   conditional := logical-or-expression '?' expression ':' assignment-expression
    mutating func parseExpression(_ minimum: Precedence = .comma) throws(Failure) -> Expression {
        try enterNesting()
        defer { leaveNesting() }
        var left = try parseUnary()
        while tokens[position].kind == .punctuator,
              let (precedence, meaning) = Parser.infixOperator(spelledBy: text(tokens[position])),
              precedence >= minimum {
            left = try parseInfixOperation(left, precedence, meaning)
            try checkChainHeight(left)
        }
        return left
    }

    /// Holds `combined`, a node just built by a loop, to `maxNestingDepth` levels: the loop
    /// adds a level per operator without recursing, so its recursion depth does not bound
    /// the tree (see `Expression.height`).
    @inline(never)
    mutating func checkChainHeight(_ combined: Expression) throws(Failure) {
        if combined.height > limits.maxNestingDepth {
            throw fail("expression nested too deeply: each operator of a chain like 'a + b + c' or 'a.b.c' counts as "
                       + "one level (limit maxNestingDepth = \(limits.maxNestingDepth))", at: tokens[max(0, position - 1)])
        }
    }

    /// The operator at the current token and its right operand(s), combined with `left`.
    @inline(never)
    mutating func parseInfixOperation(_ left: Expression, _ precedence: Precedence,
                                      _ meaning: InfixOperator) throws(Failure) -> Expression {
        let operatorToken = advance()
        switch meaning {
        case .binary(let op):
            let right = try parseExpression(precedence.next)
            return Expression(.binary(op, left, right), range: left.range.union(right.range))
        case .assignment(let op):
            let right = try parseExpression(.assignment)
            return Expression(.assignment(op, left, right), range: left.range.union(right.range))
        case .conditional:
            let whenTrue = try parseExpression(.comma)
            try expect(":", "in conditional expression", matching: operatorToken)
            let whenFalse = try parseExpression(.assignment)
            return Expression(.conditional(left, whenTrue, whenFalse), range: left.range.union(whenFalse.range))
        }
    }

    /// unary := ( '+' | '-' | '!' | '~' | '++' | '--' ) unary | '(' type ')' unary | postfix
    ///
    /// This and the functions it reaches recursively keep small frames (cold paths live in
    /// `@inline(never)` helpers): nesting depth costs stack per level.
    mutating func parseUnary() throws(Failure) -> Expression {
        if tokens[position].kind == .punctuator {
            if let op = Parser.prefixOperator(text(tokens[position])) {
                return try parsePrefixOperation(op)
            }
            if text(tokens[position]) == "(", let end = typeEnd(at: position + 1), end < tokens.count,
               tokens[end].isPunctuator(")") {
                return try parseCast()
            }
        }
        return try parsePostfix()
    }

    static func prefixOperator(_ spelling: String) -> UnaryOperator? {
        switch Spelling(spelling) {
        case "+": return .plus
        case "-": return .minus
        case "!": return .logicalNot
        case "~": return .bitwiseNot
        case "++": return .preIncrement
        case "--": return .preDecrement
        case "&": return .addressOf
        case "*": return .dereference
        default: return nil
        }
    }

    @inline(never)
    mutating func parsePrefixOperation(_ op: UnaryOperator) throws(Failure) -> Expression {
        let start = advance().range
        try enterNesting()
        defer { leaveNesting() }
        let operand = try parseUnary()
        return Expression(.unary(op, operand), range: start.union(operand.range))
    }

    /// cast := '(' type ')' unary
    @inline(never)
    mutating func parseCast() throws(Failure) -> Expression {
        let open = advance()
        let type = try parseType()
        try expect(")", "after cast type", matching: open)
        try enterNesting()
        defer { leaveNesting() }
        let operand = try parseUnary()
        return Expression(.cast(type, operand), range: open.range.union(operand.range))
    }

    /// postfix := primary { '(' [ arguments ] ')' | '[' expression ']' | ( '.' | '->' ) identifier | '++' | '--' }
    mutating func parsePostfix() throws(Failure) -> Expression {
        var expression = try parsePrimary()
        while tokens[position].kind == .punctuator {
            switch Spelling(text(tokens[position])) {
            case "(", "[", ".", "->", "++", "--":
                expression = try parsePostfixOperation(expression)
                try checkChainHeight(expression)
            default:
                return expression
            }
        }
        return expression
    }

    @inline(never)
    mutating func parsePostfixOperation(_ base: Expression) throws(Failure) -> Expression {
        let token = advance()
        switch Spelling(text(token)) {
        case "(":
            let arguments = try parseArguments(open: token)
            return Expression(.call(callee: base, arguments: arguments), range: range(from: base.range.start))
        case "[":
            let index = try parseExpression()
            try expect("]", "", matching: token)
            return Expression(.index(base, index), range: range(from: base.range.start))
        case ".", "->":
            let name = try expectIdentifier("after '\(text(token))'")
            return Expression(.member(base, name: text(name), nameRange: name.range, arrow: text(token) == "->"),
                              range: range(from: base.range.start))
        default:
            return Expression(.postfix(text(token) == "++" ? .increment : .decrement, base),
                              range: range(from: base.range.start))
        }
    }

    /// arguments := [ assignment-expression { ',' assignment-expression } ] ')'   (after the '(')
    mutating func parseArguments(open: Token) throws(Failure) -> [Expression] {
        var arguments: [Expression] = []
        if match(")") { return arguments }
        // Room for a typical call up front: grown from one element, the array was
        // reallocated at the second and third argument (docs/benchmarks.md).
        arguments.reserveCapacity(4)
        repeat {
            arguments.append(try parseExpression(.assignment))
        } while match(",")
        try expect(")", "", matching: open)
        return arguments
    }

    /// primary := integer-literal | floating-literal | 'true' | 'false' | name-path
    ///          | '(' expression ')' | '{' [ expression { ',' expression } [ ',' ] ] '}'
    ///          | ( 'static_cast' | 'reinterpret_cast' ) '<' type '>' '(' expression ')'
    ///          | generic-type '<' arguments '>' '(' [ arguments ] ')'
    /// name-path := [ '::' ] identifier { '::' identifier }
    mutating func parsePrimary() throws(Failure) -> Expression {
        switch tokens[position].kind {
        case .integerLiteral, .floatLiteral:
            return parseNumber()
        case .identifier:
            return try parseNamePrimary()
        case .punctuator:
            switch text(tokens[position]) {
            case "(": return try parseParenthesized()
            case "{": return try parseInitializerListExpression()
            case "::" where peek(1).kind == .identifier:
                advance()
                return try parseNamePrimary()
            default: break
            }
        default:
            break
        }
        throw primaryFailure()
    }

    @inline(never)
    mutating func primaryFailure() -> Failure {
        let token = current
        switch token.kind {
        case .stringLiteral: return fail("not supported: string literals", at: token)
        case .characterLiteral: return fail("not supported: character literals", at: token)
        default: return fail("expected expression", at: token)
        }
    }

    @inline(never)
    mutating func parseNumber() -> Expression {
        let token = advance()
        switch NumericLiteral.parse(text(token)) {
        case .integer(let value, let suffix): return Expression(.integerLiteral(value, suffix: suffix), range: token.range)
        case .float(let value, let suffix): return Expression(.floatLiteral(value, suffix: suffix), range: token.range)
        case .invalid: return Expression(.integerLiteral(0, suffix: ""), range: token.range)   // reported by the lexer
        }
    }

    /// '(' expression ')'
    @inline(never)
    mutating func parseParenthesized() throws(Failure) -> Expression {
        let open = advance()
        let inner = try parseExpression()
        try expect(")", "", matching: open)
        return Expression(inner.kind, range: range(from: open.range.start))
    }

    /// '{' [ assignment-expression { ',' assignment-expression } [ ',' ] ] '}'
    @inline(never)
    mutating func parseInitializerListExpression() throws(Failure) -> Expression {
        let open = advance()
        var elements: [Expression] = []
        while !check("}") {
            elements.append(try parseExpression(.assignment))
            if !match(",") { break }
        }
        try expect("}", "", matching: open)
        return Expression(.initializerList(elements), range: range(from: open.range.start))
    }

    /// Names, keyword literals, C++ casts and constructors of spelled generic types.
    @inline(never)
    mutating func parseNamePrimary() throws(Failure) -> Expression {
        let token = current
        // Only reserved words can be one of these: any other name skips the eight string
        // comparisons (every identifier in an expression comes through here).
        if token.isReservedWord {
            switch text(token) {
            case "true", "false":
                advance()
                return Expression(.booleanLiteral(text(token) == "true"), range: token.range)
            case "static_cast", "reinterpret_cast", "const_cast":
                advance()
                let open = try expect("<", "after '\(text(token))'")
                let type = try parseType()
                try expectClosingAngle(open)
                let parenthesis = try expect("(")
                let operand = try parseExpression()
                try expect(")", "", matching: parenthesis)
                return Expression(.cast(type, operand), range: range(from: token.range.start))
            case "template":
                throw fail("not supported: templates", at: token)
            case "sizeof", "alignof":
                throw fail("not supported: '\(text(token))'", at: token)
            default:
                break
            }
        }
        if (token.isBuiltinTypeName && Parser.isGenericTypeName(text(token))) || (sameSpelling(text(token), "metal") && peek(1).isPunctuator("::")
                                                             && Parser.isGenericTypeName(text(peek(2)))) {
            // `array<float, 3>(…)`: a constructor of a spelled generic type.
            if let end = typeEnd(at: position), end > position + 1, tokens[min(end, tokens.count - 1)].isPunctuator("(") {
                let type = try parseType()
                let open = try expect("(")
                let arguments = try parseArguments(open: open)
                return Expression(.construct(type, arguments), range: range(from: token.range.start))
            }
        }
        if token.isReservedWord, !isTypeName(token) {
            throw fail("expected expression", at: token)
        }
        advance()
        var path = NamePath(text(token))
        while check("::") {
            advance()
            path.append(try text(expectIdentifier("after '::'")))
        }
        return Expression(.identifier(path), range: range(from: token.range.start))
    }
}
