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
        switch name {
        case "void": return .void
        case "sampler": return .sampler
        // C spellings that also name the 32/16/8-bit scalars.
        case "unsigned", "unsigned int", "uint32_t": return .uint
        case "int32_t": return .int
        case "int16_t": return .scalar(.short)
        case "uint16_t", "unsigned short": return .scalar(.ushort)
        case "int8_t", "signed char": return .scalar(.char)
        case "uint8_t", "unsigned char": return .scalar(.uchar)
        default: break
        }
        var name = name
        return name.withUTF8 { bytes -> KType? in
            /// Where `word` starts `bytes` (at `from`), the index after it.
            func skip(_ word: StaticString, from: Int) -> Int? {
                let count = word.utf8CodeUnitCount
                guard bytes.count - from >= count else { return nil }
                for k in 0..<count where bytes[from + k] != word.utf8Start[k] { return nil }
                return from + count
            }
            // Prefix: none, vector_ and packed_ (vectors), simd_ (vectors, matrices), matrix_.
            var index = 0
            var allowsScalar = false, allowsVector = false, allowsMatrix = false
            if let after = skip("vector_", from: 0) ?? skip("packed_", from: 0) {
                index = after
                allowsVector = true
            } else if let after = skip("simd_", from: 0) {
                index = after
                allowsVector = true
                allowsMatrix = true
            } else if let after = skip("matrix_", from: 0) {
                index = after
                allowsMatrix = true
            } else {
                allowsScalar = true
                allowsVector = true
                allowsMatrix = true
            }
            // The scalar's name, then nothing, a size, or columns `x` rows.
            let scalarStart = index
            while index < bytes.count, !(48...57).contains(bytes[index]) { index += 1 }
            guard index > scalarStart,
                  let kind = ScalarKind(rawValue: String(decoding: bytes[scalarStart..<index], as: UTF8.self)) else { return nil }
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
