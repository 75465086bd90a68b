/// Directive lines: `#include`, `#define`, `#undef`, conditionals, `#pragma`, `#error`.
extension Preprocessor {
    /// directive-line := '#' [ directive-name tokens ] new-line
    mutating func handleDirective(hash: Token, line: [Token], conditionals: inout [Conditional], depth: Int) {
        guard let nameToken = line.first else { return }   // the null directive `#`
        let active = conditionals.last?.active ?? true
        let rest = Array(line.dropFirst())
        let directiveRange = SourceRange(start: hash.range.start, end: line.last?.range.end ?? hash.range.end)
        switch text(nameToken) {
        case "if", "ifdef", "ifndef":
            var value = false
            if active {
                switch text(nameToken) {
                case "if": value = evaluateCondition(rest, directive: nameToken)
                default:
                    if let name = rest.first, name.kind == .identifier {
                        value = (macros[text(name)] != nil) == (text(nameToken) == "ifdef")
                    } else {
                        diagnostics.append(.error("macro name missing", at: nameToken.range))
                    }
                }
            }
            conditionals.append(Conditional(parentActive: active, anyTaken: value, active: active && value,
                                            sawElse: false, range: directiveRange))
        case "elif":
            guard var top = conditionals.popLast() else {
                diagnostics.append(.error("#elif without #if", at: directiveRange))
                return
            }
            if top.sawElse { diagnostics.append(.error("#elif after #else", at: directiveRange)) }
            if top.parentActive && !top.anyTaken {
                let value = evaluateCondition(rest, directive: nameToken)
                top.active = value
                top.anyTaken = value
            } else {
                top.active = false
            }
            conditionals.append(top)
        case "else":
            guard var top = conditionals.popLast() else {
                diagnostics.append(.error("#else without #if", at: directiveRange))
                return
            }
            if top.sawElse { diagnostics.append(.error("#else after #else", at: directiveRange)) }
            top.sawElse = true
            top.active = top.parentActive && !top.anyTaken
            top.anyTaken = true
            conditionals.append(top)
        case "endif":
            if conditionals.popLast() == nil {
                diagnostics.append(.error("#endif without #if", at: directiveRange))
            }
        default:
            guard active else { return }   // other directives in skipped groups are ignored
            switch text(nameToken) {
            case "include": include(rest, directive: nameToken, depth: depth, unconditional: conditionals.isEmpty)
            case "define": define(rest, directive: nameToken)
            case "undef":
                if let name = rest.first, name.kind == .identifier {
                    macros[text(name)] = nil
                } else {
                    diagnostics.append(.error("macro name missing", at: nameToken.range))
                }
            case "pragma", "line", "ident":
                break
            case "error", "warning":
                let text = spelling(of: rest)
                diagnostics.append(self.text(nameToken) == "error"
                                   ? .error(text.isEmpty ? "#error" : text, at: directiveRange)
                                   : .warning(text.isEmpty ? "#warning" : text, at: directiveRange))
            default:
                diagnostics.append(.error("invalid preprocessing directive '#\(text(nameToken))'", at: nameToken.range))
            }
        }
    }

