/// sin, cos, tan: argument reduction to `r ∈ [−π/4, π/4]` and a quadrant, then Taylor
/// polynomials in binary64 (to r¹³ and r¹⁴), rounded once to binary32.
///
/// Reduction, two paths:
/// - |x| < 10⁶ (`fastReductionLimit`): three-part Cody–Waite in double. π/2 is split into
///   `p1 + p2 + p3` where p1 and p2 carry 33 bits, so `k·p1` and `k·p2` are exact for
///   k < 2²⁰ and `x − k·p1` is exact; the reduced argument has ≈ 2⁻⁹⁹ absolute error.
///   This path is branch-free and is what lane loops vectorize.
/// - larger finite x: Payne–Hanek with 2/π stored to 312 bits (`reduceLarge`), scalar,
///   applied afterwards only to the lanes that need it.
extension KilnMath {
    static let fastReductionLimit: Float = 1.0e6
    static let twoOverPi: Double = 0x1.45f306dc9c883p-1
    static let halfPi: Double = 0x1.921fb54442d18p0
    static let halfPi1: Double = 0x1.921fb54400000p0
    static let halfPi2: Double = 0x1.0b4611a600000p-34
    static let halfPi3: Double = 0x1.3198a2e037073p-69

    /// sin r for |r| ≤ π/4: odd Taylor series to r¹³ (truncation < 2⁻⁴⁵ relative: a binary32
    /// result is off the correctly rounded one only when the exact value lies within 2⁻²¹
    /// of a rounding boundary, by one ulp).
    @inline(__always) static func sinPolynomial(_ r: Double) -> Double {
        let z = r * r
        var p: Double = 1.0 / 6_227_020_800                         // 1/13!
        p = p * z - 1.0 / 39_916_800
        p = p * z + 1.0 / 362_880
        p = p * z - 1.0 / 5_040
        p = p * z + 1.0 / 120
        p = p * z - 1.0 / 6
        return r + r * z * p
    }

    /// cos r for |r| ≤ π/4: even Taylor series to r¹⁴ (truncation < 2⁻⁴⁹).
    @inline(__always) static func cosPolynomial(_ r: Double) -> Double {
        let z = r * r
        var p: Double = 1.0 / 87_178_291_200                        // 1/14!
        p = p * z - 1.0 / 479_001_600
        p = p * z + 1.0 / 3_628_800
        p = p * z - 1.0 / 40_320
        p = p * z + 1.0 / 720
        p = p * z - 1.0 / 24
        p = p * z + 0.5
        return 1 - z * p
    }

    /// Cody–Waite reduction of a binary32 value with |x| < 10⁶: x = q·π/2 + r.
    @inline(__always) static func reduceSmall(_ x: Float) -> (r: Double, quadrant: UInt64) {
        let xd = Double(x)
        let shifted = xd * twoOverPi + doubleRoundingMagic
        let k = shifted - doubleRoundingMagic
        let r = ((xd - k * halfPi1) - k * halfPi2) - k * halfPi3
        return (r, shifted.bitPattern & 3)
    }

    /// 2/π to 312 bits after 8 leading zero bits (so windows may start up to 7 bits before
    /// the binary point), most significant word first.
    static let twoOverPiBits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (
        0x00A2_F983_6E4E_4415, 0x29FC_2757_D1F5_34DD, 0xC0DB_6295_993C_4390,
        0x41FE_5163_ABDE_BBC5, 0x61B7_246E_3A42_4DD2)

    @inline(__always) static func twoOverPiWord(_ index: Int) -> UInt64 {
        switch index {
        case 0: return twoOverPiBits.0
        case 1: return twoOverPiBits.1
        case 2: return twoOverPiBits.2
        case 3: return twoOverPiBits.3
        default: return twoOverPiBits.4
        }
    }

    /// 64 bits of the table starting at bit `position` (0 = most significant).
    static func twoOverPiWindow(_ position: Int) -> UInt64 {
        let word = position >> 6, shift = UInt64(position & 63)
        let high = twoOverPiWord(word) << shift
        return shift == 0 ? high : high | (twoOverPiWord(word + 1) >> (64 - shift))
    }

