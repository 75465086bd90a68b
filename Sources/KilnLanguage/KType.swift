/// Scalar element types of the language. `half` is computed as binary32.
public enum ScalarKind: String, Hashable, Sendable, CaseIterable {
    case bool, int, uint, short, ushort, char, uchar, float, half

    public var isFloat: Bool { self == .float || self == .half }
    public var isInteger: Bool { self == .int || self == .uint || isSmallInteger }
    public var isSigned: Bool { self == .int || self == .short || self == .char }
    /// 8- and 16-bit integers: computed as `int` (C's integral promotion) and narrowed,
    /// wrapping, when stored.
    public var isSmallInteger: Bool { self == .short || self == .ushort || self == .char || self == .uchar }
}

/// `texture2d<T, access::…>` access qualifiers.
public enum TextureAccess: String, Hashable, Sendable {
    case sample, read, write
    case readWrite = "read_write"

    /// `read(uint2)` is allowed.
    public var canRead: Bool { self == .read || self == .readWrite }
    /// `write(value, uint2)` is allowed (kernel functions only).
    public var canWrite: Bool { self == .write || self == .readWrite }
}

/// A resolved type, as semantic analysis assigns it to every expression.
public enum KType: Hashable, Sendable {
    case void
    case scalar(ScalarKind)
    /// `floatN`, 2 ≤ N ≤ 4.
    case vector(ScalarKind, Int)
    /// `floatCxR`: `columns` column vectors of `rows` components (column-major).
    case matrix(ScalarKind, columns: Int, rows: Int)
    /// `T name[N]` or `array<T, N>`.
    indirect case array(KType, Int)
    /// Index into `CheckedProgram.structs`.
    case structure(Int)
    /// `texture2d<element, access>`.
    case texture(ScalarKind, TextureAccess)
    case sampler
    /// `SwiftUI::Layer`.
    case layer
    /// A pointer parameter (`device const float *`, `constant Vertex *`): indexable, read-only.
    indirect case pointer(KType, AddressSpace)

    /// A `thread T *`: points at the caller's locals (an argument `&x`, or an array).
    public var isThreadPointer: Bool {
        if case .pointer(_, .thread) = self { return true }
        return false
    }

    public static let float = KType.scalar(.float)
    public static let half = KType.scalar(.half)
    public static let int = KType.scalar(.int)
    public static let uint = KType.scalar(.uint)
    public static let bool = KType.scalar(.bool)

    /// Element scalar of scalars, vectors and matrices.
    public var scalarKind: ScalarKind? {
        switch self {
        case .scalar(let s), .vector(let s, _), .matrix(let s, _, _): return s
        default: return nil
        }
    }

    /// Number of 32-bit components of a value of this type when scalarized, given the
    /// program's structs (resources count as 0). Saturates at `KType.maxComponentCount`, and
    /// takes constant time for structs (their counts are computed once, when declared), so
    /// hostile nesting (`struct S40 { S39 a; S39 b; }`, 2⁴⁰ floats) costs nothing to measure
    /// and is refused by the register limit.
    public func componentCount(structs: [StructInfo]) -> Int {
        switch self {
        case .void, .texture, .sampler, .layer, .pointer: return 0
        case .scalar: return 1
        case .vector(_, let n): return n
        case .matrix(_, let c, let r): return c * r
        case .array(let element, let n):
            let (product, overflow) = n.multipliedReportingOverflow(by: element.componentCount(structs: structs))
            return overflow ? Self.maxComponentCount : min(product, Self.maxComponentCount)
        case .structure(let index): return structs[index].componentCount
        }
    }

    /// Where component counts saturate: far past every register limit, so a saturated count
    /// is always refused, and small enough that sums of a few never overflow.
    public static let maxComponentCount = 1 << 40

    /// The saturating sum of component counts (for struct fields).
    static func componentSum(_ counts: [Int]) -> Int {
        counts.reduce(0) { min($0 + $1, maxComponentCount) }
    }
}

/// A struct after checking.
public struct StructInfo: Hashable, Sendable {
    public struct Field: Hashable, Sendable {
        public var name: String
        public var type: KType
        /// Attributes as the checker read them: `position`, `user(uv)`, `flat`, `attribute(0)`, `color(0)`.
        public var attributes: [EntryAttribute]
        public init(name: String, type: KType, attributes: [EntryAttribute]) {
            self.name = name
            self.type = type
            self.attributes = attributes
        }
    }
    public var name: String
    public var fields: [Field]
    public var range: SourceRange
    /// Components of a value of the struct (saturating; `KType.componentCount`).
    public var componentCount: Int
    /// `structs` are the structs declared before this one (its fields can only use those).
    public init(name: String, fields: [Field], range: SourceRange, structs: [StructInfo]) {
        self.name = name
        self.fields = fields
        self.range = range
        self.componentCount = KType.componentSum(fields.map { $0.type.componentCount(structs: structs) })
    }
}

extension KType {
    /// The MSL spelling, as diagnostics print it (`float4`, `half3x3`, `float[4]`, `Ray`).
    public func spelling(structs: [StructInfo]) -> String {
        TypeResolver.spelling(self, structs: structs)
    }
}