    /// The source text of a directive's tokens, spaced as written.
    func spelling(of tokens: [Token]) -> String {
        guard let first = tokens.first, let last = tokens.last,
              !first.isExpanded, last.range.start.file == first.range.start.file else {
            return tokens.map { text($0) }.joined(separator: " ")
        }
        let bytes = files[first.range.start.file].bytes
        let start = first.range.start.offset, end = last.range.end.offset
        guard start <= end, end <= bytes.count else { return tokens.map { text($0) }.joined(separator: " ") }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// include-directive := '#' 'include' ( string-literal | '<' header-name '>' )
    /// `unconditional`: the directive is not inside an `#if` group of its file.
    mutating func include(_ tokens: [Token], directive: Token, depth: Int, unconditional: Bool) {
        var name: String
        var isSystem = false
        guard let first = tokens.first else {
            diagnostics.append(.error("expected \"FILENAME\" or <FILENAME>", at: directive.range))
            return
        }
        var range = first.range
        if first.kind == .stringLiteral {
            name = String(text(first).dropFirst().dropLast())
        } else if first.isPunctuator("<"), let close = tokens.firstIndex(where: { $0.isPunctuator(">") }), close > 1 {
            isSystem = true
            range = SourceRange(start: first.range.start, end: tokens[close].range.end)
            name = spelling(of: Array(tokens[1..<close]))
        } else {
            diagnostics.append(.error("expected \"FILENAME\" or <FILENAME>", at: first.range))
            return
        }
        if isSystem, Preprocessor.systemHeaders.contains(name) { return }
        let includer = files[directive.range.start.file].name
        guard let target = IncludePath.resolve(name, from: includer, system: isSystem, searchPaths: searchPaths, files: files) else {
            diagnostics.append(.error("'\(name)' file not found", at: range))
            return
        }
        includeCount += 1
        if includeCount > limits.maxIncludes {
            if !includeLimitReported {
                includeLimitReported = true
                diagnostics.append(.error("too many #include directives followed (limit maxIncludes = \(limits.maxIncludes)); does a header include another one several times without an include guard?", at: range))
            }
            return
        }
        if depth + 1 > limits.maxIncludeDepth {
            diagnostics.append(.error("#include nested too deeply (limit maxIncludeDepth = \(limits.maxIncludeDepth))", at: range))
            return
        }
        if let headerCache, atLeadingHeader(depth: depth, unconditional: unconditional) {
            includeLeadingHeader(target, cache: headerCache)
            return
        }
        processFile(target, depth: depth + 1)
    }

    /// define-directive := '#' 'define' identifier [ '(' [ identifier { ',' identifier } [ ',' '...' ] ] ')' ] replacement-list
    /// (the parameter list's `(` must follow the name without space)
    mutating func define(_ tokens: [Token], directive: Token) {
        guard let nameToken = tokens.first, nameToken.kind == .identifier else {
            diagnostics.append(.error("macro name must be an identifier", at: tokens.first?.range ?? directive.range))
            return
        }
        if text(nameToken) == "defined" {
            diagnostics.append(.error("'defined' cannot be used as a macro name", at: nameToken.range))
            return
        }
        var index = 1
        var parameters: [String]?
        var isVariadic = false
        if index < tokens.count, tokens[index].isPunctuator("("), !tokens[index].hasLeadingSpace {
            var names: [String] = []
            index += 1
            var closed = false
            while index < tokens.count {
                let token = tokens[index]
                index += 1
                if token.isPunctuator(")") { closed = true; break }
                if token.isPunctuator(",") , !names.isEmpty { continue }
                if token.isPunctuator("...") {
                    isVariadic = true
                    names.append("__VA_ARGS__")
                    continue
                }
                guard token.kind == .identifier, !isVariadic, !names.contains(text(token)) else {
                    diagnostics.append(.error("invalid macro parameter list", at: token.range))
                    return
                }
                names.append(text(token))
            }
            guard closed else {
                diagnostics.append(.error("missing ')' in macro parameter list", at: nameToken.range))
                return
            }
            parameters = names
        }
        let body = Array(tokens[index...])
        if let parameters {
            for (i, token) in body.enumerated() where token.isPunctuator("#") {
                let next = i + 1 < body.count ? body[i + 1] : nil
                if next == nil || next!.kind != .identifier || !parameters.contains(text(next!)) {
                    diagnostics.append(.error("'#' is not followed by a macro parameter", at: token.range))
                    return
                }
            }
        }
        if body.first?.isPunctuator("##") == true || body.last?.isPunctuator("##") == true {
            diagnostics.append(.error("'##' cannot appear at either end of a macro expansion", at: nameToken.range))
            return
        }
        let macro = Macro(name: text(nameToken), parameters: parameters, isVariadic: isVariadic, body: body,
                          range: nameToken.range)
        if let old = macros[text(nameToken)], old.parameters != parameters || old.body.map({ text($0) }) != body.map({ text($0) }) {
            diagnostics.append(.warning("'\(text(nameToken))' macro redefined", at: nameToken.range,
                                        notes: [.init(message: "previous definition is here", range: old.range)]))
        }
        macros[text(nameToken)] = macro
        macroLengthMask |= Preprocessor.lengthBit(text(nameToken))
    }
}