    /// Payne–Hanek reduction of a finite binary32 magnitude `a ≥ 1` (used from 10⁶ up):
    /// a = m·2ᵉ with a 24-bit integer m. Bits of 2/π that would multiply m into a multiple
    /// of 4 (a whole turn) are skipped; the next 128 bits W give `a·2/π mod 4 = m·W·2⁻¹²⁶`
    /// exactly modulo 4 up to the dropped tail (< 2⁻¹⁰⁰ quarter turns).
    static func reduceLarge(_ a: Float) -> (r: Double, quadrant: UInt64) {
        let m = UInt64(a.significandBitPattern | (1 << 23))
        let e = Int(a.exponentBitPattern) - 127 - 23
        // Table bit 8 is the first bit of 2/π (weight 2⁻¹); we want weights from 2^(1−e) on.
        let start = e + 6
        let high = twoOverPiWindow(start), low = twoOverPiWindow(start + 64)
        let (h1, l1) = m.multipliedFullWidth(by: high)
        let (h2, l2) = m.multipliedFullWidth(by: low)
        _ = h1                                     // multiples of 2¹²⁸ are whole turns
        let top = l1 &+ h2                        // bits 127…64 of m·W (mod 2¹²⁸)
        let bottom = l2
        var quadrant = top >> 62
        // Fraction of a quarter turn as a signed 64-bit fixed-point number, rounded to the
        // nearest quadrant: a fraction ≥ ½ becomes negative and bumps the quadrant.
        let fractionHigh = Int64(bitPattern: (top << 2) | (bottom >> 62))
        let fractionLow = (bottom << 2) >> 11           // next 53 bits
        quadrant = (quadrant &+ (fractionHigh < 0 ? 1 : 0)) & 3
        let fraction = (Double(fractionHigh) + Double(fractionLow) * 0x1p-53) * 0x1p-64
        return (fraction * halfPi, quadrant)
    }

    /// Shared reduction for the scalar (any-input) paths; NaN and ±∞ give r = NaN.
    @inline(__always) static func reduce(_ x: Float) -> (r: Double, quadrant: UInt64) {
        if x.magnitude < fastReductionLimit { return reduceSmall(x) }
        if !x.isFinite { return (.nan, 0) }
        let (r, q) = reduceLarge(x.magnitude)
        // sin/cos/tan of −a: reflect r and the quadrant.
        return x < 0 ? (-r, (4 &- q) & 3) : (r, q)
    }

    @inline(__always) static func sin(reduced r: Double, quadrant q: UInt64) -> Float {
        let value = q & 1 == 0 ? sinPolynomial(r) : cosPolynomial(r)
        return Float(q & 2 == 0 ? value : -value)
    }

    @inline(__always) static func cos(reduced r: Double, quadrant q: UInt64) -> Float {
        let value = q & 1 == 0 ? cosPolynomial(r) : sinPolynomial(r)
        return Float((q &+ 1) & 2 == 0 ? value : -value)
    }

    @inline(__always) static func tan(reduced r: Double, quadrant q: UInt64) -> Float {
        let s = sinPolynomial(r), c = cosPolynomial(r)
        return Float(q & 1 == 0 ? s / c : -c / s)
    }

    /// The vectorizable versions, exact for |x| < 10⁶; callers redo other lanes with `sin(_:)`.
    @inline(__always) static func sinSmall(_ x: Float) -> Float {
        let (r, q) = reduceSmall(x); return sin(reduced: r, quadrant: q)
    }
    @inline(__always) static func cosSmall(_ x: Float) -> Float {
        let (r, q) = reduceSmall(x); return cos(reduced: r, quadrant: q)
    }
    @inline(__always) static func tanSmall(_ x: Float) -> Float {
        let (r, q) = reduceSmall(x); return tan(reduced: r, quadrant: q)
    }

    static func sin(_ x: Float) -> Float { let (r, q) = reduce(x); return sin(reduced: r, quadrant: q) }
    static func cos(_ x: Float) -> Float { let (r, q) = reduce(x); return cos(reduced: r, quadrant: q) }
    static func tan(_ x: Float) -> Float { let (r, q) = reduce(x); return tan(reduced: r, quadrant: q) }
}
