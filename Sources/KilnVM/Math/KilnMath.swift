/// Kiln's own builtin math: branch-free (or nearly) scalar functions that the VM calls
/// inside lane loops, so the optimizer can vectorize them and every machine computes the
/// same bits. No libm: only IEEE `+ − × ÷ √`, conversions and bit operations.
///
/// The transcendental functions evaluate in binary64 with their own range reduction and
/// polynomials and round once to binary32; the double-precision error (≈ 2⁻⁵⁰ relative) is
/// far below half a float ulp, so results are within 1 ulp (measured: `docs/vm.md`).
/// This file holds rounding, conversions and `fma`; the other `Math/` files one family each.
enum KilnMath {
    /// 2²³: from here on every binary32 value is an integer.
    static let floatIntegerThreshold: Float = 8_388_608
    /// 1.5 × 2⁵²: adding and subtracting it rounds a double to an integer (ties to even),
    /// and the low mantissa bits of the sum hold that integer in two's complement.
    static let doubleRoundingMagic: Double = 6_755_399_441_055_744

    // MARK: rounding (exact; the sign of the argument is kept, so −0.3 → −0)

    /// Round to nearest, ties to even (`rint`).
    @inline(__always) static func rint(_ x: Float) -> Float {
        let magnitude = x.magnitude
        let rounded = (magnitude + floatIntegerThreshold) - floatIntegerThreshold
        // NaN fails the comparison and passes through.
        return Float(signOf: x, magnitudeOf: magnitude < floatIntegerThreshold ? rounded : magnitude)
    }

    @inline(__always) static func floor(_ x: Float) -> Float {
        let t = rint(x)
        return Float(signOf: x, magnitudeOf: t > x ? t - 1 : t)
    }

    @inline(__always) static func ceil(_ x: Float) -> Float {
        let t = rint(x)
        return Float(signOf: x, magnitudeOf: t < x ? t + 1 : t)
    }

    @inline(__always) static func truncate(_ x: Float) -> Float {
        let magnitude = x.magnitude
        let t = rint(magnitude)
        return Float(signOf: x, magnitudeOf: t > magnitude ? t - 1 : t)
    }

    /// Round to nearest, halfway cases away from zero (`round`).
    @inline(__always) static func roundHalfAway(_ x: Float) -> Float {
        let magnitude = x.magnitude
        let t = truncate(magnitude)
        return Float(signOf: x, magnitudeOf: magnitude - t >= 0.5 ? t + 1 : t)
    }

    /// `min(x − ⌊x⌋, 0x1.fffffep-1)`: never reaches 1 (x slightly below 0 would give 1 − tiny
    /// rounded to 1). NaN and ±∞ give NaN.
    /// The largest binary32 below 1: `fract`'s ceiling (`x − ⌊x⌋` rounds up to 1 for tiny
    /// negative `x`).
    @inline(__always) static var largestBelowOne: Float { 0x1.fffffep-1 }

    @inline(__always) static func fract(_ x: Float) -> Float {
        let f = x - floor(x)
        return f > largestBelowOne ? largestBelowOne : f
    }

    /// Round a double to the nearest integer (ties to even); valid for |x| < 2⁵¹.
    @inline(__always) static func rint(_ x: Double) -> Double {
        (x + doubleRoundingMagic) - doubleRoundingMagic
    }

    // MARK: conversions that saturate instead of trapping

    /// `Int32(x)` toward zero, saturating, NaN → 0 — without Swift's trapping conversion:
    /// the truncated value goes through the double magic-number trick, whose low 32
    /// mantissa bits are the integer in two's complement.
    @inline(__always) static func toInt32(_ x: Float) -> Int32 {
        let shifted = Double(truncate(x)) + doubleRoundingMagic
        var value = Int32(truncatingIfNeeded: shifted.bitPattern)
        value = x >= 2_147_483_648 ? .max : value
        value = x < -2_147_483_648 ? .min : value
        return x.isNaN ? 0 : value
    }

    /// `UInt32(x)` toward zero, saturating (negative → 0), NaN → 0.
    @inline(__always) static func toUInt32(_ x: Float) -> UInt32 {
        let shifted = Double(truncate(x)) + doubleRoundingMagic
        var value = UInt32(truncatingIfNeeded: shifted.bitPattern)
        value = x >= 4_294_967_296 ? .max : value
        value = x < 0 ? 0 : value
        return x.isNaN ? 0 : value
    }

    /// `toInt32` on a group of lanes, from the float's bits alone: the 24-bit significand
    /// shifted right by 23 − e (or left by e − 23) is |x| truncated, for every exponent e
    /// below 31; the sign negates it; |x| ≥ 2³¹ and ±∞ saturate and NaN gives 0.
    ///
    /// Why not `toInt32` in a lane loop: its binary64 step converts four lanes per
    /// instruction and shuffles them back, ~30 operations for eight lanes, 44 % of a loop
    /// that does `int(p.x * k) & 3`. Integer shifts by per-lane amounts are one AVX2
    /// instruction each, and the answer is exact, so every lane has the scalar bits
    /// (checked over all 2³² floats once; `ConversionGroupTests` sweeps a stride of them).
    /// Lane masks are made with arithmetic shifts (`allOnes`), not `.<`: the standard
    /// library builds an integer comparison's `SIMDMask` lane by lane, with a branch each.
    @inline(__always) static func toInt32(_ x: LaneGroup<Float>) -> LaneGroup<UInt32> {
        let bits = unsafeBitCast(x, to: LaneGroup<Int32>.self)
        let (magnitude, exponent, truncated) = truncatedMagnitude(bits, largestLeftShift: 7)
        let negative = bits &>> 31
        let value = ((truncated ^ negative) &- negative)                    // −truncated where negative
        let saturated = LaneGroup<Int32>(repeating: .max) ^ negative        // .min where negative
        let large = allOnes(where: exponent, exceeds: 30)
        let nan = allOnes(where: magnitude, exceeds: 0x7F80_0000)
        return unsafeBitCast(((value & ~large) | (saturated & large)) & ~nan, to: LaneGroup<UInt32>.self)
    }

