/// The builtin functions of language.md §6. Semantic analysis resolves a call to one of
/// these plus the argument types of the chosen overload (`BuiltinOverloads`); the
/// compiler lowers each component-wise to VM instructions. `T` below is a float/half
/// scalar or vector unless noted; vector overloads work per component.
public enum Builtin: String, Hashable, Sendable, CaseIterable {
    // trigonometry / exponentials (T → T)
    case sin, cos, tan, asin, acos, atan, sinh, cosh, tanh
    /// `atan2(y, x)`
    case atan2
    case exp, exp2, log, log2, log10, sqrt, rsqrt
    /// `precise::sin` … : the binary64 evaluations. Plain `sin`, `cos`, `tan`, `asin`, `acos`,
    /// `atan`, `atan2`, `sinh`, `cosh`, `tanh`, `exp`, `exp2`, `log`, `log2`, `log10` and
    /// `pow` (and `fast::` ones) are binary32 polynomials of a documented error, like Metal's
    /// default fast math; the other functions have one precision (language.md §7).
    case preciseSin = "precise::sin", preciseCos = "precise::cos", preciseTan = "precise::tan"
    case preciseAsin = "precise::asin", preciseAcos = "precise::acos", preciseAtan = "precise::atan"
    case preciseAtan2 = "precise::atan2"
    case preciseExp = "precise::exp", preciseExp2 = "precise::exp2"
    case preciseLog = "precise::log", preciseLog2 = "precise::log2", preciseLog10 = "precise::log10"
    case precisePow = "precise::pow", precisePowr = "precise::powr"
    case preciseSinh = "precise::sinh", preciseCosh = "precise::cosh", preciseTanh = "precise::tanh"
    /// `pow(x, y)`, `powr(x, y)` (powr: x ≥ 0 assumed; same evaluation)
    case pow, powr
    // rounding
    case floor, ceil, trunc, round, rint, fract
    /// `modf(x, thread T &ip)` → fractional part, writes integral part.
    case modf
    // min/max family (also int/uint overloads for abs, min, max, clamp)
    case abs, fabs, min, max, fmin, fmax, min3, max3, clamp, saturate, sign
    /// `fmod(x, y)` = x − y·trunc(x/y)
    case fmod
    /// `mix(a, b, t)` = a + (b − a)·t; `t` may be scalar with vector a, b.
    case mix
    /// `step(edge, x)` = x < edge ? 0 : 1
    case step
    /// `smoothstep(e0, e1, x)`: t = clamp((x−e0)/(e1−e0), 0, 1); t·t·(3−2t)
    case smoothstep
    /// `fma(a, b, c)` fused
    case fma
    // geometry (float vectors)
    case dot, length, distance, normalize, cross, reflect, refract
    /// `length_squared(v)`, `distance_squared(a, b)` (MSL extensions)
    case lengthSquared = "length_squared", distanceSquared = "distance_squared"
    case faceforward
    // relational
    /// `select(a, b, c)` = c ? b : a (per component)
    case select
    case all, any, isnan, isinf
    // matrices
    case transpose, determinant
    // derivatives (differences within a 2×2 quad of pixels; docs/rendering.md "Quads")
    /// `dfdx(p)`, `dfdy(p)`: fine derivatives; `fwidth(p)` = |dfdx| + |dfdy|
    case dfdx, dfdy, fwidth
    case dfdxCoarse = "dfdx_coarse", dfdyCoarse = "dfdy_coarse", fwidthCoarse = "fwidth_coarse"
    case dfdxFine = "dfdx_fine", dfdyFine = "dfdy_fine", fwidthFine = "fwidth_fine"
    /// `discard_fragment()` is a statement; not listed here.

    /// `dfdx`, `dfdy`, `fwidth` in any form: defined only where lanes are pixels in quads.
    public var isDerivative: Bool {
        switch self {
        case .dfdx, .dfdy, .fwidth, .dfdxCoarse, .dfdyCoarse, .fwidthCoarse, .dfdxFine, .dfdyFine, .fwidthFine: true
        default: false
        }
    }
}
