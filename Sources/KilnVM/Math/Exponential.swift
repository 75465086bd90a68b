/// Exponentials and logarithms, evaluated in binary64 and rounded once to binary32.
///
/// `exp2` core: `t = k + r` with `k = rint(t)`, `|r| ≤ ½`, `2ʳ = e^(r·ln2)` by its Taylor
/// series to degree 10 (truncation < 2⁻⁴² on |r·ln2| ≤ 0.347), then scaled by 2ᵏ built
/// from bits. `log` core: `x = 2ᵉ·m` with `m ∈ [√½, √2)`, `ln m = 2·atanh(s)`,
/// `s = (m−1)/(m+1)`, `|s| ≤ 0.172`, odd series to s²¹ (truncation < 2⁻⁵⁵ relative).
extension KilnMath {
    static let ln2: Double = 0x1.62e42fefa39efp-1
    /// ln 2 split so that `k × ln2High` is exact for |k| < 2²¹ (Cody–Waite).
    static let ln2High: Double = 0x1.62e42fee00000p-1
    static let ln2Low: Double = 0x1.a39ef35793c76p-33
    static let log2e: Double = 0x1.71547652b82fep0
    static let log10e: Double = 0x1.bcb7b1526e50ep-2

    /// eᵘ for |u| ≲ 0.35: Taylor series to u¹⁰ (truncation < 2⁻⁴² relative), Horner form,
    /// coefficients 1/n!.
    @inline(__always) static func expTaylor(_ u: Double) -> Double {
        var p: Double = 1.0 / 3_628_800                  // 1/10!
        p = p * u + 1.0 / 362_880
        p = p * u + 1.0 / 40_320
        p = p * u + 1.0 / 5_040
        p = p * u + 1.0 / 720
        p = p * u + 1.0 / 120
        p = p * u + 1.0 / 24
        p = p * u + 1.0 / 6
        p = p * u + 0.5
        p = p * u + 1
        return p * u + 1
    }

    /// 2ᵏ for an integral double `k` that `rint` produced (|k| ≤ 1022), plus the rounded sum
    /// whose low bits hold k.
    @inline(__always) static func powerOfTwo(fromRounded shifted: Double) -> Double {
        let k = Int64(bitPattern: shifted.bitPattern & 0x000F_FFFF_FFFF_FFFF) - (1 << 51)
        return Double(bitPattern: UInt64(bitPattern: (k &+ 1023) << 52))
    }

    /// Clamp used before exponentials: beyond ±200 every binary32 result is 0 or ∞ anyway,
    /// and 2^±200 stays a normal double. NaN passes through.
    @inline(__always) static func clampExponent(_ t: Double) -> Double {
        t > 200 ? 200 : (t < -200 ? -200 : t)
    }

    /// 2ᵗ in double (t clamped to ±200).
    @inline(__always) static func exp2Double(_ t: Double) -> Double {
        let clamped = clampExponent(t)
        let shifted = clamped + doubleRoundingMagic
        let k = shifted - doubleRoundingMagic
        let r = clamped - k                                   // exact, |r| ≤ ½
        return expTaylor(r * ln2) * powerOfTwo(fromRounded: shifted)
    }

    /// eᵗ in double (t clamped to ±138, where binary32 has long overflowed / underflowed).
    @inline(__always) static func expDouble(_ t: Double) -> Double {
        let clamped = t > 138 ? 138 : (t < -138 ? -138 : t)
        let shifted = clamped * log2e + doubleRoundingMagic
        let k = shifted - doubleRoundingMagic
        let r = (clamped - k * ln2High) - k * ln2Low
        return expTaylor(r) * powerOfTwo(fromRounded: shifted)
    }

    /// ln x split as (exponent e, ln m) for a positive finite normal double x.
    @inline(__always) static func logParts(_ x: Double) -> (exponent: Double, logMantissa: Double) {
        let bits = x.bitPattern
        var e = Double(Int64(bitPattern: (bits >> 52) & 0x7FF) - 1023)
        var m = Double(bitPattern: (bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000)   // [1, 2)
        let high = m > 0x1.6a09e667f3bcdp0                                                      // √2
        m = high ? m * 0.5 : m
        e = high ? e + 1 : e
        let f = m - 1
        let s = f / (2 + f)
        let z = s * s
        var p: Double = 1.0 / 21
        p = p * z + 1.0 / 19
        p = p * z + 1.0 / 17
        p = p * z + 1.0 / 15
        p = p * z + 1.0 / 13
        p = p * z + 1.0 / 11
        p = p * z + 1.0 / 9
        p = p * z + 1.0 / 7
        p = p * z + 1.0 / 5
        p = p * z + 1.0 / 3
        return (e, 2 * s + 2 * s * z * p)
    }

    /// ln x in double for a positive finite x (a converted binary32, so always normal).
    @inline(__always) static func logDouble(_ x: Double) -> Double {
        let (e, logM) = logParts(x)
        return e * ln2High + (e * ln2Low + logM)
    }

    /// log₂ x in double for a positive finite x.
    @inline(__always) static func log2Double(_ x: Double) -> Double {
        let (e, logM) = logParts(x)
        return e + logM * log2e
    }

    /// The IEEE special cases shared by the logarithms: 0 → −∞, negative → NaN, +∞ → +∞, NaN → NaN.
    @inline(__always) static func logSpecial(_ x: Float, _ finite: Float) -> Float {
        var result = finite
        result = x == .infinity ? .infinity : result
        result = x == 0 ? -.infinity : result
        result = (x < 0 || x.isNaN) ? .nan : result
        return result
    }

    @inline(__always) static func exp(_ x: Float) -> Float { Float(expDouble(Double(x))) }

    @inline(__always) static func exp2(_ x: Float) -> Float { Float(exp2Double(Double(x))) }

    @inline(__always) static func log(_ x: Float) -> Float {
        // Evaluate on a safe positive stand-in for the special inputs, then select.
        let safe = (x > 0 && x < .infinity) ? x : 1
        return logSpecial(x, Float(logDouble(Double(safe))))
    }

    @inline(__always) static func log2(_ x: Float) -> Float {
        let safe = (x > 0 && x < .infinity) ? x : 1
        return logSpecial(x, Float(log2Double(Double(safe))))
    }

    @inline(__always) static func log10(_ x: Float) -> Float {
        let safe = (x > 0 && x < .infinity) ? x : 1
        return logSpecial(x, Float(logDouble(Double(safe)) * log10e))
    }
}
