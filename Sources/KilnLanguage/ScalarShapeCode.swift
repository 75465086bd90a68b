/// Scalar and vector types as small integers, so that ranking a call against a builtin's
/// overloads is table lookups on trivial values.
///
/// Ranking on `KType`s read every candidate's parameter and reference arrays out of its
/// `BuiltinOverload` — a retain and a release each — and compared enums case by case:
/// `max(a, 1.0)` ranks 28 overloads, and overload ranking was a quarter of checking a
/// median shader (docs/benchmarks.md, "thirty-sixth session"). The codes cover exactly the
/// types whose conversion cost depends on the two types alone (scalars and 2…4-vectors),
/// and `CostTable` is `Checker.conversionCost` itself, tabulated once, so both rankings give
/// the same answer; any other type falls back to ranking on `KType`s.
enum ScalarShapeCode {
    /// Up to `Signature.maxCount` codes, one byte each, first parameter lowest, and the count.
    struct Signature: Sendable {
        static let maxCount = 4
        var codes: UInt32
        var count: Int
    }

    /// 1 + scalar kind × 4 + (components − 1): 1…36, 0 for every other type.
    static func code(of type: KType) -> UInt8 {
        switch type {
        case .scalar(let kind): return 1 + UInt8(kindIndex(kind)) * 4
        case .vector(let kind, let n) where n >= 2 && n <= 4: return 1 + UInt8(kindIndex(kind)) * 4 + UInt8(n - 1)
        default: return 0
        }
    }

    /// The codes of `types`, nil when there are too many or one has no code.
    static func signature(of types: [KType]) -> Signature? {
        signature(count: types.count) { types[$0] }
    }

    /// The codes of the types of `arguments`, without making an array of the types.
    static func signature(of arguments: [TypedExpression]) -> Signature? {
        signature(count: arguments.count) { arguments[$0].type }
    }

    @inline(__always)
    private static func signature(count: Int, _ type: (Int) -> KType) -> Signature? {
        guard count <= Signature.maxCount else { return nil }
        var codes: UInt32 = 0
        for index in 0..<count {
            let c = code(of: type(index))
            guard c != 0 else { return nil }
            codes |= UInt32(c) << (8 * UInt32(index))
        }
        return Signature(codes: codes, count: count)
    }

    /// `Checker.conversionCost(from:to:)` for every pair of codes, to rank with.
    struct CostTable {
        fileprivate let costs: UnsafeBufferPointer<Int8>

        /// (worst, total) cost of converting arguments of `arguments`' types to parameters of
        /// `parameters`' (same count), nil when some argument does not convert: `rank`'s answer.
        @inline(__always)
        func rank(_ arguments: Signature, _ parameters: Signature) -> (Int, Int)? {
            var worst = 0, total = 0
            for index in 0..<arguments.count {
                let shift = UInt32(8 * index)
                let from = Int((arguments.codes >> shift) & 0xFF), to = Int((parameters.codes >> shift) & 0xFF)
                let c = Int(costs[from &* 64 &+ to])
                guard c >= 0 else { return nil }
                worst = max(worst, c)
                total += c
            }
            return (worst, total)
        }
    }

    /// Runs `body` with the cost table (fetched once per call, not once per candidate: every
    /// read of a lazily made `static let` goes through `swift_once`).
    @inline(__always)
    static func withCostTable<R>(_ body: (CostTable) -> R) -> R {
        costs.withUnsafeBufferPointer { body(CostTable(costs: $0)) }
    }

    /// `Checker.conversionCost(from:to:)` for every pair of codes (row: from), −1 for none.
    private static let costs: [Int8] = {
        var table = [Int8](repeating: -1, count: 64 * 64)
        let types: [KType] = ScalarKind.allCases.flatMap { kind in
            [KType.scalar(kind)] + (2...4).map { KType.vector(kind, $0) }
        }
        for from in types {
            for to in types {
                if let cost = Checker.conversionCost(from: from, to: to) {
                    table[Int(code(of: from)) * 64 + Int(code(of: to))] = Int8(cost)
                }
            }
        }
        return table
    }()

    private static func kindIndex(_ kind: ScalarKind) -> Int {
        switch kind {
        case .bool: return 0
        case .int: return 1
        case .uint: return 2
        case .short: return 3
        case .ushort: return 4
        case .char: return 5
        case .uchar: return 6
        case .float: return 7
        case .half: return 8
        }
    }
}