    /// `toUInt32` on a group of lanes, the same way: a shift of up to 8 to the left keeps a
    /// 24-bit significand inside 32 bits for every exponent below 32.
    @inline(__always) static func toUInt32(_ x: LaneGroup<Float>) -> LaneGroup<UInt32> {
        let bits = unsafeBitCast(x, to: LaneGroup<Int32>.self)
        let (magnitude, exponent, truncated) = truncatedMagnitude(bits, largestLeftShift: 8)
        let large = allOnes(where: exponent, exceeds: 31)
        // Negative numbers (−0 included, whose truncation is 0 anyway) and NaN give 0.
        let zero = (bits &>> 31) | allOnes(where: magnitude, exceeds: 0x7F80_0000)
        return unsafeBitCast((truncated | large) & ~zero, to: LaneGroup<UInt32>.self)
    }

    /// |x| truncated to an integer for exponents up to 23 + `largestLeftShift` (larger ones
    /// are wrong and must be replaced), with |x|'s bits and x's unbiased exponent.
    @inline(__always) private static func truncatedMagnitude(_ bits: LaneGroup<Int32>, largestLeftShift: Int32)
        -> (magnitude: LaneGroup<Int32>, exponent: LaneGroup<Int32>, truncated: LaneGroup<Int32>) {
        let magnitude = bits & 0x7FFF_FFFF
        let exponent = (magnitude &>> 23) &- 127
        let significand = (bits & 0x7F_FFFF) | 0x80_0000
        // A right shift of 31 clears the significand: |x| < 1 (zero and subnormals too).
        let right = pointwiseMax(pointwiseMin(23 &- exponent, LaneGroup(repeating: 31)), LaneGroup(repeating: 0))
        let left = pointwiseMax(pointwiseMin(exponent &- 23, LaneGroup(repeating: largestLeftShift)), LaneGroup(repeating: 0))
        return (magnitude, exponent, (significand &>> right) &<< left)
    }

    /// All ones in the lanes where `value > limit`, else zero (`limit − value` is negative
    /// exactly there; the callers' values and limits are far from overflowing).
    @inline(__always) private static func allOnes(where value: LaneGroup<Int32>, exceeds limit: Int32) -> LaneGroup<Int32> {
        (LaneGroup(repeating: limit) &- value) &>> 31
    }

    // MARK: fused multiply-add

    /// `b × c + d` rounded once. The product of two floats is exact in binary64; the sum is
    /// rounded to double *to odd* (TwoSum gives the exact error, and an inexact even result
    /// is nudged toward the true value), which makes the final rounding to binary32 correct
    /// (round-to-odd with ≥ 2 extra bits never double-rounds).
    @inline(__always) static func fma(_ b: Float, _ c: Float, _ d: Float) -> Float {
        let product = Double(b) * Double(c)
        let addend = Double(d)
        let sum = product + addend
        let addendPart = sum - product
        let error = (product - (sum - addendPart)) + (addend - addendPart)
        let bits = sum.bitPattern
        let inexactEven = error != 0 && bits & 1 == 0 && sum.isFinite
        let awayFromZero = (error > 0) == (sum > 0)
        let odd = awayFromZero ? bits &+ 1 : bits &- 1
        return Float(Double(bitPattern: inexactEven ? odd : bits))
    }

    // MARK: small helpers

    /// IEEE square root without the libm fallback: Swift's `squareRoot()` calls `sqrtf` for
    /// negative inputs (errno), which blocks vectorization. Taking the root of |x| tells the
    /// optimizer the input is non-negative; negative x then selects NaN, −0 keeps its sign.
    @inline(__always) static func squareRoot(_ x: Float) -> Float {
        let root = Float(signOf: x, magnitudeOf: x.magnitude.squareRoot())
        return x < 0 ? .nan : root
    }

    @inline(__always) static func squareRoot(_ x: Double) -> Double {
        let root = Double(signOf: x, magnitudeOf: x.magnitude.squareRoot())
        return x < 0 ? .nan : root
    }

    /// `1 / √x`, computed in double and rounded once (≤ 0.5 ulp + ε).
    @inline(__always) static func reciprocalSquareRoot(_ x: Float) -> Float {
        Float(1 / squareRoot(Double(x)))
    }

    /// `x > 0 ? 1 : x < 0 ? −1 : x`, NaN → 0 (Metal's `sign`).
    @inline(__always) static func sign(_ x: Float) -> Float {
        x > 0 ? 1 : (x < 0 ? -1 : (x.isNaN ? 0 : x))
    }

    /// min with "NaN loses": if one operand is NaN the result is the other.
    @inline(__always) static func minimum(_ b: Float, _ c: Float) -> Float {
        (b < c || c.isNaN) ? b : c
    }

    @inline(__always) static func maximum(_ b: Float, _ c: Float) -> Float {
        (b > c || c.isNaN) ? b : c
    }
}
