import Synchronization

/// One concrete overload of a builtin function: `clamp(float3, float, float) -> float3`.
struct BuiltinOverload: Sendable {
    let builtin: Builtin
    let parameters: [KType]
    let result: KType
    /// Parameters passed as `thread T &` (an lvalue is required and written), e.g. `modf`'s second.
    let referenceParameters: [Bool]
    /// Builtins have no default arguments (one `nil` per parameter, shared by every call).
    let noDefaults: [TypedExpression?]

    /// The parameters as `ScalarShapeCode`s, for ranking without touching the arrays above;
    /// nil when a parameter is by reference or not a scalar or vector (`transpose`, `modf`).
    let shapes: ScalarShapeCode.Signature?

    init(builtin: Builtin, parameters: [KType], result: KType, referenceParameters: [Bool],
         noDefaults: [TypedExpression?]) {
        self.builtin = builtin
        self.parameters = parameters
        self.result = result
        self.referenceParameters = referenceParameters
        self.noDefaults = noDefaults
        self.shapes = referenceParameters.contains(true) ? nil : ScalarShapeCode.signature(of: parameters)
    }
}

/// The builtin functions' overloads as one declarative table (language.md §6).
///
/// Each row is a generic signature over a family of types `T`; expanding the rows gives the
/// concrete overloads MSL declares, which the checker ranks like user overloads.
enum BuiltinOverloads {
    /// The types `T` of a row ranges over.
    enum Family {
        /// float and half scalars and vectors.
        case floating
        /// float and half vectors (geometry, vector/scalar mixes).
        case floatingVector
        /// float3 and half3 (`cross`).
        case floating3
        /// float, half, int and uint scalars and vectors.
        case numeric
        /// float, half, int and uint vectors.
        case numericVector
        /// Everything `select` picks between: numeric and bool, scalars and vectors.
        case selectable
        /// bool and boolN.
        case boolean
        /// Every float/half matrix.
        case matrix
        /// Square float/half matrices.
        case squareMatrix

        var types: [KType] {
            func scalarsAndVectors(_ kinds: [ScalarKind], sizes: ClosedRange<Int>) -> [KType] {
                kinds.flatMap { kind in sizes.map { TypeResolver.vector(kind, $0) } }
            }
            switch self {
            case .floating: return scalarsAndVectors([.float, .half], sizes: 1...4)
            case .floatingVector: return scalarsAndVectors([.float, .half], sizes: 2...4)
            case .floating3: return [.vector(.float, 3), .vector(.half, 3)]
            case .numeric: return scalarsAndVectors([.float, .half, .int, .uint], sizes: 1...4)
            case .numericVector: return scalarsAndVectors([.float, .half, .int, .uint], sizes: 2...4)
            case .selectable: return scalarsAndVectors([.float, .half, .int, .uint, .bool], sizes: 1...4)
            case .boolean: return scalarsAndVectors([.bool], sizes: 1...4)
            case .matrix:
                return [ScalarKind.float, .half].flatMap { kind in
                    (2...4).flatMap { c in (2...4).map { r in KType.matrix(kind, columns: c, rows: r) } }
                }
            case .squareMatrix:
                return [ScalarKind.float, .half].flatMap { kind in (2...4).map { KType.matrix(kind, columns: $0, rows: $0) } }
            }
        }
    }

    /// A parameter's or result's type in terms of `T`.
    enum Shape {
        /// `T` itself.
        case t
        /// `T`'s element scalar (`float` for `float3`).
        case scalarOfT
        /// `bool` with `T`'s shape (`bool3` for `float3`).
        case boolOfT
        /// Plain `bool`.
        case bool
        /// `thread T &`.
        case referenceT
        /// `T` with rows and columns swapped.
        case transposedT

        func type(for t: KType) -> KType {
            switch self {
            case .t, .referenceT: return t
            case .scalarOfT: return .scalar(t.scalarKind ?? .float)
            case .bool: return .bool
            case .boolOfT:
                if case .vector(_, let n) = t { return .vector(.bool, n) }
                return .bool
            case .transposedT:
                if case .matrix(let kind, let c, let r) = t { return .matrix(kind, columns: r, rows: c) }
                return t
            }
        }
    }

