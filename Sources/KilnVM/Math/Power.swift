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

    /// `fmod(x, y)` the quick way, for the lanes where it is exact: `|x| − t·|y|` in
    /// binary64 with `t` the binary64 quotient truncated. When `t < 2²⁴` the product (24 × 24
    /// bits) and the difference (both multiples of `|y|`'s ulp, below 2⁴⁸ of them) are exact,
    /// so the remainder is the true one exactly when it lands in `[0, |y|)` — a quotient
    /// rounded up across an integer gives a negative one. `valid` is false for those lanes,
    /// for larger quotients and for NaN, ∞ and zero divisors; the caller then uses `fmod`.
    /// Branch-free, so a lane loop of it vectorizes (`fmod` itself is a scalar loop).
    @inline(__always) static func quickFmod(_ x: Float, _ y: Float) -> (value: Float, valid: Bool) {
        let ax = Double(x.magnitude), ay = Double(y.magnitude)
        let quotient = ax / ay
        let inRange = quotient < 0x1p24                        // false for NaN and ∞
        let safe = inRange ? quotient : 0
        var t = (safe + 0x1p52) - 0x1p52                       // nearest integer (safe < 2⁵²)
        t = t > safe ? t - 1 : t                               // truncated
        let remainder = ax - t * ay
        let valid = inRange && ay > 0 && ay.isFinite && remainder >= 0 && remainder < ay
        return (Float(signOf: x, magnitudeOf: Float(valid ? remainder : 0)), valid)
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
