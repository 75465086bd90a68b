import KilnBytecode

/// Builtin math over lanes, from `KilnMath`. Plain sin/cos/tan/asin/acos/atan/atan2/exp/exp2/
/// log/log2/log10/pow/sinh/cosh/tanh are the binary32 versions (`FastTrigonometry.swift`,
/// `FastInverseTrigonometry.swift`, `FastExponential.swift`, `FastLogarithm.swift`,
/// `FastHyperbolic.swift`); `precise::` ones evaluate in binary64. Trig runs the branch-free Cody–Waite
/// version over every lane (vectorizable) unless a lane has |x| ≥ 10⁶ or a non-finite x:
/// then every lane takes the any-input function, which gives those lanes the full
/// (Payne–Hanek) reduction and the others the same bits as the vector path.
extension Execution {
    /// The smallest magnitude's bits that need the large-argument trig path (magnitudes'
    /// bits fit in Int32, so signed compares work).
    static let largeTrigMagnitude = Int32(bitPattern: KilnMath.fastReductionLimit.bitPattern)

    /// True if any lane of `b` needs the large-argument trig path.
    @inline(__always) static func anyLargeTrigArgument(_ b: UnsafeMutablePointer<UInt32>, _ n: Int) -> Bool {
        // The largest magnitude's bits (they fit in Int32, so signed compares work). An
        // `any`-style loop (`large |= …`, even a count compared with 0) becomes an
        // early-exit scalar search in LLVM; a max reduction stays a vector loop.
        var largest: Int32 = 0
        for l in 0..<n {
            let magnitude = Int32(bitPattern: b[l] & 0x7FFF_FFFF)
            largest = magnitude > largest ? magnitude : largest
        }
        return largest >= largeTrigMagnitude
    }

    /// True when a batch's lanes all hold lane 0's bits — operands the compiler could not
    /// prove uniform but that are at run time: an fbm octave's lattice cell covers whole
    /// tiles, so its hash arguments repeat in every lane. Then a transcendental is
    /// computed once and broadcast (`broadcast`): the same bits, 1/`laneCount` of the work. The test
    /// is a max reduction (a vector loop) of about a hundredth of a sine's cost; one lane
    /// (`n == 1`, a scalar step) skips it.
    @inline(__always) static func sameInAllLanes(_ b: UnsafeMutablePointer<UInt32>, _ n: Int) -> Bool {
        guard n == laneCount else { return false }
        let first = b[0]
        var difference: UInt32 = 0
        for l in 0..<laneCount { difference = max(difference, b[l] ^ first) }
        return difference == 0
    }

    @inline(__always) static func broadcast(_ value: Float, into a: UnsafeMutablePointer<UInt32>) {
        let bits = value.bitPattern
        for l in 0..<laneCount { a[l] = bits }
    }

    // MARK: fast (binary32) versions: plain `sin`, `cos`, `tan`, `exp`, `exp2`, `asin`, `acos`,
    // `atan`, `atan2`, `log`, `log2`, `log10`, `pow`, `sinh`, `cosh`, `tanh`

    /// What a binary32 trig opcode's operand needs: its lanes all hold lane 0's bits, some
    /// lane needs the large-argument path, or neither.
    enum TrigOperand { case uniform, large, small }

    /// `sameInAllLanes` and `anyLargeTrigArgument` in one loop: two max reductions over one
    /// pass instead of two passes, each ending in its own horizontal reduction and branch —
    /// in fbm those checks were a fifth of a sine's time (perf annotate). Same answers.
    @inline(__always) static func classifyTrigOperand(_ b: UnsafeMutablePointer<UInt32>, _ n: Int) -> TrigOperand {
        guard n == laneCount else { return anyLargeTrigArgument(b, n) ? .large : .small }
        let first = b[0]
        var difference: UInt32 = 0
        var largest: Int32 = 0
        for l in 0..<laneCount {
            difference = max(difference, b[l] ^ first)
            let magnitude = Int32(bitPattern: b[l] & 0x7FFF_FFFF)
            largest = magnitude > largest ? magnitude : largest
        }
        if difference == 0 { return .uniform }
        return largest >= largeTrigMagnitude ? .large : .small
    }

