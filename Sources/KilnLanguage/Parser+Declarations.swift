/// Program-scope declarations, variable declarations and attributes.
extension Parser {
    /// translation-unit := { external-declaration } end-of-file
    mutating func parseTranslationUnit() -> TranslationUnit {
        parseTranslationUnit(boundary: nil).unit
    }

    /// Where parsing stood when it reached a token index between two declarations, without
    /// a diagnostic of its own before it: what the parser knows there besides its position.
    struct Boundary {
        /// Declarations before the boundary.
        var declarationCount: Int
        var declaredTypeNames: Set<String>
    }

    /// Parses the unit, noting the state at token index `boundary` (the end of a leading
    /// header: `HeaderCache`) when parsing gets there cleanly between two declarations.
    mutating func parseTranslationUnit(boundary: Int?) -> (unit: TranslationUnit, boundary: Boundary?) {
        var declarations: [Declaration] = []
        var reached: Boundary?
        // The preprocessor's, handed over at the start: none of them is about the tokens
        // before the boundary (the front end asks only when there were none there).
        let handedOver = diagnostics.count
        while true {
            if position == boundary, reached == nil, diagnostics.count == handedOver, depth == 0 {
                reached = Boundary(declarationCount: declarations.count, declaredTypeNames: declaredTypeNames)
            }
            guard !isAtEnd, !stopped else { break }
            let start = position
            do {
                try parseExternalDeclaration(into: &declarations)
            } catch {
                if stopped { break }
                synchronizeDeclaration(startedAt: start)
            }
        }
        return (TranslationUnit(declarations: declarations), reached)
    }

    /// external-declaration := ';' | using-declaration | typedef-declaration | struct-declaration
    ///                       | enum-declaration | template-declaration | function-or-variable
    mutating func parseExternalDeclaration(into declarations: inout [Declaration]) throws(Failure) {
        let token = current
        if token.isPunctuator(";") {
            advance()
            return
        }
        if token.kind == .identifier {
            switch Spelling(text(token)) {
            case "using":
                declarations.append(try parseUsing())
                return
            case "typedef":
                try parseTypedef(into: &declarations)
                return
            case "struct" where isStructDeclarationStart, "class" where isStructDeclarationStart:
                if let structure = try parseStruct(into: &declarations) { declarations.append(structure) }
                return
            case "enum":
                declarations.append(try parseEnum())
                return
            case "template":
                try skipTemplate()
                return
            case "namespace":
                throw fail("not supported: namespaces", at: token)
            case "union":
                throw fail("not supported: unions", at: token)
            default:
                break
            }
        }
        try parseFunctionOrVariable(into: &declarations)
    }

    /// `struct S {` or `struct S;` (rather than `struct S` used as a type).
    var isStructDeclarationStart: Bool {
        peek(1).kind == .identifier && (peek(2).isPunctuator("{") || peek(2).isPunctuator(";"))
    }

    /// template-declaration := 'template' '<' … '>' declaration — reported as not supported and skipped whole.
    mutating func skipTemplate() throws(Failure) {
        let keyword = advance()
        var end = keyword.range
        if check("<") {
            var angles = 0
            repeat {
                let t = advance()
                if t.isPunctuator("<") { angles += 1 }
                if t.isPunctuator(">") { angles -= 1 }
                if t.isPunctuator(">>") { angles -= 2 }
                end = t.range
            } while angles > 0 && !isAtEnd
        }
        report("not supported: templates (template declarations are outside the Kiln subset)",
               at: SourceRange(start: keyword.range.start, end: end.end), notes: expansionNote(keyword))
        // Skip the templated declaration: up to its `;` or the `}` that closes its body.
        var braces = 0
        while !isAtEnd {
            let t = advance()
            if t.isPunctuator(";"), braces == 0 { return }
            if t.isPunctuator("{") { braces += 1 }
            if t.isPunctuator("}") {
                braces -= 1
                if braces <= 0 {
                    _ = match(";")
                    return
                }
            }
        }
    }

    func expansionNote(_ token: Token) -> [Diagnostic.Note] {
        table.expansion(of: token).map { [.init(message: "expanded from macro '\($0.macro)'", range: $0.useRange)] } ?? []
    }

