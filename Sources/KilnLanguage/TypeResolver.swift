/// Names of the language's built-in types and the spelling of resolved types in messages.
///
/// The table maps every spelling of a scalar, vector or matrix type (`float2`,
/// `vector_float2`, `simd_float2`, `packed_float2`, `float3x3`, `simd_float3x3`, …) to its
/// `KType`. Program-defined names (structs, enums, aliases) live in the checker.
enum TypeResolver {
    /// The built-in scalar, vector or matrix type spelled `name` (`float2`, `vector_float2`,
    /// `simd_float3x3`, `uint8_t`, `unsigned char`, `void`, `sampler`, …), or nil.
    ///
    /// Read off the spelling rather than looked up in a table of every spelling: that
    /// `[String: KType]` of 184 concatenated names was made in every process that compiles,
    /// 171 000 instructions of a whole-process `kiln compile` of a small shader.
    static func builtinType(named name: String) -> KType? {
        // Most names asked about are a program's own, short enough to be stored inline: the
        // word table's short-word lookup turns them away without a pass over the bytes.
        if let spelling = TokenSpelling.inline(name) {
            let (flags, type) = WordTable.shared.entry(ofShort: spelling)
            // A short type name's type is in the table, worked out once for the process:
            // reading `float2` off its bytes was ~230 instructions, at every type name and
            // every constructor call.
            if flags & Token.builtinTypeFlag != 0, let type { return type }
            if flags & Token.builtinTypeFlag == 0, !mayBeCSpelling(name.utf8) { return nil }
        }
        var name = name
        return name.withUTF8 { builtinType(spelledBy: $0) }
    }

