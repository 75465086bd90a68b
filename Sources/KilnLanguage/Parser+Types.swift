/// Types as written, and the knowledge of which names are types (C's declaration/expression
/// ambiguity is resolved by knowing the type names).
extension Parser {
    /// Calls `body` with the bytes of every builtin type name: scalars, vectors (also
    /// `vector_`, `simd_`, `packed_` spellings), matrices, resources and the generic
    /// templates. The one definition of the set; `WordTable` keeps it for lookups.
    ///
    /// The names are put together as bytes in one scratch buffer, not as `String`s in a
    /// `Set`: every `kiln compile` process makes them, and the `Set` of concatenated strings
    /// cost 365 000 instructions — more than compiling a small shader's front end.
    static func forEachBuiltinTypeName(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let plain: [StaticString] = [
            "void", "auto", "size_t", "ptrdiff_t", "double",
            "sampler", "texture1d", "texture2d", "texture3d", "texturecube", "texture2d_array",
            "texture1d_array", "texturecube_array", "texture2d_ms", "depth2d", "depth2d_array", "depthcube",
            "depth2d_ms", "array", "vec", "matrix", "packed_vec", "atomic", "atomic_int", "atomic_uint",
            "atomic_bool", "atomic_float", "Layer",
        ]
        let scalars: [StaticString] = ["bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                                       "half", "float", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t",
                                       "uint32_t", "int64_t", "uint64_t"]
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { name in
            var count = 0
            func append(_ part: StaticString) {
                let length = part.utf8CodeUnitCount
                precondition(count + length <= name.count)
                (name.baseAddress! + count).update(from: part.utf8Start, count: length)
                count += length
            }
            /// `body` of the concatenation of the parts (not variadic: no array per name).
            func emit(_ a: StaticString, _ b: StaticString = "", _ c: StaticString = "", _ d: StaticString = "",
                      _ e: StaticString = "") {
                count = 0
                append(a); append(b); append(c); append(d); append(e)
                body(UnsafeBufferPointer(rebasing: name[0..<count]))
            }
            for word in plain { emit(word) }
            let digits: [StaticString] = ["2", "3", "4"]
            for scalar in scalars {
                emit(scalar)
                emit("vector_", scalar)
                emit("simd_", scalar)
                for n in digits {
                    emit(scalar, n)
                    emit("vector_", scalar, n)
                    emit("simd_", scalar, n)
                    emit("packed_", scalar, n)
                }
            }
            for scalar: StaticString in ["float", "half", "double"] {
                for c in digits {
                    for r in digits {
                        emit(scalar, c, "x", r)
                        emit("simd_", scalar, c, "x", r)
                        emit("matrix_", scalar, c, "x", r)
                    }
                }
            }
        }
    }

    /// Whether `name` is a builtin name that takes `<…>` arguments. Compared spelling by
    /// spelling, not hashed into a set: it is asked of every builtin type name in
    /// expression position (each `float2(…)`), and all but one of these are small strings
    /// that `sameSpelling` tells apart in a compare of their bits.
    static func isGenericTypeName(_ name: String) -> Bool {
        switch Spelling(name) {
        case "array", "vec", "matrix", "packed_vec", "atomic", "texture1d", "texture2d", "texture3d", "texturecube",
             "texture2d_array", "texture1d_array", "texturecube_array", "texture2d_ms", "depth2d", "depth2d_array",
             "depthcube", "depth2d_ms":
            return true
        default:
            return false
        }
    }

    func isTypeName(_ name: String) -> Bool {
        WordTable.isBuiltinTypeName(name) || declaredTypeNames.contains(name)
    }

    /// `isTypeName` for an identifier token, without hashing for builtin names.
    @inline(__always)
    func isTypeName(_ token: Token) -> Bool {
        token.isBuiltinTypeName || (!declaredTypeNames.isEmpty && declaredTypeNames.contains(text(token)))
    }