    /// using-declaration := 'using' 'namespace' name-path ';' | 'using' identifier '=' type ';'
    mutating func parseUsing() throws(Failure) -> Declaration {
        let keyword = advance()
        if matchKeyword("namespace") {
            var name = try text(expectIdentifier("after 'namespace'"))
            while match("::") { name += "::" + (try text(expectIdentifier("after '::'"))) }
            try expectSemicolon(after: "namespace name")
            return .usingNamespace(name: name, range: range(from: keyword.range.start))
        }
        let name = try expectIdentifier("in alias declaration")
        try expect("=", "in alias declaration")
        let type = try parseType()
        declaredTypeNames.insert(text(name))
        try expectSemicolon(after: "alias declaration")
        return .typeAlias(TypeAliasDeclaration(name: text(name), nameRange: name.range, type: type,
                                               range: range(from: keyword.range.start)))
    }

    /// typedef-declaration := 'typedef' ( type | struct-body-specifier | enum-body-specifier ) identifier ';'
    /// struct-body-specifier := ( 'struct' | 'class' ) [ identifier ] '{' { field-declaration } '}'
    /// enum-body-specifier := 'enum' [ identifier ] [ ':' type ] '{' … '}'
    /// (C style, as shared headers write it: `typedef struct { … } Name;`,
    /// `typedef enum Tag { … } Name;` declare the type and name it)
    mutating func parseTypedef(into declarations: inout [Declaration]) throws(Failure) {
        let keyword = advance()
        let isBody = (checkKeyword("struct") || checkKeyword("class") || checkKeyword("enum"))
            && (peek(1).isPunctuator("{") || peek(1).isPunctuator(":")
                || (peek(1).kind == .identifier && (peek(2).isPunctuator("{") || peek(2).isPunctuator(":"))))
        guard isBody else {
            let type = try parseType()
            let name = try expectIdentifier("in typedef")
            declaredTypeNames.insert(text(name))
            try expectSemicolon(after: "typedef")
            declarations.append(.typeAlias(TypeAliasDeclaration(name: text(name), nameRange: name.range, type: type,
                                                                range: range(from: keyword.range.start))))
            return
        }
        let kind = advance()
        let tag: Token? = current.kind == .identifier ? advance() : nil
        // The typedef name follows the closing brace; an anonymous body takes that name.
        guard let alias = typedefName(afterBodyAt: position) else {
            throw fail("expected a name after the '}' of a typedef", at: current)
        }
        let typeName = tag ?? alias
        declaredTypeNames.insert(text(typeName))
        declaredTypeNames.insert(text(alias))
        if text(kind) == "enum" {
            declarations.append(try parseEnumBody(keyword: kind, isScoped: false, name: typeName))
        } else {
            declarations.append(.structure(try parseStructBody(keyword: kind, name: typeName)))
        }
        let name = try expectIdentifier("in typedef")
        try expectSemicolon(after: "typedef")
        if let tag, text(tag) != text(name) {
            declarations.append(.typeAlias(TypeAliasDeclaration(name: text(name), nameRange: name.range,
                                                                type: TypeName(path: [text(tag)], range: tag.range),
                                                                range: range(from: keyword.range.start))))
        }
    }

    /// The identifier after the `{ … }` that starts at or after `start` (for typedefs).
    func typedefName(afterBodyAt start: Int) -> Token? {
        var offset = 0
        while !peek(offset).isPunctuator("{") {
            if peek(offset).kind == .endOfFile || peek(offset).isPunctuator(";") { return nil }
            offset += 1
        }
        var depth = 0
        while true {
            let token = peek(offset)
            if token.kind == .endOfFile { return nil }
            if token.isPunctuator("{") { depth += 1 }
            if token.isPunctuator("}") {
                depth -= 1
                if depth == 0 { break }
            }
            offset += 1
        }
        let name = peek(offset + 1)
        return name.kind == .identifier ? name : nil
    }

    /// struct-declaration := ( 'struct' | 'class' ) identifier [ '{' { field-declaration } '}' [ init-declarator { ',' init-declarator } ] ] ';'
    /// (a forward declaration `struct S;` declares only the name)
    mutating func parseStruct(into declarations: inout [Declaration]) throws(Failure) -> Declaration? {
        let keyword = advance()
        let name = try expectIdentifier("after 'struct'")
        declaredTypeNames.insert(text(name))
        if match(";") { return nil }
        let structure = try parseStructBody(keyword: keyword, name: name)
        if !check(";"), current.kind == .identifier {
            // `struct S { … } s;` also declares variables of the new type.
            declarations.append(.structure(structure))
            let type = TypeName(path: [text(name)], range: name.range)
            var declarators: [Declarator] = []
            repeat { declarators.append(try parseDeclarator()) } while match(",")
            try expectSemicolon(after: "declaration")
            return .variable(VariableDeclaration(type: type, isConstexpr: false, declarators: declarators,
                                                 range: range(from: keyword.range.start)))
        }
        try expectSemicolon(after: "struct")
        return .structure(structure)
    }

