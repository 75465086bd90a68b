/// pow (C `powf` special cases) and fmod (C `fmodf`, exact).
extension KilnMath {
    /// `x^y`: `|x|^y = 2^(y·log₂|x|)` in binary64 (the product's error, ≤ 2⁻⁴⁴ relative for
    /// results inside the binary32 range, stays far below an ulp), then C99's special cases
    /// as selects: `pow(x, ±0) = 1` and `pow(1, y) = 1` even for NaN, `pow(−1, ±∞) = 1`,
    /// a negative base with an odd integer exponent keeps its sign, with a non-integer
    /// exponent gives NaN; zeros and infinities fall out of the logarithm (log₂ 0 = −∞).
    ///
    /// `@_transparent`, not `@inline(__always)`: with the latter the optimizer still left
    /// `pow` a function of its own, called once per lane from `fpow`'s loop, and that call
    /// was two thirds of a kaleidoscope shader's time.
    @_transparent static func pow(_ x: Float, _ y: Float) -> Float {
        let ax = x.magnitude
        let yd = Double(y)
        let safeBase = (ax > 0 && ax.isFinite) ? ax : 1          // NaN is replaced below
        var logBase = log2Double(Double(safeBase))
        logBase = ax == 0 ? -.infinity : logBase
        logBase = ax == .infinity ? .infinity : logBase
        let exponent = yd * logBase
        // ±∞ × 0 (|x| = 1, y = ±∞) is handled below; keep it from poisoning the value.
        var magnitude = Float(exp2Double(exponent.isNaN ? 0 : exponent))
        magnitude = exponent == .infinity ? .infinity : magnitude
        magnitude = exponent == -.infinity ? 0 : magnitude
        return powSignsAndSpecialCases(x, y, magnitude: magnitude)
    }

    /// `x^y` from `magnitude` = |x|^y (with its zeros and infinities): C99's sign and
    /// special cases as selects, shared by `pow` and `fastPow`.
    @_transparent static func powSignsAndSpecialCases(_ x: Float, _ y: Float, magnitude: Float) -> Float {
        let yIsInteger = truncate(y) == y                      // ±∞ counts as an (even) integer
        let yIsOdd = yIsInteger && y.magnitude < 16_777_216 && truncate(y * 0.5) != y * 0.5
        var result = (x.sign == .minus && yIsOdd) ? -magnitude : magnitude
        result = (x < 0 && !yIsInteger) ? .nan : result
        result = (x.isNaN || y.isNaN) ? .nan : result
        result = (x.magnitude == 1 && y.isInfinite) ? 1 : result   // pow(±1, ±∞) = 1
        result = (x == 1 || y == 0) ? 1 : result
        return result
    }

    /// `fmod(x, y)` the quick way, a group of lanes at a time, for the lanes where it is exact.
    /// With q = |x|/|y| rounded and t = ⌊q⌋, the fused `|x| − t·|y|` rounds once, and a
    /// remainder is always representable, so it is exact when t is the true quotient. Below
    /// 2²³, q is within half of the true quotient and every integer is representable, so
    /// rounding can carry q up across an integer but never down: t is the true quotient or
    /// one more, and one more leaves a negative value, when `|x| − (t − 1)·|y|` is the exact
    /// remainder instead. The sign is x's. `valid` is false for quotients of 2²³ and more and
    /// for NaN, ∞ and zero divisors or NaN and ∞ dividends; the caller uses `fmod` there.
    ///
    /// Why a lane group and binary32: the lane loop this replaces (the same idea in binary64, one
    /// lane at a time) compiled to scalar divisions and a branch per condition — 84 % of a
    /// shader's time with 64 `fmod`s a pixel, 4.4× the `x − y·floor(x/y)` spelled out.
    @inline(__always) static func quickFmod(_ x: LaneGroup<Float>, _ y: LaneGroup<Float>)
        -> (value: LaneGroup<Float>, valid: SIMDMask<LaneGroup<Int32>>) {
        let signBit = LaneGroup<UInt32>(repeating: 0x8000_0000)
        let xBits = unsafeBitCast(x, to: LaneGroup<UInt32>.self)
        let ax = unsafeBitCast(xBits & ~signBit, to: LaneGroup<Float>.self)
        let ay = unsafeBitCast(unsafeBitCast(y, to: LaneGroup<UInt32>.self) & ~signBit, to: LaneGroup<Float>.self)
        let q = ax / ay
        // q < 2²³ is false for NaN and ∞ (a NaN or ∞ x, a NaN or zero y); an ∞ y gives q = 0.
        let valid = (q .< 0x1p23) .& (ay .< .infinity)
        let quotient = q.replacing(with: 0, where: .!valid)
        let magic = LaneGroup<Float>(repeating: 0x1p23)
        var t = (quotient + magic) - magic                      // the nearest integer
        t.replace(with: t - 1, where: t .> quotient)           // truncated
        var remainder = ax.addingProduct(-t, ay)
        remainder.replace(with: ax.addingProduct(1 - t, ay), where: remainder .< 0)
        remainder.replace(with: 0, where: .!valid)
        let value = unsafeBitCast(unsafeBitCast(remainder, to: LaneGroup<UInt32>.self) | (xBits & signBit),
                                  to: LaneGroup<Float>.self)
        return (value, valid)
    }

    /// `x − y·trunc(x/y)` exactly (C `fmodf`): long division of the integer significands,
    /// 39 bits at a time in 64-bit integers. y = 0, x = ±∞ or NaN give NaN; y = ±∞ gives x.
    static func fmod(_ x: Float, _ y: Float) -> Float {
        if x.isNaN || y.isNaN || x.isInfinite || y == 0 { return .nan }
        let ax = x.magnitude, ay = y.magnitude
        if ax < ay { return x }                                // includes y = ±∞
        // Significand and exponent of a finite magnitude as m·2ᵉ with an integer m.
        func parts(_ v: Float) -> (UInt64, Int) {
            let biased = Int(v.exponentBitPattern)
            let fraction = UInt64(v.significandBitPattern)
            return biased == 0 ? (fraction, -149) : (fraction | (1 << 23), biased - 150)
        }
        let (mx, ex) = parts(ax), (my, ey) = parts(ay)
        var remainder = mx % my
        var shift = ex - ey                                    // ≥ 0 because ax ≥ ay
        while shift > 0 && remainder != 0 {
            let step = min(shift, 39)
            remainder = (remainder << UInt64(step)) % my
            shift -= step
        }
        // remainder < my, so remainder·2^ey is exactly representable.
        let magnitude = Float(sign: .plus, exponent: ey, significand: Float(remainder))
        return Float(signOf: x, magnitudeOf: magnitude)
    }
}