    /// A binary32 trig function over lanes: `small` (branch-free, vectorizes) when every
    /// lane is in the fast range, else `any` on every lane; once when all lanes agree.
    @inline(__always) static func fastTrig(_ m: Machine, _ i: PreparedInstruction, _ n: Int,
                                           _ small: (Float) -> Float, _ any: (Float) -> Float) {
        let a = m[i.a], b = m[i.b]
        switch classifyTrigOperand(b, n) {
        case .uniform: broadcast(any(f(b[0])), into: a)
        case .large: for l in 0..<n { a[l] = any(f(b[l])).bitPattern }
        case .small: for l in 0..<n { a[l] = small(f(b[l])).bitPattern }
        }
    }
    /// A function defined everywhere over lanes (binary32 exp, asin…, and the binary64
    /// `precise::` ones); once when all lanes agree.
    @inline(__always) static func unary(_ m: Machine, _ i: PreparedInstruction, _ n: Int,
                                        _ function: (Float) -> Float) {
        let a = m[i.a], b = m[i.b]
        if sameInAllLanes(b, n) { broadcast(function(f(b[0])), into: a); return }
        for l in 0..<n { a[l] = function(f(b[l])).bitPattern }
    }
    /// The same for a function of two operands (atan2, `precise::pow`); once when both agree.
    @inline(__always) static func binary(_ m: Machine, _ i: PreparedInstruction, _ n: Int,
                                         _ function: (Float, Float) -> Float) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        if sameInAllLanes(b, n) && sameInAllLanes(c, n) { broadcast(function(f(b[0]), f(c[0])), into: a); return }
        for l in 0..<n { a[l] = function(f(b[l]), f(c[l])).bitPattern }
    }
    @inline(__always) static func fsin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        fastTrig(m, i, n, KilnMath.fastSin, KilnMath.fastSinAny)
    }
    @inline(__always) static func fcos(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        fastTrig(m, i, n, KilnMath.fastCos, KilnMath.fastCosAny)
    }
    @inline(__always) static func ftan(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        fastTrig(m, i, n, KilnMath.fastTan, KilnMath.fastTanAny)
    }
    @inline(__always) static func fexp(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastExp)
    }
    @inline(__always) static func fexp2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastExp2)
    }
    @inline(__always) static func fasin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastAsin)
    }
    @inline(__always) static func facos(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastAcos)
    }
    @inline(__always) static func fatan(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastAtan)
    }
    @inline(__always) static func fsinh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastSinh)
    }
    @inline(__always) static func fcosh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastCosh)
    }
    @inline(__always) static func ftanh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.fastTanh)
    }
    /// True when every lane of `b` holds a positive, finite, normal float: as signed
    /// integers those are exactly the bit patterns in [2⁻¹²⁶'s, ∞'s). Min and max reductions
    /// (vector loops, unlike an early-exit search).
    @inline(__always) static func allPositiveNormal(_ b: UnsafeMutablePointer<UInt32>, _ n: Int) -> Bool {
        var lowest = Int32.max, highest = Int32.min
        for l in 0..<n {
            let v = Int32(bitPattern: b[l])
            lowest = min(lowest, v)
            highest = max(highest, v)
        }
        return lowest >= Int32(bitPattern: Float.leastNormalMagnitude.bitPattern) && highest < Int32(bitPattern: Float.infinity.bitPattern)
    }
    /// True when no lane of `b` holds ±∞ or NaN.
    @inline(__always) static func allFinite(_ b: UnsafeMutablePointer<UInt32>, _ n: Int) -> Bool {
        var largest: UInt32 = 0
        for l in 0..<n { largest = max(largest, b[l] & 0x7FFF_FFFF) }
        return largest < Float.infinity.bitPattern
    }

    /// A logarithm over lanes: when every lane is positive and normal (shaders take logs of
    /// such values), the polynomial alone — the special cases' selects and the subnormal
    /// scaling were half the lane loop — else `any` on every lane. Same bits either way.
    @inline(__always) static func fastLogarithm(_ m: Machine, _ i: PreparedInstruction, _ n: Int,
                                                _ positive: (Float) -> Float, _ any: (Float) -> Float) {
        let a = m[i.a], b = m[i.b]
        if sameInAllLanes(b, n) { broadcast(any(f(b[0])), into: a); return }
        if allPositiveNormal(b, n) {
            for l in 0..<n { a[l] = positive(f(b[l])).bitPattern }
        } else {
            for l in 0..<n { a[l] = any(f(b[l])).bitPattern }
        }
    }
    @inline(__always) static func flog(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        fastLogarithm(m, i, n, { KilnMath.fastLogPositive($0) }, KilnMath.fastLog)
    }
    @inline(__always) static func flog2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        fastLogarithm(m, i, n, { KilnMath.fastLog2Positive($0) }, KilnMath.fastLog2)
    }
    @inline(__always) static func flog10(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        fastLogarithm(m, i, n, { KilnMath.fastLog10Positive($0) }, KilnMath.fastLog10)
    }
    @inline(__always) static func fatan2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        binary(m, i, n, KilnMath.fastAtan2)
    }
    /// pow over lanes: with every base positive and normal and every exponent finite, the
    /// core alone (`fastPowMagnitude` is `fastPow` there, bit for bit); else every special case.
    @inline(__always) static func fpow(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        if sameInAllLanes(b, n) && sameInAllLanes(c, n) { broadcast(KilnMath.fastPow(f(b[0]), f(c[0])), into: a); return }
        if allPositiveNormal(b, n) && allFinite(c, n) {
            for l in 0..<n { a[l] = KilnMath.fastPowMagnitude(f(b[l]), f(c[l]), normal: true).bitPattern }
        } else {
            for l in 0..<n { a[l] = KilnMath.fastPow(f(b[l]), f(c[l])).bitPattern }
        }
    }

    // MARK: precise (binary64) versions: `precise::sin` …

    @inline(__always) static func psin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        switch classifyTrigOperand(b, n) {
        case .uniform: broadcast(KilnMath.sin(f(b[0])), into: a)
        // One lane (a uniform instruction, `scalarStep`) or a huge argument: the scalar
        // function lane by lane, the same bits without the two passes through scratch.
        case .large: for l in 0..<n { a[l] = KilnMath.sin(f(b[l])).bitPattern }
        case .small where n == 1: a[0] = KilnMath.sin(f(b[0])).bitPattern
        case .small: sinOrCosSmall(a, b, m.scratch, cosine: false, n)
        }
    }
    @inline(__always) static func pcos(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        switch classifyTrigOperand(b, n) {
        case .uniform: broadcast(KilnMath.cos(f(b[0])), into: a)
        case .large: for l in 0..<n { a[l] = KilnMath.cos(f(b[l])).bitPattern }
        case .small where n == 1: a[0] = KilnMath.cos(f(b[0])).bitPattern
        case .small: sinOrCosSmall(a, b, m.scratch, cosine: true, n)
        }
    }

    /// sin or cos of lanes that are all below `fastReductionLimit`, in two passes.
    ///
    /// A vectorized `sinSmall` evaluates both the sine and the cosine polynomial for every
    /// lane and selects by quadrant parity — half the work wasted. Pass 1 reduces all lanes
    /// into scratch (r as binary64, quadrant) and counts odd quadrants. When the batch agrees
    /// on the parity (common: neighbouring pixels' arguments are close), pass 2 evaluates
    /// only the polynomial it needs; otherwise it selects per lane as before. Same functions,
    /// same order, so the bits equal `KilnMath.sin`/`cos`. Scratch: 3 words per lane.
    @inline(__always) static func sinOrCosSmall(_ a: UnsafeMutablePointer<UInt32>, _ b: UnsafeMutablePointer<UInt32>,
                                                _ scratch: UnsafeMutablePointer<UInt32>, cosine: Bool,
                                                _ n: Int) {
        let reduced = UnsafeMutableRawPointer(scratch)            // laneCount binary64 values
        let quadrant = scratch + 2 * laneCount
        var odd: Int32 = 0
        for l in 0..<n {
            let (r, q) = KilnMath.reduceSmall(f(b[l]))
            reduced.storeBytes(of: r, toByteOffset: l &* 8, as: Double.self)
            quadrant[l] = UInt32(truncatingIfNeeded: q)
            odd &+= Int32(truncatingIfNeeded: q & 1)
        }
        // sin uses the sine polynomial on even quadrants, cos on odd ones (and vice versa).
        if odd == 0 || odd == Int32(n) {
            // Negate in quadrants 2, 3 (sin) or 1, 2 (cos): `KilnMath.sin/cos(reduced:quadrant:)`.
            let shift: UInt32 = cosine ? 1 : 0
            if (odd == 0) != cosine {
                for l in 0..<n {
                    let value = KilnMath.sinPolynomial(reduced.load(fromByteOffset: l &* 8, as: Double.self))
                    a[l] = Float((quadrant[l] &+ shift) & 2 == 0 ? value : -value).bitPattern
                }
            } else {
                for l in 0..<n {
                    let value = KilnMath.cosPolynomial(reduced.load(fromByteOffset: l &* 8, as: Double.self))
                    a[l] = Float((quadrant[l] &+ shift) & 2 == 0 ? value : -value).bitPattern
                }
            }
        } else if cosine {
            for l in 0..<n {
                let r = reduced.load(fromByteOffset: l &* 8, as: Double.self)
                a[l] = KilnMath.cos(reduced: r, quadrant: UInt64(quadrant[l])).bitPattern
            }
        } else {
            for l in 0..<n {
                let r = reduced.load(fromByteOffset: l &* 8, as: Double.self)
                a[l] = KilnMath.sin(reduced: r, quadrant: UInt64(quadrant[l])).bitPattern
            }
        }
    }
    @inline(__always) static func ptan(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        switch classifyTrigOperand(b, n) {
        case .uniform: broadcast(KilnMath.tan(f(b[0])), into: a)
        case .large: for l in 0..<n { a[l] = KilnMath.tan(f(b[l])).bitPattern }
        case .small: for l in 0..<n { a[l] = KilnMath.tanSmall(f(b[l])).bitPattern }
        }
    }
    @inline(__always) static func pasin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.asin)
    }
    @inline(__always) static func pacos(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.acos)
    }
    @inline(__always) static func patan(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.atan)
    }
    @inline(__always) static func patan2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        binary(m, i, n, KilnMath.atan2)
    }
    @inline(__always) static func psinh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.sinh)
    }
    @inline(__always) static func pcosh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.cosh)
    }
    @inline(__always) static func ptanh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.tanh)
    }
    @inline(__always) static func pexp(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.exp)
    }
    @inline(__always) static func pexp2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.exp2)
    }
    @inline(__always) static func plog(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.log)
    }
    @inline(__always) static func plog2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.log2)
    }
    @inline(__always) static func plog10(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        unary(m, i, n, KilnMath.log10)
    }
    @inline(__always) static func ppow(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        binary(m, i, n, KilnMath.pow)
    }
    /// Exact: `quickFmod` a group of lanes at a time, and the long division of significands for
    /// the lanes it cannot do (quotients of 2²³ and more, special values), computed from the
    /// group's operands before its result is stored — the destination may be an operand.
    /// Shader art's `fmod(angle, sector)` and `fmod(p, cell)` are all quick lanes. A scalar
    /// step (one lane) takes the long division.
    static func fmod(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        guard n == laneCount else {
            for l in 0..<n { a[l] = KilnMath.fmod(f(b[l]), f(c[l])).bitPattern }
            return
        }
        groups(m, i, of: Float.self) { xs, ys in
            var (value, valid) = KilnMath.quickFmod(xs, ys)
            if !all(valid) {
                for lane in 0..<FloatGroup.scalarCount where !valid[lane] {
                    value[lane] = KilnMath.fmod(xs[lane], ys[lane])
                }
            }
            return value
        }
    }
}