    /// struct-body := '{' { field-declaration } '}'  (of the struct `name`)
    mutating func parseStructBody(keyword: Token, name: Token) throws(Failure) -> StructDeclaration {
        let open = try expect("{", "in struct declaration")
        var fields: [FieldDeclaration] = []
        while !check("}"), !isAtEnd, !stopped {
            let start = position
            do {
                try parseFieldDeclaration(into: &fields)
            } catch {
                if position == start, !check("}") { advance() }
                synchronizeStatement()
            }
        }
        if stopped { throw Failure() }
        try expect("}", "at end of struct", matching: open)
        return StructDeclaration(name: text(name), nameRange: name.range, fields: fields,
                                 range: range(from: keyword.range.start))
    }

    /// field-declaration := type field-declarator { ',' field-declarator } ';'
    /// field-declarator := identifier { '[' expression ']' } { attribute-specifier }
    mutating func parseFieldDeclaration(into fields: inout [FieldDeclaration]) throws(Failure) {
        let start = current.range.start
        let type = try parseType()
        if check("(") || (current.kind == .identifier && peek(1).isPunctuator("(")) {
            throw fail("not supported: member functions", at: current)
        }
        repeat {
            let name = try expectIdentifier("in field declaration")
            var sizes: [Expression] = []
            while check("["), !peek(1).isPunctuator("[") {
                let open = advance()
                sizes.append(try parseExpression())
                try expect("]", "", matching: open)
            }
            let attributes = try parseAttributes()
            fields.append(FieldDeclaration(type: type, name: text(name), nameRange: name.range, arraySizes: sizes,
                                           attributes: attributes, range: range(from: start)))
        } while match(",")
        try expectSemicolon(after: "field declaration")
    }

    /// enum-declaration := 'enum' [ 'class' | 'struct' ] identifier [ ':' type ]
    ///                     '{' [ enumerator { ',' enumerator } [ ',' ] ] '}' ';'
    /// enumerator := identifier [ '=' conditional-expression ]
    mutating func parseEnum() throws(Failure) -> Declaration {
        let keyword = advance()
        let isScoped = matchKeyword("class") || matchKeyword("struct")
        let name = try expectIdentifier("after 'enum'")
        declaredTypeNames.insert(text(name))
        let declaration = try parseEnumBody(keyword: keyword, isScoped: isScoped, name: name)
        try expectSemicolon(after: "enum")
        return declaration
    }

    /// enum-body := [ ':' type ] '{' [ enumerator { ',' enumerator } [ ',' ] ] '}'  (of the enum `name`)
    mutating func parseEnumBody(keyword: Token, isScoped: Bool, name: Token) throws(Failure) -> Declaration {
        var underlying: TypeName?
        if match(":") { underlying = try parseType() }
        let open = try expect("{", "in enum declaration")
        var cases: [EnumDeclaration.Case] = []
        while !check("}") {
            let caseName = try expectIdentifier("in enumerator list")
            var value: Expression?
            if match("=") { value = try parseExpression(.conditional) }
            cases.append(.init(name: text(caseName), value: value, range: range(from: caseName.range.start)))
            if !match(",") { break }
        }
        try expect("}", "at end of enum", matching: open)
        return .enumeration(EnumDeclaration(name: text(name), nameRange: name.range, isScoped: isScoped,
                                            underlyingType: underlying, cases: cases,
                                            range: range(from: keyword.range.start)))
    }

    /// What precedes the type of a function or variable declaration.
    struct Specifiers {
        var attributes: [Attribute] = []
        var qualifier: FunctionQualifier = .none
        var isConstexpr = false
        /// Where `extern` is: accepted on a definition (a declarator with an initializer).
        var externPosition: Int?
    }

