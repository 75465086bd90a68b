/// sinh, cosh, tanh in binary32 — what a shader's plain calls run; `precise::sinh` …
/// keep the binary64 versions of `Hyperbolic.swift` (see `FastTrigonometry.swift` for why
/// there are two sets and how the bits stay the same on every machine).
///
/// From `fastExp`, with Cephes' `sinhf`/`tanhf` polynomials where eˣ − e⁻ˣ would cancel
/// (|x| < 1 for sinh, |x| < 0.625 for tanh); both sides are computed and one is selected,
/// so lane loops vectorize. Measured maximum errors (`FastMathAccuracyTests`, docs/vm.md):
/// sinh, cosh ≤ 3 ulp, tanh ≤ 3 ulp.
extension KilnMath {
    /// e^a / 2 for a ≥ 0 (or NaN), finite wherever cosh a is: past 88, e^a itself overflows
    /// binary32 while e^a / 2 does not until 89.4, so it is e^(a/2) · (e^(a/2) / 2) there.
    @inline(__always) static func fastHalfExp(_ a: Float) -> Float {
        let big = a > 88
        let h = fastExp(big ? 0.5 * a : a)
        return big ? h * (0.5 * h) : 0.5 * h
    }

    /// cosh x = e^|x|/2 + 1/(4·e^|x|/2) (no cancellation: both terms are positive).
    @inline(__always) static func fastCosh(_ x: Float) -> Float {
        let half = fastHalfExp(x.magnitude)
        return half + 0.25 / half
    }

    /// sinh x: below 1 in magnitude Cephes `sinhf`'s x + x³·p(x²), else ±(e^|x|/2 − 1/(4·e^|x|/2)).
    @inline(__always) static func fastSinh(_ x: Float) -> Float {
        let a = x.magnitude
        let z = x * x
        var p: Float = 2.03721912945e-4
        p = Float(8.33028376239e-3).addingProduct(p, z)
        p = Float(1.66667160211e-1).addingProduct(p, z)
        let series = x.addingProduct(x * z, p)
        let half = fastHalfExp(a)
        let large = Float(signOf: x, magnitudeOf: half - 0.25 / half)
        return a < 1 ? series : large
    }

    /// tanh x: below 0.625 in magnitude Cephes `tanhf`'s x + x³·p(x²), else
    /// ±(1 − 2/(e^2|x| + 1)), which saturates to ±1 (e^2|x| overflows to ∞ past 44).
    @inline(__always) static func fastTanh(_ x: Float) -> Float {
        let a = x.magnitude
        let z = x * x
        var p: Float = -5.70498872745e-3
        p = Float(2.06390887954e-2).addingProduct(p, z)
        p = Float(-5.37397155531e-2).addingProduct(p, z)
        p = Float(1.33314422036e-1).addingProduct(p, z)
        p = Float(-3.33332819422e-1).addingProduct(p, z)
        // On |x|, then x's sign: x + x³·p with p < 0 would turn −0 into +0.
        let series = a.addingProduct(a * z, p)
        let large = 1 - 2 / (fastExp(a + a) + 1)
        return Float(signOf: x, magnitudeOf: a < 0.625 ? series : large)
    }
}
