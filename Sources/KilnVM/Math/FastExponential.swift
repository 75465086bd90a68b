/// eˣ and 2ˣ in binary32 — what a shader's plain `exp(x)` / `exp2(x)` run;
/// `precise::exp` keeps the binary64 versions of `Exponential.swift` (see
/// `FastTrigonometry.swift` for why there are two sets and how the bits stay the same on
/// every machine). Measured maximum error (`FastMathAccuracyTests`): ≤ 2 ulp on the whole
/// range, subnormal results included.
extension KilnMath {
    static let fastLog2e: Float = 0x1.715476p0
    /// ln 2 split so that `k × fastLn2High` is exact for the |k| ≤ 151 that occur.
    static let fastLn2High: Float = 0.693359375
    static let fastLn2Low: Float = -2.12194440e-4

    /// 2ᵏ × e for an integer-valued k ∈ [−151, 129] that `floatRoundingMagic` produced
    /// (`shifted` = magic + k): two power-of-two factors, each a normal float, so the first
    /// product is exact and the second rounds once — also into the subnormals.
    @inline(__always) static func fastScale(_ e: Float, byPowerOfTwoIn shifted: Float) -> Float {
        let k = Int32(bitPattern: shifted.bitPattern) &- Int32(bitPattern: floatRoundingMagic.bitPattern)
        let half = k >> 1
        let first = Float(bitPattern: UInt32(bitPattern: (half &+ 127) << 23))
        let second = Float(bitPattern: UInt32(bitPattern: (k &- half &+ 127) << 23))
        return e * first * second
    }

    /// eˣ: x = k·ln2 + r (Cody–Waite, |r| ≤ ln2/2), Cephes `expf`'s degree-7 polynomial
    /// 1 + r + r²·p(r), scaled by 2ᵏ. NaN passes through; beyond ±104 the result is 0 or ∞.
    @inline(__always) static func fastExp(_ x: Float) -> Float {
        let clamped = x > 89 ? 89 : (x < -104 ? -104 : x)
        let shifted = clamped * fastLog2e + floatRoundingMagic
        let k = shifted - floatRoundingMagic
        var r = clamped.addingProduct(-k, fastLn2High)
        r = r.addingProduct(-k, fastLn2Low)
        var p: Float = 1.9875691500e-4
        p = Float(1.3981999507e-3).addingProduct(p, r)
        p = Float(8.3334519073e-3).addingProduct(p, r)
        p = Float(4.1665795894e-2).addingProduct(p, r)
        p = Float(1.6666665459e-1).addingProduct(p, r)
        p = Float(5.0000001201e-1).addingProduct(p, r)
        let e = r.addingProduct(r * r, p) + 1
        return fastScale(e, byPowerOfTwoIn: shifted)
    }

    /// 2ˣ: x = k + r (exact, |r| ≤ ½), Cephes `exp2f`'s polynomial 1 + r·p(r), scaled by 2ᵏ.
    @inline(__always) static func fastExp2(_ x: Float) -> Float {
        let clamped = x > 129 ? 129 : (x < -151 ? -151 : x)
        let shifted = clamped + floatRoundingMagic
        return fastExp2(reduced: clamped - (shifted - floatRoundingMagic), shifted: shifted)
    }

    /// 2^(k + r) for |r| ≲ ½ and `shifted` = `floatRoundingMagic` + k (k ∈ [−151, 129]).
    @inline(__always) static func fastExp2(reduced r: Float, shifted: Float) -> Float {
        var p: Float = 1.535336188319500e-4
        p = Float(1.339887440266574e-3).addingProduct(p, r)
        p = Float(9.618437357674640e-3).addingProduct(p, r)
        p = Float(5.550332471162809e-2).addingProduct(p, r)
        p = Float(2.402264791363012e-1).addingProduct(p, r)
        p = Float(6.931472028550421e-1).addingProduct(p, r)
        return fastScale(Float(1).addingProduct(r, p), byPowerOfTwoIn: shifted)
    }
}
