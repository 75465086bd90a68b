/// log, log2, log10 and pow in binary32 — what a shader's plain calls run;
/// `precise::log` … keep the binary64 versions of `Exponential.swift` and `Power.swift`
/// (see `FastTrigonometry.swift` for why there are two sets and how the bits stay the same
/// on every machine).
///
/// The logarithms are Cephes' `logf`/`log2f`/`log10f`: x = 2ᵉ·m with m ∈ [√½, √2),
/// f = m − 1 exactly, ln(1+f) = f − f²/2 + f³·p(f) with a degree-8 minimax p, and the
/// constants split so that the large terms (e·ln2, f·log₂e) carry no rounding of their
/// own. Subnormal inputs are scaled by 2²³ first (a select, no branch).
///
/// pow is exp2(y·log₂|x|), but a binary32 log₂ would lose |y·log₂x| ulps (Metal's fast pow
/// does): log₂|x| is carried as a pair of floats (high + low, every large product split
/// exactly with a fused multiply-add), the product with y too, and only the reduced exponent
/// r = (t − k) + t_low, |r| ≤ ½, goes through `fastExp2`'s polynomial. C99's special
/// cases are the same selects as `KilnMath.pow`.
///
/// Measured maximum errors (`FastMathAccuracyTests`, table in docs/vm.md): log, log2,
/// log10 ≤ 2 ulp; pow ≤ 2 ulp for x ∈ [0, 100], |y| ≤ 18, and ≤ 16 ulp (Metal's bound for
/// its precise pow) over the whole range, where p(f)'s own error, ~2⁻²⁶ in log₂x for
/// |f| near 0.4, is multiplied by |y| up to a few hundred.
extension KilnMath {
    static let fastSqrtHalf: Float = 0.707106781186547524
    /// log₂e = `fastLog2eHigh` + `fastLog2eLow` (the high part is `fastLog2e`).
    static let fastLog2eLow: Float = Float(log2e - Double(fastLog2e))
    /// log₂e − 1 (Cephes `LOG2EA`), so f·log₂e = f + f·(log₂e − 1) keeps f exact.
    static let fastLog2eMinusOne: Float = 0.44269504088896340736
    /// log₁₀e and log₁₀2 in two parts (Cephes `L10EA`/`L10EB`, `L102A`/`L102B`).
    static let fastLog10eHigh: Float = 4.3359375e-1
    static let fastLog10eLow: Float = 7.00731903251827651129e-4
    static let fastLog10TwoHigh: Float = 3.0078125e-1
    static let fastLog10TwoLow: Float = 2.48745663981195213739e-4

    /// A positive finite x as 2ᵉ·(1 + f) with f ∈ [√½ − 1, √2 − 1) exactly, and
    /// ln(1+f) − f = −f²/2 + f³·p(f) (`tail`), with its two terms (`cubic` = f³·p(f), z = f²
    /// rounded) for pow, which needs them apart.
    /// `normal`: the caller knows x is normal (a constant, so the subnormal select goes).
    @inline(__always) static func fastLogParts(_ x: Float, normal: Bool = false)
        -> (exponent: Float, f: Float, tail: Float, cubic: Float, z: Float) {
        let subnormal = !normal && x < Float.leastNormalMagnitude
        let scaled = subnormal ? x * 0x1p23 : x
        let bits = scaled.bitPattern
        var e = Int32(bitPattern: (bits >> 23) & 0xFF) &- 126 &- (subnormal ? 23 : 0)
        let m = Float(bitPattern: (bits & 0x007F_FFFF) | 0x3F00_0000)       // [½, 1)
        let low = m < fastSqrtHalf
        let f = low ? (m + m) - 1 : m - 1                                    // exact (Sterbenz)
        e = low ? e &- 1 : e
        let z = f * f
        var p: Float = 7.0376836292e-2
        p = Float(-1.1514610310e-1).addingProduct(p, f)
        p = Float(1.1676998740e-1).addingProduct(p, f)
        p = Float(-1.2420140846e-1).addingProduct(p, f)
        p = Float(1.4249322787e-1).addingProduct(p, f)
        p = Float(-1.6668057665e-1).addingProduct(p, f)
        p = Float(2.0000714765e-1).addingProduct(p, f)
        p = Float(-2.4999993993e-1).addingProduct(p, f)
        p = Float(3.3333331174e-1).addingProduct(p, f)
        let cubic = f * z * p
        return (Float(e), f, cubic.addingProduct(-0.5, z), cubic, z)
    }

    /// A logarithm of any x: `positive` (a `…Positive` function, told x may be subnormal)
    /// on a stand-in of 1 where x is not positive and finite, then C's special values there.
    @inline(__always) static func fastLogarithm(_ x: Float, _ positive: (Float, Bool) -> Float) -> Float {
        let safe = (x > 0 && x < .infinity) ? x : 1
        return logSpecial(x, positive(safe, false))
    }

    /// ln x: e·ln2 in two parts around f + tail (Cephes `logf`).
    @inline(__always) static func fastLog(_ x: Float) -> Float {
        fastLogarithm(x, fastLogPositive)
    }

    /// The finite part, for a positive finite x; `normal` (the default) when x is known to be
    /// normal too — then no special case is left and the lane loop is the polynomial alone.
    @inline(__always) static func fastLogPositive(_ x: Float, normal: Bool = true) -> Float {
        let (e, f, tail, _, _) = fastLogParts(x, normal: normal)
        var r = tail.addingProduct(e, fastLn2Low)
        r = f + r
        return r.addingProduct(e, fastLn2High)
    }

