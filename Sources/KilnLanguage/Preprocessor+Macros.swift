/// Macro expansion: argument collection, pre-expansion, substitution with `#` and `##`,
/// and the recursion guard.
extension Preprocessor {
    /// The replacement for `token` when it names an expandable macro (the caller pushes it
    /// back for rescanning), or `nil` when the token stays as it is.
    mutating func expand(_ token: Token, from reader: TokenReader) -> [Token]? {
        guard token.kind == .identifier, let macro = macros[text(token)], !hideSets[Int(token.hideSet)].contains(text(token)) else {
            return nil
        }
        if hideSets[Int(token.hideSet)].count >= limits.maxMacroExpansionDepth {
            if !expansionDepthReported {
                expansionDepthReported = true
                diagnostics.append(.error("macro expansion too deep (limit maxMacroExpansionDepth = \(limits.maxMacroExpansionDepth))",
                                          at: table.expansion(of: token)?.useRange ?? token.range,
                                          notes: expansionNotes(token)))
            }
            return nil
        }
        expansionSteps += 1
        if expansionSteps > limits.maxTokens {
            stopForTokenLimit(at: token.range)
            return nil
        }
        // A macro bomb (`#define A1 A0 A0` … `A40`) is known to be too big before expanding it.
        if macro.parameters == nil, token.hideSet == 0, let size = knownExpansionSize(of: macro.name),
           emittedCount + size > limits.maxTokens {
            stopForTokenLimit(at: token.range)
            return nil
        }
        let hideSet = hideSet(token.hideSet, adding: macro.name)
        guard let parameters = macro.parameters else {
            return substitute(macro, arguments: [], use: token, useEnd: token.range.end, hideSet: hideSet)
        }
        // A function-like macro name not followed by `(` is an ordinary identifier.
        guard let open = reader.peek(), open.isPunctuator("(") else { return nil }
        _ = reader.next()
        // arguments := '(' [ tokens { ',' tokens } ] ')' with nested parentheses kept together
        var arguments: [[Token]] = [[]]
        var nesting = 0
        var close: Token?
        // Parenthesis levels of the function-like macro invocations open inside the
        // arguments: their arguments are pre-expanded recursively, one level each, so
        // invocations nested deeper than `maxMacroExpansionDepth` stop here, before the
        // argument tokens are copied once per level.
        var invocations = MacroInvocationNesting()
        while let next = reader.next() {
            if next.isPunctuator("(") {
                nesting += 1
                if invocations.open(at: nesting), argumentExpansionDepth + invocations.depth >= limits.maxMacroExpansionDepth {
                    stopForArgumentDepth(at: token)
                    return []
                }
            }
            if next.isPunctuator(")") {
                if nesting == 0 { close = next; break }
                invocations.close(at: nesting)
                nesting -= 1
            }
            invocations.follows(isFunctionLikeMacro: isFunctionLikeMacro(next))
            if next.isPunctuator(","), nesting == 0, !(macro.isVariadic && arguments.count > parameters.count - 1) {
                arguments.append([])
                continue
            }
            arguments[arguments.count - 1].append(next)
        }
        guard let close else {
            diagnostics.append(.error("unterminated function-like macro invocation", at: token.range,
                                      notes: [.init(message: "macro '\(macro.name)' defined here", range: macro.range)]))
            return []
        }
        if parameters.isEmpty, arguments.count == 1, arguments[0].isEmpty { arguments = [] }
        if macro.isVariadic, arguments.count == parameters.count - 1 { arguments.append([]) }
        if arguments.count != parameters.count {
            let few = arguments.count < parameters.count
            diagnostics.append(.error("too \(few ? "few" : "many") arguments provided to function-like macro invocation",
                                      at: SourceRange(start: token.range.start, end: close.range.end),
                                      notes: [.init(message: "macro '\(macro.name)' defined here", range: macro.range)]))
            return []
        }
        let end = !close.isExpanded && !token.isExpanded ? close.range.end : token.range.end
        return substitute(macro, arguments: arguments, use: token, useEnd: end, hideSet: hideSet)
    }