    /// A generic signature: every builtin in `builtins` has it for every `T` in `family`.
    struct Row {
        let builtins: [Builtin]
        let family: Family
        let parameters: [Shape]
        let result: Shape
        init(_ builtins: [Builtin], _ family: Family, _ parameters: [Shape], _ result: Shape) {
            self.builtins = builtins
            self.family = family
            self.parameters = parameters
            self.result = result
        }
    }

    /// The table. Order within a name does not matter: overload ranking decides.
    static let rows: [Row] = [
        // T → T
        Row([.sin, .cos, .tan, .asin, .acos, .atan, .sinh, .cosh, .tanh, .exp, .exp2, .log, .log2, .log10,
             .preciseSin, .preciseCos, .preciseTan, .preciseAsin, .preciseAcos, .preciseAtan,
             .preciseExp, .preciseExp2, .preciseLog, .preciseLog2, .preciseLog10,
             .preciseSinh, .preciseCosh, .preciseTanh,
             .sqrt, .rsqrt, .floor, .ceil, .trunc, .round, .rint, .fract, .saturate, .sign, .fabs,
             .dfdx, .dfdy, .fwidth, .dfdxCoarse, .dfdyCoarse, .fwidthCoarse, .dfdxFine, .dfdyFine, .fwidthFine],
            .floating, [.t], .t),
        Row([.abs], .numeric, [.t], .t),
        // (T, T) → T
        Row([.atan2, .pow, .powr, .preciseAtan2, .precisePow, .precisePowr, .fmod, .step, .fmin, .fmax],
            .floating, [.t, .t], .t),
        Row([.min, .max], .numeric, [.t, .t], .t),
        Row([.min, .max], .numericVector, [.t, .scalarOfT], .t),
        Row([.fmin, .fmax], .floatingVector, [.t, .scalarOfT], .t),
        Row([.step], .floatingVector, [.scalarOfT, .t], .t),
        // (T, T, T) → T
        Row([.clamp, .min3, .max3], .numeric, [.t, .t, .t], .t),
        Row([.clamp], .numericVector, [.t, .scalarOfT, .scalarOfT], .t),
        Row([.mix, .smoothstep, .fma], .floating, [.t, .t, .t], .t),
        Row([.mix], .floatingVector, [.t, .t, .scalarOfT], .t),
        Row([.smoothstep], .floatingVector, [.scalarOfT, .scalarOfT, .t], .t),
        Row([.modf], .floating, [.t, .referenceT], .t),
        // geometry
        Row([.dot, .distance, .distanceSquared], .floatingVector, [.t, .t], .scalarOfT),
        Row([.length, .lengthSquared], .floatingVector, [.t], .scalarOfT),
        Row([.normalize], .floatingVector, [.t], .t),
        Row([.reflect], .floatingVector, [.t, .t], .t),
        Row([.refract], .floatingVector, [.t, .t, .scalarOfT], .t),
        Row([.faceforward], .floatingVector, [.t, .t, .t], .t),
        Row([.cross], .floating3, [.t, .t], .t),
        // relational
        Row([.select], .selectable, [.t, .t, .boolOfT], .t),
        Row([.select], .numericVector, [.t, .t, .bool], .t),
        Row([.all, .any], .boolean, [.t], .bool),
        Row([.isnan, .isinf], .floating, [.t], .boolOfT),
        // matrices
        Row([.transpose], .matrix, [.t], .transposedT),
        Row([.determinant], .squareMatrix, [.t], .scalarOfT),
    ]

    /// Other MSL names of the same builtins (for finite values they compute the same).
    static let aliases: [String: Builtin] = ["fmin3": .min3, "fmax3": .max3]

    /// A builtin's overloads: which builtin a name is, until a program first calls it.
    private enum Entry {
        case notMade(Builtin)
        case made(Made)
    }

    /// How the overloads of one builtin rank against one argument signature: the best
    /// (worst, total) conversion cost, the first overload with it and how many have it
    /// (0: none is viable). What `Checker.callFunction`'s scan of the candidates finds.
    struct Ranking: Sendable {
        var cost: (Int, Int)
        var first: Int
        var ties: Int
    }

    /// Rankings kept per builtin: the signatures real shaders call a builtin with are a
    /// handful, and a source built to call one with every signature cannot grow the table
    /// past this (later signatures are ranked each time, as without the table).
    static let maxRankingsPerBuiltin = 64

