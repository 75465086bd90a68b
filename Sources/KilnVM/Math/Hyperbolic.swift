/// sinh, cosh, tanh in binary64 from `expDouble`, rounded once to binary32.
///
/// Near zero `eˣ − e⁻ˣ` cancels, so |x| < 1 uses the odd Taylor series of sinh to x¹⁷
/// (truncation < 2⁻⁴⁸ relative); tanh is `sinh / √(1 + sinh²)`, which keeps that
/// accuracy and saturates to ±1 (|x| is clamped to 20, where tanh rounds to 1).
extension KilnMath {
    @inline(__always) static func sinhDouble(_ x: Double) -> Double {
        let z = x * x
        var p: Double = 1.0 / 355_687_428_096_000
        p = p * z + 1.0 / 1_307_674_368_000
        p = p * z + 1.0 / 6_227_020_800
        p = p * z + 1.0 / 39_916_800
        p = p * z + 1.0 / 362_880
        p = p * z + 1.0 / 5_040
        p = p * z + 1.0 / 120
        p = p * z + 1.0 / 6
        let series = x + x * z * p
        let e = expDouble(x.magnitude)
        let large = Double(signOf: x, magnitudeOf: 0.5 * (e - 1 / e))
        return x.magnitude < 1 ? series : large
    }

    @inline(__always) static func sinh(_ x: Float) -> Float { Float(sinhDouble(Double(x))) }

    @inline(__always) static func cosh(_ x: Float) -> Float {
        let e = expDouble(Double(x.magnitude))
        return Float(0.5 * (e + 1 / e))
    }

    @inline(__always) static func tanh(_ x: Float) -> Float {
        let d = Double(x)
        let clamped = d > 20 ? 20 : (d < -20 ? -20 : d)      // NaN passes through
        let s = sinhDouble(clamped)
        return Float(s / (1 + s * s).magnitude.squareRoot())
    }
}
