/// atan, atan2, asin, acos in binary32 — what a shader's plain calls run;
/// `precise::atan` … keep the binary64 versions of `InverseTrigonometry.swift` (see
/// `FastTrigonometry.swift` for why there are two sets and how the bits stay the same on
/// every machine).
///
/// Why: the binary64 atan takes two square roots and three divisions in double per lane
/// (atan2 was the most expensive opcode, 250 simple operations' worth); polar coordinates
/// (`atan2(p.y, p.x)`) are in most kaleidoscope, tunnel and truchet shaders. These are
/// Cephes' `atanf`/`asinf` minimax polynomials with a branch-free choice of interval:
/// one division (atan) or one square root (asin, acos) per lane, eight lanes per AVX2
/// instruction. The constants π/2 and π are added in two parts (high + low) so the sums
/// near them stay within an ulp. Measured maximum errors (`FastMathAccuracyTests`, table in
/// docs/vm.md): atan, atan2, asin and acos ≤ 3 ulp.
extension KilnMath {
    /// π/2 and π as binary32 high parts plus the rest (`fastHalfPiLow` = π/2 − high).
    static let fastHalfPiHigh: Float = 0x1.921fb6p0
    static let fastHalfPiLow: Float = -0x1.777a5cp-25
    static let fastPiHigh: Float = 0x1.921fb6p1
    static let fastPiLow: Float = -0x1.777a5cp-24
    static let fastQuarterPiHigh: Float = 0x1.921fb6p-1
    static let fastQuarterPiLow: Float = -0x1.777a5cp-26

    /// atan a for a ≥ 0 (or NaN): a > tan(3π/8) uses π/2 + atan(−1/a), a > tan(π/8) uses
    /// π/4 + atan((a−1)/(a+1)), so the polynomial's argument t has |t| ≤ tan(π/8); Cephes
    /// `atanf`'s degree-9 odd polynomial t + t³·p(t²). One division, chosen by selects.
    @inline(__always) static func fastAtanNonNegative(_ a: Float) -> Float {
        let far = a > 2.414213562373095, middle = a > 0.4142135623730950
        let numerator: Float = far ? -1 : (middle ? a - 1 : a)
        let denominator: Float = far ? a : (middle ? a + 1 : 1)
        let t = numerator / denominator
        let z = t * t
        var p: Float = 8.05374449538e-2
        p = Float(-1.38776856032e-1).addingProduct(p, z)
        p = Float(1.99777106478e-1).addingProduct(p, z)
        p = Float(-3.33329491539e-1).addingProduct(p, z)
        let polynomial = t.addingProduct(t * z, p)
        let high: Float = far ? fastHalfPiHigh : (middle ? fastQuarterPiHigh : 0)
        let low: Float = far ? fastHalfPiLow : (middle ? fastQuarterPiLow : 0)
        return high + (polynomial + low)
    }

    /// atan x; NaN → NaN, ±∞ → ±π/2.
    @inline(__always) static func fastAtan(_ x: Float) -> Float {
        Float(signOf: x, magnitudeOf: fastAtanNonNegative(x.magnitude))
    }

    /// atan2(y, x) with C's quadrant and signed-zero rules, as `KilnMath.atan2`: the angle of
    /// |y|/|x| (0/0 → 0, ∞/∞ → 1), moved to the left half-plane when x's sign bit is set,
    /// then given y's sign. The quotient rounds once (≤ ½ ulp, which atan does not magnify:
    /// its derivative is below 1); a quotient past the binary32 range is ∞ (→ π/2) or a tiny
    /// value whose atan is itself.
    @inline(__always) static func fastAtan2(_ y: Float, _ x: Float) -> Float {
        let ay = y.magnitude, ax = x.magnitude
        var ratio = ay / ax
        ratio = (ay == 0 && ax == 0) ? 0 : ratio
        ratio = (ay == .infinity && ax == .infinity) ? 1 : ratio
        var angle = fastAtanNonNegative(ratio)
        angle = x.sign == .minus ? (fastPiHigh - angle) + fastPiLow : angle
        let result = Float(signOf: y, magnitudeOf: angle)
        return (x.isNaN || y.isNaN) ? .nan : result
    }

    /// asin of |u| ≤ ½ given z = u²: Cephes `asinf`'s polynomial u + u³·p(u²).
    @inline(__always) static func fastAsinCore(_ u: Float, _ z: Float) -> Float {
        var p: Float = 4.2163199048e-2
        p = Float(2.4181311049e-2).addingProduct(p, z)
        p = Float(4.5470025998e-2).addingProduct(p, z)
        p = Float(7.4953002686e-2).addingProduct(p, z)
        p = Float(1.6666752422e-1).addingProduct(p, z)
        return u.addingProduct(u * z, p)
    }

    /// The half asin and acos share: for |x| > ½ (`high`), asin √((1−|x|)/2), else asin of
    /// `small` (|x| for asin, x for acos), whose square is x².
    @inline(__always) static func fastAsinReduced(_ x: Float, small: Float) -> (core: Float, high: Bool) {
        let a = x.magnitude
        let high = a > 0.5
        let z = high ? 0.5 * (1 - a) : a * a
        let u = high ? squareRoot(z) : small
        return (fastAsinCore(u, z), high)
    }

    /// asin x: |x| ≤ ½ directly; above, asin a = π/2 − 2·asin(√((1−a)/2)) (1 − a and the
    /// halving are exact there). |x| > 1 → NaN (the square root of a negative), NaN → NaN.
    /// The root is `KilnMath.squareRoot` (√|z|, then a select): a plain `squareRoot()` of
    /// a value that may be negative kept the lane loop scalar, with a branch around it.
    @inline(__always) static func fastAsin(_ x: Float) -> Float {
        let (core, high) = fastAsinReduced(x, small: x.magnitude)
        let value = high ? fastHalfPiHigh - ((core + core) - fastHalfPiLow) : core
        return Float(signOf: x, magnitudeOf: value)
    }

    /// acos x: x > ½ is 2·asin(√((1−x)/2)), x < −½ is π − 2·asin(√((1+x)/2)), between them
    /// π/2 − asin x. |x| > 1 → NaN, NaN → NaN (it fails every comparison: the middle case).
    @inline(__always) static func fastAcos(_ x: Float) -> Float {
        let (core, _) = fastAsinReduced(x, small: x)
        let twice = core + core
        let value = x > 0.5 ? twice : (x < -0.5 ? (fastPiHigh - twice) + fastPiLow : fastHalfPiHigh - (core - fastHalfPiLow))
        return value
    }
}
