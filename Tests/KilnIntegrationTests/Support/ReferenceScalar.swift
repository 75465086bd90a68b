import KilnLanguage

/// One 32-bit component of a value in the reference evaluator. `short`/`ushort` are kept
/// as `int`/`uint` already truncated to 16 bits; `half` is a `float`.
enum ReferenceScalar: Hashable, CustomStringConvertible {
    case bool(Bool)
    case int(Int32)
    case uint(UInt32)
    case float(Float)

    /// The zero of a scalar kind.
    static func zero(_ kind: ScalarKind) -> ReferenceScalar {
        switch kind {
        case .bool: return .bool(false)
        case .int, .short, .char: return .int(0)
        case .uint, .ushort, .uchar: return .uint(0)
        case .float, .half: return .float(0)
        }
    }

    /// Builds a scalar of `kind` from the 32 bits a register or buffer word holds.
    init(bits: UInt32, kind: ScalarKind) {
        switch kind {
        case .bool: self = .bool(bits != 0)
        case .int, .short, .char: self = .int(Int32(bitPattern: bits))
        case .uint, .ushort, .uchar: self = .uint(bits)
        case .float, .half: self = .float(Float(bitPattern: bits))
        }
    }

    init(_ constant: ConstantValue) {
        switch constant {
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .uint(let u): self = .uint(u)
        case .float(let f): self = .float(f)
        }
    }

    /// The register bit pattern (bools are 0 or 1).
    var bits: UInt32 {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return UInt32(bitPattern: i)
        case .uint(let u): return u
        case .float(let f): return f.bitPattern
        }
    }

    var floatValue: Float {
        switch self {
        case .float(let f): return f
        case .int(let i): return Float(i)
        case .uint(let u): return Float(u)
        case .bool(let b): return b ? 1 : 0
        }
    }

    var intValue: Int32 {
        switch self {
        case .int(let i): return i
        case .uint(let u): return Int32(bitPattern: u)
        case .bool(let b): return b ? 1 : 0
        case .float(let f): return ReferenceScalar.saturatingInt(f)
        }
    }

    var uintValue: UInt32 {
        switch self {
        case .uint(let u): return u
        case .int(let i): return UInt32(bitPattern: i)
        case .bool(let b): return b ? 1 : 0
        case .float(let f): return ReferenceScalar.saturatingUInt(f)
        }
    }

    var boolValue: Bool {
        switch self {
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .uint(let u): return u != 0
        case .float(let f): return f != 0   // NaN is "true", as in C
        }
    }

    /// An index value as a wide integer (negative stays negative, so it is out of range).
    var indexValue: Int64 {
        switch self {
        case .int(let i): return Int64(i)
        case .uint(let u): return Int64(u)
        case .bool(let b): return b ? 1 : 0
        case .float(let f): return Int64(ReferenceScalar.saturatingInt(f))
        }
    }

    /// language.md §7: float→int truncates toward zero, saturates, NaN → 0.
    static func saturatingInt(_ f: Float) -> Int32 {
        if f.isNaN { return 0 }
        if f >= 2147483648.0 { return .max }
        if f <= -2147483648.0 { return .min }
        return Int32(f.rounded(.towardZero))
    }

    /// float→uint: toward zero, negative → 0, saturates, NaN → 0.
    static func saturatingUInt(_ f: Float) -> UInt32 {
        if f.isNaN || f <= 0 { return 0 }
        if f >= 4294967296.0 { return .max }
        return UInt32(f.rounded(.towardZero))
    }

    /// Converts to `kind` with MSL (C) conversion rules and Kiln's defined edge cases.
    func converted(to kind: ScalarKind) -> ReferenceScalar {
        switch kind {
        case .bool: return .bool(boolValue)
        case .float, .half: return .float(floatValue)
        case .int: return .int(intValue)
        case .uint: return .uint(uintValue)
        case .short: return .int(Int32(Int16(truncatingIfNeeded: intValue)))
        case .ushort: return .uint(uintValue & 0xFFFF)
        case .char: return .int(Int32(Int8(truncatingIfNeeded: intValue)))
        case .uchar: return .uint(uintValue & 0xFF)
        }
    }

    var description: String {
        switch self {
        case .bool(let b): return "\(b)"
        case .int(let i): return "\(i)"
        case .uint(let u): return "\(u)u"
        case .float(let f): return "\(f) (0x\(String(f.bitPattern, radix: 16)))"
        }
    }
}
