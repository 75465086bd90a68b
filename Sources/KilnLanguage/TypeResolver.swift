/// Names of the language's built-in types and the spelling of resolved types in messages.
///
/// The table maps every spelling of a scalar, vector or matrix type (`float2`,
/// `vector_float2`, `simd_float2`, `packed_float2`, `float3x3`, `simd_float3x3`, …) to its
/// `KType`. Program-defined names (structs, enums, aliases) live in the checker.
enum TypeResolver {
    /// Every built-in scalar/vector/matrix type name.
    static let builtinTypes: [String: KType] = {
        var table: [String: KType] = [:]
        table.reserveCapacity(200)
        let scalars: [(String, ScalarKind)] = [
            ("bool", .bool), ("int", .int), ("uint", .uint), ("short", .short), ("ushort", .ushort),
            ("char", .char), ("uchar", .uchar), ("float", .float), ("half", .half),
        ]
        for (name, kind) in scalars {
            table[name] = .scalar(kind)
            // Concatenation, not interpolation (cheaper; this table is made in every process).
            for (n, digit) in [(2, "2"), (3, "3"), (4, "4")] {
                let vector = KType.vector(kind, n)
                table[name + digit] = vector
                table["vector_" + name + digit] = vector
                table["simd_" + name + digit] = vector
                table["packed_" + name + digit] = vector
            }
        }
        // C spellings that also name the 32/16-bit scalars.
        table["unsigned"] = .uint
        table["unsigned int"] = .uint
        table["int32_t"] = .int
        table["uint32_t"] = .uint
        table["int16_t"] = .scalar(.short)
        table["uint16_t"] = .scalar(.ushort)
        table["unsigned short"] = .scalar(.ushort)
        table["int8_t"] = .scalar(.char)
        table["uint8_t"] = .scalar(.uchar)
        table["signed char"] = .scalar(.char)
        table["unsigned char"] = .scalar(.uchar)
        for kind in [ScalarKind.float, .half] {
            for (c, columns) in [(2, "2"), (3, "3"), (4, "4")] {
                for (r, rows) in [(2, "2"), (3, "3"), (4, "4")] {
                    let matrix = KType.matrix(kind, columns: c, rows: r)
                    let name = kind.rawValue + columns + "x" + rows
                    table[name] = matrix
                    table["simd_" + name] = matrix
                    table["matrix_" + name] = matrix
                }
            }
        }
        table["void"] = .void
        table["sampler"] = .sampler
        return table
    }()

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
