/// `#if` / `#elif` integer constant expressions.
extension Preprocessor {
    /// Evaluates the condition of `#if`/`#elif`: `defined` is resolved first, then macros
    /// are expanded, then remaining identifiers count as 0 (as in C).
    mutating func evaluateCondition(_ tokens: [Token], directive: Token) -> Bool {
        var resolved: [Token] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            guard token.isIdentifier("defined") else {
                resolved.append(token)
                index += 1
                continue
            }
            // defined-expression := 'defined' identifier | 'defined' '(' identifier ')'
            var nameIndex = index + 1
            let parenthesized = nameIndex < tokens.count && tokens[nameIndex].isPunctuator("(")
            if parenthesized { nameIndex += 1 }
            guard nameIndex < tokens.count, tokens[nameIndex].kind == .identifier,
                  !parenthesized || (nameIndex + 1 < tokens.count && tokens[nameIndex + 1].isPunctuator(")")) else {
                diagnostics.append(.error("macro name missing after 'defined'", at: token.range))
                return false
            }
            var value = token
            value.kind = .integerLiteral
            table.setText(macros[text(tokens[nameIndex])] != nil ? "1" : "0", of: &value)
            resolved.append(value)
            index = nameIndex + (parenthesized ? 2 : 1)
        }
        let expanded = expandFully(resolved)
        if stopped { return false }   // a limit stopped expansion and was reported
        guard !expanded.isEmpty else {
            diagnostics.append(.error("#\(text(directive)) with no expression", at: directive.range))
            return false
        }
        var evaluator = ConditionEvaluator(tokens: expanded, table: table, maxDepth: limits.maxNestingDepth)
        do throws(ConditionEvaluator.Failure) {
            let value = try evaluator.expression(0)
            if evaluator.index < expanded.count {
                throw ConditionEvaluator.Failure(message: "token is not a valid binary operator in a preprocessor subexpression",
                                                 range: expanded[evaluator.index].range)
            }
            return value != 0
        } catch {
            diagnostics.append(.error(error.message, at: error.range))
            return false
        }
    }
}

/// Precedence climbing over `Int64` for preprocessor conditions (wrapping arithmetic).
struct ConditionEvaluator {
    struct Failure: Error {
        var message: String
        var range: SourceRange
    }

    let tokens: [Token]
    /// The tokens' spellings.
    let table: TokenTable
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(tokens: [Token], table: TokenTable, maxDepth: Int) {
        self.tokens = tokens
        self.table = table
        self.maxDepth = maxDepth
    }

    /// Binding power of binary operators (C precedence); `?:` is handled at level 1.
    static func precedence(_ spelling: String) -> Int? {
        switch spelling {
        case "||": return 2
        case "&&": return 3
        case "|": return 4
        case "^": return 5
        case "&": return 6
        case "==", "!=": return 7
        case "<", ">", "<=", ">=": return 8
        case "<<", ">>": return 9
        case "+", "-": return 10
        case "*", "/", "%": return 11
        default: return nil
        }
    }

    @inline(__always) private func text(_ token: Token) -> String { table.text(of: token) }
    private var endRange: SourceRange { tokens.last.map { SourceRange(at: $0.range.end) } ?? SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1)) }

    /// conditional := binary [ '?' expression ':' conditional ]
    mutating func expression(_ minimum: Int) throws(Failure) -> Int64 {
        depth += 1
        defer { depth -= 1 }
        if depth > maxDepth {
            throw Failure(message: "expression nested too deeply (limit maxNestingDepth = \(maxDepth))",
                          range: index < tokens.count ? tokens[index].range : endRange)
        }
        var left = try unary()
        while index < tokens.count, tokens[index].kind == .punctuator {
            let op = tokens[index]
            if text(op) == "?", minimum <= 1 {
                index += 1
                let whenTrue = try expression(0)
                guard index < tokens.count, tokens[index].isPunctuator(":") else {
                    throw Failure(message: "expected ':' in preprocessor expression", range: index < tokens.count ? tokens[index].range : endRange)
                }
                index += 1
                let whenFalse = try expression(1)
                left = left != 0 ? whenTrue : whenFalse
                continue
            }
            guard let level = ConditionEvaluator.precedence(text(op)), level >= max(minimum, 2) else { break }
            index += 1
            let right = try expression(level + 1)
            switch text(op) {
            case "||": left = (left != 0 || right != 0) ? 1 : 0
            case "&&": left = (left != 0 && right != 0) ? 1 : 0
            case "|": left |= right
            case "^": left ^= right
            case "&": left &= right
            case "==": left = left == right ? 1 : 0
            case "!=": left = left != right ? 1 : 0
            case "<": left = left < right ? 1 : 0
            case ">": left = left > right ? 1 : 0
            case "<=": left = left <= right ? 1 : 0
            case ">=": left = left >= right ? 1 : 0
            case "<<": left = left << (right & 63)
            case ">>": left = left >> (right & 63)
            case "+": left = left &+ right
            case "-": left = left &- right
            case "*": left = left &* right
            default:
                guard right != 0 else { throw Failure(message: "division by zero in preprocessor expression", range: op.range) }
                if left == .min && right == -1 { left = text(op) == "/" ? .min : 0 } else {
                    left = text(op) == "/" ? left / right : left % right
                }
            }
        }
        return left
    }

    /// unary := ( '!' | '~' | '-' | '+' ) unary | '(' expression ')' | integer | identifier
    mutating func unary() throws(Failure) -> Int64 {
        guard index < tokens.count else {
            throw Failure(message: "expected value in expression", range: endRange)
        }
        let token = tokens[index]
        index += 1
        switch token.kind {
        case .integerLiteral:
            if case .integer(let value, _) = NumericLiteral.parse(text(token)) { return Int64(truncatingIfNeeded: value) }
            throw Failure(message: "invalid integer in preprocessor expression", range: token.range)
        case .characterLiteral:
            return Int64(text(token).utf8.dropFirst().first ?? 0)
        case .identifier:
            return text(token) == "true" ? 1 : 0
        case .punctuator:
            switch text(token) {
            case "!": return try unary() == 0 ? 1 : 0
            case "~": return ~(try unary())
            case "-": return 0 &- (try unary())
            case "+": return try unary()
            case "(":
                depth += 1
                defer { depth -= 1 }
                let value = try expression(0)
                guard index < tokens.count, tokens[index].isPunctuator(")") else {
                    throw Failure(message: "expected ')' in preprocessor expression", range: index < tokens.count ? tokens[index].range : endRange)
                }
                index += 1
                return value
            default: break
            }
        default: break
        }
        throw Failure(message: "invalid token at start of a preprocessor expression", range: token.range)
    }
}