    /// replacement-list with parameters replaced: pre-expanded arguments, except next to
    /// `#` (stringized) and `##` (pasted as written).
    mutating func substitute(_ macro: Macro, arguments: [[Token]], use: Token, useEnd: SourceLocation,
                             hideSet: Int32) -> [Token] {
        let origin = table.expansion(of: use) ?? Token.Expansion(macro: macro.name,
                                                                 useRange: SourceRange(start: use.range.start, end: useEnd))
        // The annex every token of the result shares (one per substitution).
        let originAnnex = table.annex(documentation: [], expansion: origin)
        let parameters = macro.parameters ?? []
        var expandedArguments: [[Token]?] = Array(repeating: nil, count: arguments.count)
        var result: [Token] = []
        var pasteNext = false
        var index = 0
        let body = macro.body
        func parameterIndex(_ token: Token) -> Int? {
            token.kind == .identifier ? parameters.firstIndex(of: text(token)) : nil
        }
        while index < body.count {
            let item = body[index]
            var piece: [Token]
            if item.isPunctuator("#"), index + 1 < body.count, let p = parameterIndex(body[index + 1]) {
                piece = [stringize(arguments[p], at: origin.useRange)]
                index += 2
            } else if item.isPunctuator("##") {
                pasteNext = true
                index += 1
                continue
            } else if let p = parameterIndex(item) {
                let nextIsPaste = index + 1 < body.count && body[index + 1].isPunctuator("##")
                if pasteNext || nextIsPaste {
                    piece = arguments[p]
                } else {
                    if expandedArguments[p] == nil {
                        // Each nested macro argument pre-expands recursively: bound the nesting.
                        if argumentExpansionDepth >= limits.maxMacroExpansionDepth {
                            stopForArgumentDepth(at: use)
                            return []
                        }
                        argumentExpansionDepth += 1
                        expandedArguments[p] = expandFully(arguments[p])
                        argumentExpansionDepth -= 1
                        if stopped { return [] }
                    }
                    piece = expandedArguments[p]!
                }
                index += 1
            } else {
                var copy = item
                copy.range = origin.useRange
                table.setExpansion(annex: originAnnex, of: &copy)
                piece = [copy]
                index += 1
            }
            if pasteNext, !piece.isEmpty, let last = result.last {
                result[result.count - 1] = paste(last, piece[0], at: origin.useRange, annex: originAnnex)
                piece.removeFirst()
            }
            pasteNext = false
            guard spendTokens(piece.count, at: origin.useRange) else { return [] }
            result.append(contentsOf: piece)
        }
        for i in result.indices {
            result[i].isAtLineStart = false
            result[i].hideSet = union(result[i].hideSet, hideSet)
            // An unexpanded token (from an argument) of an expanded use gets the use's
            // expansion, which is `origin` then.
            if !result[i].isExpanded, use.isExpanded { table.setExpansion(annex: originAnnex, of: &result[i]) }
        }
        if !result.isEmpty {
            table.setDocumentation(table.documentation(of: use), of: &result[0])
            result[0].hasLeadingSpace = use.hasLeadingSpace
        }
        return result
    }

    /// Expands an argument completely on its own (C's argument pre-expansion).
    mutating func expandFully(_ tokens: [Token]) -> [Token] {
        let reader = TokenReader(raw: tokens)
        var result: [Token] = []
        while !stopped, let token = reader.next() {
            if let expansion = expand(token, from: reader) {
                // Rescanning leaves a prefix without macro names as it is: keep it
                // directly instead of pushing it back and popping it token by token.
                let inert = inertPrefixLength(expansion)
                result.append(contentsOf: expansion[..<inert])
                reader.pushFront(expansion[inert...])
            } else {
                result.append(token)
            }
        }
        return result
    }

    /// Whether `token` names a function-like macro (hidden or not).
    func isFunctionLikeMacro(_ token: Token) -> Bool {
        token.kind == .identifier && macroLengthMask & Preprocessor.lengthBit(text(token)) != 0
            && macros[text(token)]?.parameters != nil
    }

    /// The number of leading tokens of `tokens` that name no macro, so rescanning cannot change them.
    func inertPrefixLength(_ tokens: [Token]) -> Int {
        tokens.firstIndex { token in
            token.kind == .identifier && macroLengthMask & Preprocessor.lengthBit(text(token)) != 0
                && macros[text(token)] != nil
        } ?? tokens.count
    }

    /// `#param` → a string literal of the argument's spelling.
    mutating func stringize(_ tokens: [Token], at range: SourceRange) -> Token {
        var text = "\""
        for (i, token) in tokens.enumerated() {
            if i > 0, token.hasLeadingSpace { text += " " }
            for character in self.text(token) {
                if character == "\"" || character == "\\" { text.append("\\") }
                text.append(character)
            }
        }
        text += "\""
        return table.token(kind: .stringLiteral, text: text, range: range)
    }

    /// `a ## b`: the spelling of both as one token, which must lex as exactly one; it takes
    /// the place of the macro use, `range`, and the expansion that `originAnnex` holds.
    mutating func paste(_ left: Token, _ right: Token, at range: SourceRange, annex originAnnex: Int32) -> Token {
        let text = self.text(left) + self.text(right)
        let (tokens, _, problems) = Lexer.tokenize(SourceFile(name: "<paste>", text: text), fileIndex: 0, limits: limits)
        var pasted = left
        table.setText(text, of: &pasted)
        pasted.range = range
        table.setExpansion(annex: originAnnex, of: &pasted)
        if problems.isEmpty, tokens.count == 2, let kind = tokens.first?.kind {
            pasted.kind = kind
            pasted.wordFlags = tokens[0].wordFlags
        } else {
            diagnostics.append(.error("pasting formed '\(text)', an invalid preprocessing token", at: range))
        }
        return pasted
    }

    /// The interned set `set ∪ {name}`.
    mutating func hideSet(_ set: Int32, adding name: String) -> Int32 {
        if hideSets[Int(set)].contains(name) { return set }
        let key = HideSetKey(set: set, name: name)
        if let known = hideSetAdditions[key] { return known }
        let id = Int32(hideSets.count)
        hideSets.append(hideSets[Int(set)].adding(name))
        hideSetAdditions[key] = id
        return id
    }

    /// The interned union of two sets. Memoized: a substitution unions every token of its
    /// result with the macro's set, and the tokens of one argument all share one set.
    mutating func union(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b || b == 0 { return a }
        if a == 0 { return b }
        let key = Int64(a) << 32 | Int64(b)
        if let known = hideSetUnions[key] { return known }
        var result = a
        for name in hideSets[Int(b)].names { result = hideSet(result, adding: name) }
        hideSetUnions[key] = result
        return result
    }

    /// "expanded from macro" notes for a diagnostic at `token`.
    func expansionNotes(_ token: Token) -> [Diagnostic.Note] {
        guard let expansion = table.expansion(of: token) else { return [] }
        return [.init(message: "expanded from macro '\(expansion.macro)'", range: expansion.useRange)]
    }
}