    /// A builtin's overloads once made, and its rankings by argument signature. Its
    /// `rankings` are read and written only under `table`'s lock.
    private final class Made: @unchecked Sendable {
        let overloads: [BuiltinOverload]
        /// Every overload has shape codes, so a signature alone decides the ranking.
        let allShaped: Bool
        var rankings: [UInt64: Ranking] = [:]

        init(_ overloads: [BuiltinOverload]) {
            self.overloads = overloads
            allShaped = overloads.allSatisfy { $0.shapes != nil }
        }

        func ranking(_ signature: ScalarShapeCode.Signature) -> Ranking {
            let key = UInt64(signature.codes) | UInt64(signature.count) << 32
            if let known = rankings[key] { return known }
            var ranking = Ranking(cost: (Int.max, Int.max), first: -1, ties: 0)
            ScalarShapeCode.withCostTable { table in
                overloads.withUnsafeBufferPointer { candidates in
                    for index in candidates.indices {
                        guard let shapes = candidates[index].shapes, shapes.count == signature.count,
                              let cost = table.rank(signature, shapes) else { continue }
                        if cost < ranking.cost {
                            ranking = Ranking(cost: cost, first: index, ties: 1)
                        } else if cost == ranking.cost {
                            ranking.ties += 1
                        }
                    }
                }
            }
            if rankings.count < BuiltinOverloads.maxRankingsPerBuiltin { rankings[key] = ranking }
            return ranking
        }
    }

    /// Every builtin that has overloads, by source name (raw values and aliases), with its
    /// overloads once a program of this process has called it. Made all at once, the 2 000-odd
    /// overloads of every builtin were 819 000 instructions of a whole-process
    /// `kiln compile` of a small shader (5.8 M in all), which calls ten builtins
    /// (docs/benchmarks.md). One dictionary, so a call costs one hash; bounded: only builtin
    /// names are in it.
    private static let table = Mutex<[String: Entry]>({
        var table: [String: Entry] = [:]
        table.reserveCapacity(128)
        for row in rows {
            for builtin in row.builtins { table[builtin.rawValue] = .notMade(builtin) }
        }
        for (alias, builtin) in aliases { table[alias] = .notMade(builtin) }
        return table
    }())

    /// The concrete overloads of builtin `name` (`length_squared`, `sin`, `fmin3`, …).
    private static func make(_ name: String, _ builtin: Builtin) -> [BuiltinOverload] {
        var overloads: [BuiltinOverload] = []
        for row in rows where row.builtins.contains(builtin) {
            let references = row.parameters.map { $0 == .referenceT }
            let noDefaults = [TypedExpression?](repeating: nil, count: row.parameters.count)
            for t in row.family.types {
                overloads.append(BuiltinOverload(builtin: builtin, parameters: row.parameters.map { $0.type(for: t) },
                                                 result: row.result.type(for: t), referenceParameters: references,
                                                 noDefaults: noDefaults))
            }
        }
        if aliases[name] != nil {
            // fmin3/fmax3 are float-only in MSL.
            overloads.removeAll { $0.result.scalarKind?.isFloat != true }
        }
        return overloads
    }

    /// The overloads of builtin `name`, empty if it is not a builtin.
    static func overloads(named name: String) -> [BuiltinOverload] {
        overloads(named: name, rankedFor: nil).overloads
    }

    /// The overloads of builtin `name` (empty if it is not a builtin) and, when `signature` is
    /// given and every overload has shape codes, how they rank against it — kept per
    /// signature, so a call of `max(float, float)` ranks 28 overloads once per process
    /// instead of once per call.
    static func overloads(named name: String, rankedFor signature: ScalarShapeCode.Signature?)
        -> (overloads: [BuiltinOverload], ranking: Ranking?) {
        table.withLock { table in
            let made: Made
            switch table[name] {
            case nil: return ([], nil)
            case .made(let known)?: made = known
            case .notMade(let builtin)?:
                // Made under the lock, once per builtin and process (a few µs).
                made = Made(make(name, builtin))
                table[name] = .made(made)
            }
            guard let signature, made.allShaped else { return (made.overloads, nil) }
            return (made.overloads, made.ranking(signature))
        }
    }
}
