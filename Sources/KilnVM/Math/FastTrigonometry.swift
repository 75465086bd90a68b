/// sin, cos, tan in binary32 — what a shader's plain `sin(x)` runs (Metal's default is
/// fast math too). `precise::sin` keeps the binary64 versions of `Trigonometry.swift`.
///
/// Why a second set: the binary64 versions are correctly rounded in practice but convert
/// every lane to double (4 lanes per AVX2 instruction instead of 8) and evaluate degree-13/14
/// series; shader art spends most of its time in them (fbm hashes, swirl loops). These
/// run the same algorithm in binary32 with fused multiply-adds: 8 lanes per instruction and
/// a third of the operations. Maximum errors, measured against binary64 over ≥ 10⁶ inputs
/// (`FastMathAccuracyTests`, table in docs/vm.md): sin and cos ≤ 2 ulp, tan ≤ 4 ulp, for
/// |x| < `fastReductionLimit`; larger or non-finite x take the precise path.
///
/// Same bits on every machine: every fused operation is written as `addingProduct` (one
/// rounding, a hardware FMA on x86-64-v3 and glibc's exact `fmaf` on the portable build),
/// every other operation is a plain IEEE one, and Swift never contracts `a * b + c`.
extension KilnMath {
    static let fastTwoOverPi: Float = 0x1.45f306p-1
    /// π/2 in three binary32 parts. `p1` has 24 bits and the reduced argument is below 1,
    /// so `x − k·p1` is exact (its bits lie between 2⁻¹ and 2⁻²³) for every k the
    /// reduction produces below `fastReductionLimit`; `p2` and `p3` carry the next 48 bits.
    static let fastHalfPi1: Float = 0x1.921fb6p0
    static let fastHalfPi2: Float = -0x1.777a5cp-25
    static let fastHalfPi3: Float = -0x1.ee59dap-50
    /// 1.5 × 2²³: adding and subtracting it rounds a float to an integer (ties to even); the
    /// low mantissa bits of the sum hold that integer in two's complement (|k| < 2²²).
    static let floatRoundingMagic: Float = 12_582_912

    /// x = k·π/2 + r with |r| ≲ π/4, and k mod 4. Branch-free.
    @inline(__always) static func fastReduce(_ x: Float) -> (r: Float, quadrant: UInt32) {
        let shifted = x * fastTwoOverPi + floatRoundingMagic
        let k = shifted - floatRoundingMagic
        var r = x.addingProduct(-k, fastHalfPi1)
        r = r.addingProduct(-k, fastHalfPi2)
        r = r.addingProduct(-k, fastHalfPi3)
        return (r, shifted.bitPattern & 3)
    }

    /// sin r on |r| ≤ π/4: Cephes `sinf`'s minimax coefficients, r + r³·p(r²).
    @inline(__always) static func fastSinPolynomial(_ r: Float) -> Float {
        let z = r * r
        var p: Float = -1.9515295891e-4
        p = Float(8.3321608736e-3).addingProduct(p, z)
        p = Float(-1.6666654611e-1).addingProduct(p, z)
        return r.addingProduct(r * z, p)
    }

    /// cos r on |r| ≤ π/4: Cephes `cosf`'s coefficients, 1 − r²/2 + r⁴·p(r²).
    @inline(__always) static func fastCosPolynomial(_ r: Float) -> Float {
        let z = r * r
        var p: Float = 2.443315711809948e-5
        p = Float(-1.388731625493765e-3).addingProduct(p, z)
        p = Float(4.166664568298827e-2).addingProduct(p, z)
        return Float(1).addingProduct(-0.5, z).addingProduct(z * z, p)
    }

    /// sin x for |x| < `fastReductionLimit` (vectorizes: both polynomials, then a select).
    @inline(__always) static func fastSin(_ x: Float) -> Float {
        let (r, q) = fastReduce(x)
        let s = fastSinPolynomial(r), c = fastCosPolynomial(r)
        let value = q & 1 == 0 ? s : c
        return Float(bitPattern: value.bitPattern ^ ((q & 2) << 30))
    }

    /// cos x for |x| < `fastReductionLimit`.
    @inline(__always) static func fastCos(_ x: Float) -> Float {
        let (r, q) = fastReduce(x)
        let s = fastSinPolynomial(r), c = fastCosPolynomial(r)
        let value = q & 1 == 0 ? c : s
        return Float(bitPattern: value.bitPattern ^ (((q &+ 1) & 2) << 30))
    }

    /// tan x for |x| < `fastReductionLimit`: sin r / cos r, or −cos r / sin r in odd quadrants.
    @inline(__always) static func fastTan(_ x: Float) -> Float {
        let (r, q) = fastReduce(x)
        let s = fastSinPolynomial(r), c = fastCosPolynomial(r)
        return q & 1 == 0 ? s / c : -c / s
    }

    // Any input: the fast version where it is defined, the precise one elsewhere (huge or
    // non-finite arguments). Lane loops use these for a batch with any such lane, so a lane
    // gets the same bits whichever path its batch took.
    @inline(__always) static func fastSinAny(_ x: Float) -> Float {
        x.magnitude < fastReductionLimit ? fastSin(x) : sin(x)
    }
    @inline(__always) static func fastCosAny(_ x: Float) -> Float {
        x.magnitude < fastReductionLimit ? fastCos(x) : cos(x)
    }
    @inline(__always) static func fastTanAny(_ x: Float) -> Float {
        x.magnitude < fastReductionLimit ? fastTan(x) : tan(x)
    }
}