    /// Whether a name may be one of the C spellings the word table does not hold as types
    /// (`unsigned`, `unsigned int`, `signed char`, …: `unsigned` is a reserved word); every
    /// other name the table does not flag is no type. By its first word, not its first
    /// letter: `sin`, `sqrt`, `smoothstep`, `step` and `saturate` are asked about at every
    /// call, and each went on to a string made and matched against the C spellings.
    @inline(__always)
    private static func mayBeCSpelling<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        // The first letter first: most names asked about are the program's own.
        guard let first = bytes.first, first == UInt8(ascii: "u") || first == UInt8(ascii: "s") else { return false }
        return bytes.starts(with: "unsigned".utf8) || bytes.starts(with: "signed".utf8)
    }

    /// `builtinType(named:)` of a name's UTF-8 bytes.
    static func builtinType(spelledBy bytes: UnsafeBufferPointer<UInt8>) -> KType? {
        // Most names asked about are not types (every identifier the checker resolves): the
        // lexer's word table turns them away with one probe.
        guard WordTable.shared.flags(of: bytes) & Token.builtinTypeFlag != 0 else {
            guard mayBeCSpelling(bytes) else { return nil }
            switch String(decoding: bytes, as: UTF8.self) {
            case "unsigned", "unsigned int": return .uint
            case "unsigned short": return .scalar(.ushort)
            case "signed char": return .scalar(.char)
            case "unsigned char": return .scalar(.uchar)
            default: return nil
            }
        }
        return type(ofTypeWord: bytes)
    }

    /// The type a word the word table flags as a builtin type name spells (`float2`,
    /// `simd_float3x3`, `uint8_t`, `sampler`, …), read off its bytes; nil for one outside
    /// the forms below. Without the word table's check, which is how the table itself
    /// works its short type names out (`WordTable.entry(ofShort:)`).
    static func type(ofTypeWord bytes: UnsafeBufferPointer<UInt8>) -> KType? {
        /// Where `word` starts `bytes` (at `from`), the index after it.
        func skip(_ word: StaticString, from: Int) -> Int? {
            let count = word.utf8CodeUnitCount
            guard bytes.count - from >= count else { return nil }
            for k in 0..<count where bytes[from + k] != word.utf8Start[k] { return nil }
            return from + count
        }
        let count = bytes.count
        if count >= 6, bytes[count - 1] == UInt8(ascii: "t"), bytes[count - 2] == UInt8(ascii: "_") {
            switch String(decoding: bytes, as: UTF8.self) {
            case "int8_t": return .scalar(.char)
            case "uint8_t": return .scalar(.uchar)
            case "int16_t": return .scalar(.short)
            case "uint16_t": return .scalar(.ushort)
            case "int32_t": return .int
            case "uint32_t": return .uint
            default: return nil
            }
        }
        if count == 4, skip("void", from: 0) != nil { return .void }
        if count == 7, skip("sampler", from: 0) != nil { return .sampler }
        // Prefix: none, vector_ and packed_ (vectors), simd_ (vectors, matrices), matrix_.
        var index = 0
        var allowsScalar = false, allowsVector = false, allowsMatrix = false
        switch bytes[0] {
        case UInt8(ascii: "v") where skip("vector_", from: 0) != nil:
            index = 7
            allowsVector = true
        case UInt8(ascii: "p") where skip("packed_", from: 0) != nil:
            index = 7
            allowsVector = true
        case UInt8(ascii: "s") where skip("simd_", from: 0) != nil:
            index = 5
            allowsVector = true
            allowsMatrix = true
        case UInt8(ascii: "m") where skip("matrix_", from: 0) != nil:
            index = 7
            allowsMatrix = true
        default:
            allowsScalar = true
            allowsVector = true
            allowsMatrix = true
        }
        // The scalar's name, then nothing, a size, or columns `x` rows.
        let scalarStart = index
        while index < bytes.count, !(48...57).contains(bytes[index]) { index += 1 }
        let length = index - scalarStart
        /// Whether the scalar part is `word`.
        func isScalar(_ word: StaticString) -> Bool {
            length == word.utf8CodeUnitCount && skip(word, from: scalarStart) != nil
        }
        // Not `ScalarKind.allCases`: it makes an array on every call.
        let kind: ScalarKind? = isScalar("float") ? .float : isScalar("half") ? .half : isScalar("int") ? .int
            : isScalar("uint") ? .uint : isScalar("bool") ? .bool : isScalar("short") ? .short
            : isScalar("ushort") ? .ushort : isScalar("char") ? .char : isScalar("uchar") ? .uchar : nil
        guard let kind else { return nil }
        func size(at i: Int) -> Int? {
            i < bytes.count && (50...52).contains(bytes[i]) ? Int(bytes[i]) - 48 : nil
        }
        switch bytes.count - index {
        case 0:
            return allowsScalar ? .scalar(kind) : nil
        case 1:
            guard allowsVector, let n = size(at: index) else { return nil }
            return .vector(kind, n)
        case 3:
            guard allowsMatrix, kind.isFloat, let columns = size(at: index), bytes[index + 1] == UInt8(ascii: "x"),
                  let rows = size(at: index + 2) else { return nil }
            return .matrix(kind, columns: columns, rows: rows)
        default:
            return nil
        }
    }

    /// Type names of MSL that are valid but outside Kiln's subset, with what to say about them.
    static let unsupportedTypes: [String: String] = [
        "double": "double precision ('double')",
        "long": "64-bit integers ('long')", "ulong": "64-bit integers ('ulong')",
        "texture1d": "'texture1d'", "texture3d": "'texture3d'", "texturecube": "'texturecube'",
        "texture2d_array": "'texture2d_array'", "depth2d": "'depth2d'", "texture2d_ms": "'texture2d_ms'",
        "atomic_int": "atomics", "atomic_uint": "atomics", "atomic_float": "atomics",
        "bfloat": "'bfloat'",
    ]

    /// Builds `T`N from a scalar and a count (1 → the scalar itself).
    static func vector(_ kind: ScalarKind, _ count: Int) -> KType {
        count == 1 ? .scalar(kind) : .vector(kind, count)
    }

    /// The MSL spelling of a type, as diagnostics print it: `float4`, `half3x3`, `float[4]`,
    /// `VertexOut`, `texture2d<half>`, `SwiftUI::Layer`, `device const float *`.
    static func spelling(_ type: KType, structs: [StructInfo]) -> String {
        switch type {
        case .void: return "void"
        case .scalar(let s): return s.rawValue
        case .vector(let s, let n): return "\(s.rawValue)\(n)"
        case .matrix(let s, let c, let r): return "\(s.rawValue)\(c)x\(r)"
        case .array(let element, let n): return "\(spelling(element, structs: structs))[\(n)]"
        case .structure(let index): return index < structs.count ? structs[index].name : "struct"
        case .texture(let s, let access):
            return access == .sample ? "texture2d<\(s.rawValue)>" : "texture2d<\(s.rawValue), access::\(access.rawValue)>"
        case .sampler: return "sampler"
        case .layer: return "SwiftUI::Layer"
        case .pointer(let pointee, let space): return "\(space.rawValue) \(spelling(pointee, structs: structs)) *"
        }
    }

    /// The spelling of a type as written in the source (for `CheckedParameter.typeSpelling`).
    static func spelling(of name: TypeName) -> String {
        // Most parameters are a plain name (`float2`): that name itself, no string built
        // (`joined` and the appends were 0.4 % of a median compile).
        if name.path.count == 1, name.addressSpace == nil, !name.isConst, name.genericArguments.isEmpty,
           name.indirection == .none {
            return name.path[0]
        }
        var text = ""
        if let space = name.addressSpace { text += space.rawValue + " " }
        if name.isConst { text += "const " }
        text += name.path.joined(separator: "::")
        if !name.genericArguments.isEmpty {
            let arguments = name.genericArguments.map { argument -> String in
                switch argument {
                case .type(let t): return spelling(of: t)
                case .expression(let e): return expressionSpelling(e)
                }
            }
            text += "<" + arguments.joined(separator: ", ") + ">"
        }
        switch name.indirection {
        case .none: break
        case .pointer: text += " *"
        case .reference: text += " &"
        }
        return text
    }

    /// Short text of simple attribute/generic arguments (`0`, `uv`, `access::read`).
    static func expressionSpelling(_ expression: Expression) -> String {
        switch expression.kind {
        case .integerLiteral(let v, let suffix): return "\(v)\(suffix)"
        case .floatLiteral(let v, let suffix): return "\(v)\(suffix)"
        case .booleanLiteral(let b): return b ? "true" : "false"
        case .identifier(let path): return path.joined(separator: "::")
        default: return "…"
        }
    }
}