    /// log₂ x = e + (f + tail)·log₂e, the product split so f itself is added exactly.
    @inline(__always) static func fastLog2(_ x: Float) -> Float {
        fastLogarithm(x, fastLog2Positive)
    }

    /// The finite part, for a positive finite x; `normal` (the default) when x is known to be
    /// normal too — then no special case is left and the lane loop is the polynomial alone.
    @inline(__always) static func fastLog2Positive(_ x: Float, normal: Bool = true) -> Float {
        let (e, f, tail, _, _) = fastLogParts(x, normal: normal)
        var r = tail * fastLog2eMinusOne
        r = r.addingProduct(f, fastLog2eMinusOne)
        r += tail
        r += f
        return r + e
    }

    /// log₁₀ x = (f + tail)·log₁₀e + e·log₁₀2, each constant in two parts (Cephes `log10f`).
    @inline(__always) static func fastLog10(_ x: Float) -> Float {
        fastLogarithm(x, fastLog10Positive)
    }

    /// The finite part, for a positive finite x; `normal` (the default) when x is known to be
    /// normal too — then no special case is left and the lane loop is the polynomial alone.
    @inline(__always) static func fastLog10Positive(_ x: Float, normal: Bool = true) -> Float {
        let (e, f, tail, _, _) = fastLogParts(x, normal: normal)
        var r = tail * fastLog10eLow
        r = r.addingProduct(f, fastLog10eLow)
        r = r.addingProduct(e, fastLog10TwoLow)
        r = r.addingProduct(tail, fastLog10eHigh)
        r = r.addingProduct(f, fastLog10eHigh)
        return r.addingProduct(e, fastLog10TwoHigh)
    }

    /// |x|^y for the finite part: t = y·log₂|x| as high + low floats, 2ᵗ by `fastExp2`'s
    /// polynomial on r = (t − k) + t_low. `x` must be positive and finite.
    /// `normal`: x is known to be normal. With a positive normal x and a finite y this is
    /// `fastPow` itself, bit for bit (x = 1 and y = ±0 come out as exactly 1).
    @inline(__always) static func fastPowMagnitude(_ x: Float, _ y: Float, normal: Bool = false) -> Float {
        let (e, f, _, cubic, z) = fastLogParts(x, normal: normal)
        // L = (f − f²/2 + cubic)·log₂e as lHigh + lLow. The two large products, f·log₂e and
        // −f²/2·log₂e, are split exactly (a product's rounding error is a fused multiply-
        // add away), and so is f² itself; what is left is rounded, small against lHigh.
        let half = -0.5 * z                                                  // exact
        let halfLow = -0.5 * (-z).addingProduct(f, f)                        // −(f² − z)/2, exact
        let product = f * fastLog2e
        let productLow = (-product).addingProduct(f, fastLog2e)
        let square = half * fastLog2e
        let squareLow = (-square).addingProduct(half, fastLog2e)
        // |product| ≥ |square| (|f| < ½), so the sum's error is exactly that expression.
        let sum = product + square
        let sumLow = square - (sum - product)
        let rest = sumLow + productLow + squareLow
            + ((cubic + halfLow) * fastLog2e + (f + half) * fastLog2eLow)
        let lHigh = sum + rest
        let lLow = rest - (lHigh - sum)
        // log₂x = e + L: e is an integer at least as large as |lHigh| (or 0), so the sum's
        // rounding error is exactly lHigh − (s − e).
        let s = e + lHigh
        let sLow = (lHigh - (s - e)) + lLow
        // t = y·log₂x: the product's rounding error exactly, plus y·sLow.
        let tHigh = y * s
        let tLow = (-tHigh).addingProduct(y, s) + y * sLow
        // Beyond ±150 every result is 0 or ∞: clamp (and drop the low part, now meaningless).
        let inRange = tHigh > -151 && tHigh < 129
        let t = inRange ? tHigh : (tHigh > 0 ? 129 : -151)
        let shifted = t + floatRoundingMagic
        let k = shifted - floatRoundingMagic
        return fastExp2(reduced: (t - k) + (inRange ? tLow : 0), shifted: shifted)   // t − k exact
    }

    /// `x^y` in binary32 with C99 `powf`'s special cases (the selects of `KilnMath.pow`).
    @inline(__always) static func fastPow(_ x: Float, _ y: Float) -> Float {
        let ax = x.magnitude
        let finiteBase = ax > 0 && ax.isFinite
        let safeY = y.isFinite ? y : 0
        var magnitude = fastPowMagnitude(finiteBase ? ax : 1, safeY)
        // Zeros, infinities and infinite exponents: 2^(y·log₂|x|) with log₂0 = −∞, log₂∞ = ∞.
        let logSign: Float = ax == 0 ? -1 : (ax == .infinity ? 1 : (ax < 1 ? -1 : (ax > 1 ? 1 : 0)))
        let productSign = y.isFinite && finiteBase ? 0 : logSign * (y > 0 ? 1 : (y < 0 ? -1 : 0))
        magnitude = productSign > 0 ? .infinity : (productSign < 0 ? 0 : magnitude)
        return powSignsAndSpecialCases(x, y, magnitude: magnitude)
    }
}