    /// If a type starts at token `index`, the index just past it (`const`, address spaces,
    /// a known type path, balanced `<…>`, `*`/`&`); otherwise `nil`. Lookahead only.
    func typeEnd(at start: Int) -> Int? {
        var index = start
        func token(_ i: Int) -> Token { tokens[min(i, tokens.count - 1)] }
        var sawQualifier = false
        while token(index).kind == .identifier,
              sameSpelling(text(token(index)), "const") || sameSpelling(text(token(index)), "volatile")
                || AddressSpace.named(text(token(index))) != nil {
            sawQualifier = true
            index += 1
        }
        if token(index).isIdentifier("struct") || token(index).isIdentifier("enum") { index += 1; sawQualifier = true }
        if token(index).isIdentifier("unsigned") || token(index).isIdentifier("signed") {
            index += 1
            if token(index).kind == .identifier, ["int", "short", "char", "long"].contains(text(token(index))) { index += 1 }
            return skipDeclaratorPunctuation(from: index)
        }
        if token(index).isPunctuator("::") { index += 1 }
        guard token(index).kind == .identifier else { return nil }
        let first = index
        var last = index
        index += 1
        while token(index).isPunctuator("::"), token(index + 1).kind == .identifier {
            last = index + 1
            index += 2
        }
        let lastToken = token(last)
        let isType = isTypeName(lastToken) || (last != first && sameSpelling(text(token(first)), "SwiftUI"))
            || (sawQualifier && !lastToken.isReservedWord)
        guard isType else { return nil }
        if token(index).isPunctuator("<"), lastToken.isBuiltinTypeName, Parser.isGenericTypeName(text(lastToken)) {
            var angles = 0, parentheses = 0
            repeat {
                let t = token(index)
                if t.kind == .endOfFile || t.isPunctuator(";") || t.isPunctuator("{") { return nil }
                if t.isPunctuator("(") { parentheses += 1 }
                if t.isPunctuator(")") { parentheses -= 1 }
                // Deeper than any valid type may nest: not a type (and keeps lookahead linear).
                if angles > limits.maxNestingDepth || parentheses > limits.maxNestingDepth { return nil }
                if parentheses == 0 {
                    if t.isPunctuator("<") { angles += 1 }
                    if t.isPunctuator(">") { angles -= 1 }
                    if t.isPunctuator(">>") { angles -= 2 }
                }
                index += 1
            } while angles > 0
        }
        return skipDeclaratorPunctuation(from: index)
    }

    private func skipDeclaratorPunctuation(from start: Int) -> Int {
        var index = start
        while index < tokens.count {
            let t = tokens[index]
            if t.isPunctuator("*") || t.isPunctuator("&") || t.isIdentifier("const")
                || (t.kind == .identifier && AddressSpace.named(text(t)) != nil) {
                index += 1
            } else {
                break
            }
        }
        return index
    }

    /// type := { 'const' | 'volatile' | address-space } [ 'struct' | 'enum' ] type-path
    ///         [ '<' generic-argument { ',' generic-argument } '>' ] { 'const' | address-space }
    ///         [ ( '*' | '&' ) { 'const' } ]
    /// type-path := [ '::' ] identifier { '::' identifier } | ( 'unsigned' | 'signed' ) [ 'int' | 'short' | 'char' | 'long' ]
    mutating func parseType() throws(Failure) -> TypeName {
        let start = current.range.start
        var isConst = false
        var addressSpace: AddressSpace?
        func qualifiers(_ parser: inout Parser) {
            while parser.current.kind == .identifier {
                let word = parser.text(parser.current)
                if sameSpelling(word, "const") { isConst = true } else if sameSpelling(word, "volatile") {
                } else if let space = AddressSpace.named(word) { addressSpace = space } else { break }
                parser.advance()
            }
        }
        qualifiers(&self)
        if checkKeyword("struct") || checkKeyword("enum") { advance() }
        var path: [String]
        if checkKeyword("unsigned") || checkKeyword("signed") {
            let signed = text(advance()) == "signed"
            var base = "int"
            if current.kind == .identifier, ["int", "short", "char", "long"].contains(text(current)) { base = text(advance()) }
            path = [signed ? base : (base == "char" ? "uchar" : "u" + base)]
        } else {
            _ = match("::")
            let first = current.kind == .identifier && isTypeName(current) ? advance() : try expectIdentifier("or type name")
            path = [text(first)]
            while check("::") {
                advance()
                path.append(try text(expectIdentifier("after '::'")))
            }
        }
        var arguments: [TypeName.GenericArgument] = []
        if check("<"), Parser.isGenericTypeName(path.last!) {
            let open = advance()
            repeat {
                try enterNesting()
                defer { leaveNesting() }
                if let end = typeEnd(at: position), isGenericArgumentEnd(tokens[min(end, tokens.count - 1)]) {
                    arguments.append(.type(try parseType()))
                } else {
                    arguments.append(.expression(try parseExpression(.shift)))
                }
            } while match(",")
            try expectClosingAngle(open)
        }
        qualifiers(&self)
        var indirection = TypeName.Indirection.none
        if match("*") { indirection = .pointer } else if match("&") { indirection = .reference }
        if indirection != .none {
            while matchKeyword("const") {}
        }
        return TypeName(path: path, genericArguments: arguments, addressSpace: addressSpace, isConst: isConst,
                        indirection: indirection, range: range(from: start))
    }

    private func isGenericArgumentEnd(_ token: Token) -> Bool {
        token.isPunctuator(",") || token.isPunctuator(">") || token.isPunctuator(">>")
    }

    /// Consumes a `>` closing generic arguments, splitting a `>>` into two.
    mutating func expectClosingAngle(_ open: Token) throws(Failure) {
        if match(">") { return }
        if check(">>") {
            var rest = tokens[position]
            table.setText(">", of: &rest)
            rest.range.start.offset += 1
            rest.range.start.column += 1
            tokens[position] = rest
            return
        }
        throw fail("expected '>'", at: current, notes: [.init(message: "to match this '<'", range: open.range)])
    }
}
