/// atan, atan2, asin, acos in binary64, rounded once to binary32.
///
/// atan: `|t| > 1` uses `π/2 − atan(1/|t|)`; two argument halvings
/// `atan u = 2·atan(u / (1 + √(1+u²)))` bring u below tan(π/16) ≈ 0.199, where the odd
/// Taylor series to u¹⁵ is accurate to < 2⁻⁴⁴ relative (see `KilnMath`'s error budget in
/// docs/vm.md). asin and acos reduce to atan exactly enough:
/// `asin x = atan(x / √((1−x)(1+x)))`, `acos x = 2·atan(√((1−x)/(1+x)))`.
extension KilnMath {
    static let pi: Double = 0x1.921fb54442d18p1

    /// atan of a double; NaN → NaN, ±∞ → ±π/2.
    @inline(__always) static func atanDouble(_ t: Double) -> Double {
        let a = t.magnitude
        let inverted = a > 1
        var u = inverted ? 1 / a : a
        u = u / (1 + (1 + u * u).magnitude.squareRoot())
        u = u / (1 + (1 + u * u).magnitude.squareRoot())
        let z = u * u
        var p: Double = 1.0 / 15
        p = p * z - 1.0 / 13
        p = p * z + 1.0 / 11
        p = p * z - 1.0 / 9
        p = p * z + 1.0 / 7
        p = p * z - 1.0 / 5
        p = p * z + 1.0 / 3
        let reduced = 4 * (u - u * z * p)
        let result = inverted ? halfPi - reduced : reduced
        return Double(signOf: t, magnitudeOf: result)
    }

    @inline(__always) static func atan(_ x: Float) -> Float { Float(atanDouble(Double(x))) }

    @inline(__always) static func asin(_ x: Float) -> Float {
        let d = Double(x)
        return Float(atanDouble(d / squareRoot((1 - d) * (1 + d))))
    }

    @inline(__always) static func acos(_ x: Float) -> Float {
        let d = Double(x)
        return Float(2 * atanDouble(squareRoot((1 - d) / (1 + d))))
    }

    /// atan2(y, x) with C's quadrant and signed-zero rules: the angle of (|y|/|x|) is moved
    /// to the left half-plane when x is negative (including −0), then takes y's sign.
    @inline(__always) static func atan2(_ y: Float, _ x: Float) -> Float {
        let ay = Double(y.magnitude), ax = Double(x.magnitude)
        var ratio = ay / ax                                  // float range never overflows a double
        ratio = (ay == 0 && ax == 0) ? 0 : ratio             // ±0 / ±0
        ratio = (ay.isInfinite && ax.isInfinite) ? 1 : ratio // ±∞ / ±∞ → π/4 family
        var angle = atanDouble(ratio)
        angle = x.sign == .minus ? pi - angle : angle
        let result = Float(Double(signOf: Double(y), magnitudeOf: angle))
        return (x.isNaN || y.isNaN) ? .nan : result
    }
}