    /// specifiers := { attribute-specifier | 'static' | 'inline' | 'constexpr' | 'METAL_FUNC' | 'extern'
    ///               | '__attribute__' '(' '(' … ')' ')' | 'vertex' | 'fragment' | 'kernel' }
    /// (`vertex`/`fragment`/`kernel` only at program scope)
    mutating func parseSpecifiers(programScope: Bool) throws(Failure) -> Specifiers {
        var specifiers = Specifiers()
        while true {
            let token = current
            if token.isPunctuator("["), peek(1).isPunctuator("[") {
                specifiers.attributes += try parseAttributes()
                continue
            }
            guard token.kind == .identifier else { break }
            switch Spelling(text(token)) {
            case "static", "inline", "METAL_FUNC", "__inline__", "__always_inline":
                advance()
            case "constexpr":
                advance()
                specifiers.isConstexpr = true
            case "extern":
                // `extern constant half table[] = {…};` in shared headers: with an
                // initializer it is the definition (checked at the declarators).
                specifiers.externPosition = position
                advance()
            case "__attribute__":
                advance()
                try skipParenthesized()
            case "vertex" where programScope, "fragment" where programScope, "kernel" where programScope:
                advance()
                specifiers.qualifier = FunctionQualifier(rawValue: text(token)) ?? .none
            default:
                return specifiers
            }
        }
        return specifiers
    }

    /// Skips a balanced `( … )` group (GNU `__attribute__((…))`).
    mutating func skipParenthesized() throws(Failure) {
        let open = try expect("(", "after '__attribute__'")
        var nesting = 1
        while nesting > 0 {
            if isAtEnd { throw fail("expected ')'", at: current, notes: [.init(message: "to match this '('", range: open.range)]) }
            let t = advance()
            if t.isPunctuator("(") { nesting += 1 }
            if t.isPunctuator(")") { nesting -= 1 }
        }
    }

    /// function-or-variable := specifiers type identifier
    ///     ( '(' parameter-list ')' { attribute-specifier } ( block | ';' )
    ///     | init-declarator-rest { ',' init-declarator } ';' )
    mutating func parseFunctionOrVariable(into declarations: inout [Declaration]) throws(Failure) {
        let first = current
        let specifiers = try parseSpecifiers(programScope: true)
        let type = try parseType()
        if checkKeyword("operator") { throw fail("not supported: operator overloading", at: current) }
        let name = try expectIdentifier(type.path.count == 1 && !isTypeName(type.baseName)
                                        ? "(unknown type name '\(type.baseName)'?)" : "")
        if check("("), !specifiers.isConstexpr, looksLikeParameterList() {
            let open = advance()
            let parameters = try parseParameters(open: open)
            var attributes = specifiers.attributes
            attributes += try parseAttributes()
            var body: BlockStatement?
            if check("{") {
                body = try parseBlock()
            } else {
                try expectSemicolon(after: "function declaration")
            }
            declarations.append(.function(FunctionDeclaration(
                name: text(name), nameRange: name.range, qualifier: specifiers.qualifier, attributes: attributes,
                returnType: type, parameters: parameters, body: body, documentation: table.documentation(of: first),
                range: range(from: first.range.start))))
            return
        }
        if specifiers.qualifier != .none {
            report("'\(specifiers.qualifier.rawValue)' can only qualify a function", at: name)
        }
        var declarators = [try parseDeclaratorRest(name: name)]
        while match(",") { declarators.append(try parseDeclarator()) }
        try expectSemicolon(after: "top level declarator")
        if let externPosition = specifiers.externPosition, declarators.contains(where: { $0.initializer == nil }) {
            // Kiln compiles each file on its own: a declaration without the definition has no value.
            report("not supported: 'extern' declarations without an initializer", at: tokens[externPosition])
        }
        declarations.append(.variable(VariableDeclaration(type: type, isConstexpr: specifiers.isConstexpr,
                                                          declarators: declarators,
                                                          range: range(from: first.range.start))))
    }

    /// After a declarator name, `(` opens parameters (rather than constructor arguments)
    /// when it is empty or starts like a parameter.
    func looksLikeParameterList() -> Bool {
        let next = peek(1)
        if next.isPunctuator(")") { return true }
        if typeEnd(at: position + 1) != nil { return true }
        return next.kind == .identifier && peek(2).kind == .identifier && !next.isReservedWord
    }

    /// parameter-list := [ 'void' | parameter { ',' parameter } ] ')'   (after the '(')
    /// parameter := specifiers type [ identifier ] { '[' expression ']' } { attribute-specifier } [ '=' assignment-expression ]
    mutating func parseParameters(open: Token) throws(Failure) -> [ParameterDeclaration] {
        var parameters: [ParameterDeclaration] = []
        if match(")") { return parameters }
        // Room for a typical parameter list rather than doubling from one.
        parameters.reserveCapacity(6)
        if checkKeyword("void"), peek(1).isPunctuator(")") {
            advance()
            advance()
            return parameters
        }
        repeat {
            let start = current.range.start
            _ = try parseSpecifiers(programScope: false)
            let type = try parseType()
            var name: Token?
            if current.kind == .identifier, !current.isReservedWord { name = advance() }
            var sizes: [Expression] = []
            while check("["), !peek(1).isPunctuator("[") {
                let bracket = advance()
                sizes.append(try parseExpression())
                try expect("]", "", matching: bracket)
            }
            let attributes = try parseAttributes()
            var defaultValue: Expression?
            if match("=") { defaultValue = try parseExpression(.assignment) }
            parameters.append(ParameterDeclaration(type: type, name: name.map { text($0) }, nameRange: name?.range, arraySizes: sizes,
                                                   defaultValue: defaultValue, attributes: attributes,
                                                   range: range(from: start)))
        } while match(",")
        try expect(")", "", matching: open)
        return parameters
    }

    /// declaration := specifiers type init-declarator { ',' init-declarator }   (without the ';')
    mutating func parseVariableDeclaration() throws(Failure) -> VariableDeclaration {
        let start = current.range.start
        let specifiers = try parseSpecifiers(programScope: false)
        let type = try parseType()
        var declarators: [Declarator] = []
        repeat {
            declarators.append(try parseDeclarator())
        } while match(",")
        return VariableDeclaration(type: type, isConstexpr: specifiers.isConstexpr, declarators: declarators,
                                   range: range(from: start))
    }

    /// init-declarator := identifier init-declarator-rest
    mutating func parseDeclarator() throws(Failure) -> Declarator {
        let name = try expectIdentifier(isTypeName(text(current)) ? "(a type cannot be a variable name)" : "")
        return try parseDeclaratorRest(name: name)
    }

    /// init-declarator-rest := { '[' [ expression ] ']' } { attribute-specifier }
    ///                         [ '=' initializer | '(' [ arguments ] ')' | braced-initializer ]
    mutating func parseDeclaratorRest(name: Token) throws(Failure) -> Declarator {
        var sizes: [Expression?] = []
        while check("["), !peek(1).isPunctuator("[") {
            let open = advance()
            if match("]") {
                sizes.append(nil)
                continue
            }
            sizes.append(try parseExpression())
            try expect("]", "", matching: open)
        }
        let attributes = try parseAttributes()
        var initializer: Initializer?
        if match("=") {
            initializer = try parseInitializer()
        } else if check("{") {
            initializer = try parseInitializer()
        } else if check("(") {
            let open = advance()
            let arguments = try parseArguments(open: open)
            initializer = .constructor(arguments, range(from: open.range.start))
        }
        return Declarator(name: text(name), nameRange: name.range, arraySizes: sizes, initializer: initializer,
                          attributes: attributes, range: range(from: name.range.start))
    }

    /// initializer := braced-initializer | assignment-expression
    /// braced-initializer := '{' [ initializer { ',' initializer } [ ',' ] ] '}'
    mutating func parseInitializer() throws(Failure) -> Initializer {
        guard check("{") else { return .expression(try parseExpression(.assignment)) }
        let open = advance()
        try enterNesting()
        defer { leaveNesting() }
        var elements: [Initializer] = []
        while !check("}") {
            elements.append(try parseInitializer())
            if !match(",") { break }
        }
        try expect("}", "at end of initializer list", matching: open)
        return .list(elements, range(from: open.range.start))
    }

    /// attribute-specifier := '[' '[' attribute { ',' attribute } ']' ']'
    /// attribute := [ identifier '::' ] identifier [ '(' [ conditional-expression { ',' conditional-expression } ] ')' ]
    mutating func parseAttributes() throws(Failure) -> [Attribute] {
        var attributes: [Attribute] = []
        while check("["), peek(1).isPunctuator("[") {
            let open = advance()
            advance()
            repeat {
                if check("]") { break }
                let start = current.range.start
                var name = try expectAttributeName()
                if match("::") { name = try expectAttributeName() }
                var arguments: [Expression] = []
                if check("(") {
                    let parenthesis = advance()
                    if !check(")") {
                        repeat { arguments.append(try parseExpression(.conditional)) } while match(",")
                    }
                    try expect(")", "", matching: parenthesis)
                }
                attributes.append(Attribute(name: text(name), arguments: arguments, range: range(from: start)))
            } while match(",")
            try expect("]", "after attribute", matching: open)
            try expect("]", "after attribute", matching: open)
        }
        return attributes
    }

    /// Attribute names may be reserved words elsewhere (`[[kernel]]`, `[[thread_position_in_grid]]`).
    private mutating func expectAttributeName() throws(Failure) -> Token {
        guard current.kind == .identifier else { throw fail("expected attribute name", at: current) }
        return advance()
    }
}
