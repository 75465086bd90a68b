import KilnBytecode

/// Evaluates instructions on constant operands at compile time, bit-identically to the VM.
///
/// Only opcodes whose result IEEE 754 (or two's complement) pins down exactly are folded:
/// the basic arithmetic, comparisons, rounding, square root, integer ops and conversions.
/// Transcendental builtins (`fsin`, `fexp`, `fpow`, …) are never folded, because the VM
/// computes them with its own implementations and the folded value could differ in the
/// last bit.
enum ConstantFolder {
    /// The folded result, or nil when the opcode is not folded.
    static func fold(_ opcode: Opcode, _ operands: [UInt32]) -> UInt32? {
        func f(_ i: Int) -> Float { Float(bitPattern: operands[i]) }
        func s(_ i: Int) -> Int32 { Int32(bitPattern: operands[i]) }
        func u(_ i: Int) -> UInt32 { operands[i] }
        func bits(_ value: Float) -> UInt32 { value.bitPattern }
        func bool(_ value: Bool) -> UInt32 { value ? 1 : 0 }
        switch (opcode, operands.count) {
        case (.mov, 1): return u(0)
        case (.sel, 3): return u(0) != 0 ? u(1) : u(2)
        case (.fadd, 2): return bits(f(0) + f(1))
        case (.fsub, 2): return bits(f(0) - f(1))
        case (.fmul, 2): return bits(f(0) * f(1))
        case (.fdiv, 2): return bits(f(0) / f(1))
        case (.fneg, 1): return u(0) ^ 0x8000_0000
        case (.fabs, 1): return u(0) & 0x7FFF_FFFF
        case (.fmin, 2):
            // NaN and signed-zero cases are left to the VM.
            if f(0).isNaN || f(1).isNaN || (f(0) == f(1) && u(0) != u(1)) { return nil }
            return bits(Swift.min(f(0), f(1)))
        case (.fmax, 2):
            if f(0).isNaN || f(1).isNaN || (f(0) == f(1) && u(0) != u(1)) { return nil }
            return bits(Swift.max(f(0), f(1)))
        case (.ffloor, 1): return bits(f(0).rounded(.down))
        case (.fceil, 1): return bits(f(0).rounded(.up))
        case (.ftrunc, 1): return bits(f(0).rounded(.towardZero))
        case (.fround, 1): return bits(f(0).rounded(.toNearestOrAwayFromZero))
        case (.frint, 1): return bits(f(0).rounded(.toNearestOrEven))
        case (.fsqrt, 1): return bits(f(0).squareRoot())
        case (.feq, 2): return bool(f(0) == f(1))
        case (.fne, 2): return bool(f(0) != f(1))
        case (.flt, 2): return bool(f(0) < f(1))
        case (.fle, 2): return bool(f(0) <= f(1))
        case (.fisnan, 1): return bool(f(0).isNaN)
        case (.fisinf, 1): return bool(f(0).isInfinite)
        case (.iadd, 2): return u(0) &+ u(1)
        case (.isub, 2): return u(0) &- u(1)
        case (.imul, 2): return u(0) &* u(1)
        case (.idiv, 2):
            if s(1) == 0 { return 0 }
            if s(0) == Int32.min && s(1) == -1 { return u(0) }
            return UInt32(bitPattern: s(0) / s(1))
        case (.irem, 2):
            if s(1) == 0 || s(1) == -1 { return 0 }
            return UInt32(bitPattern: s(0) % s(1))
        case (.udiv, 2): return u(1) == 0 ? 0 : u(0) / u(1)
        case (.urem, 2): return u(1) == 0 ? 0 : u(0) % u(1)
        case (.ineg, 1): return 0 &- u(0)
        case (.iabs, 1): return s(0) < 0 ? 0 &- u(0) : u(0)
        case (.imin, 2): return UInt32(bitPattern: Swift.min(s(0), s(1)))
        case (.imax, 2): return UInt32(bitPattern: Swift.max(s(0), s(1)))
        case (.umin, 2): return Swift.min(u(0), u(1))
        case (.umax, 2): return Swift.max(u(0), u(1))
        case (.and, 2): return u(0) & u(1)
        case (.or, 2): return u(0) | u(1)
        case (.xor, 2): return u(0) ^ u(1)
        case (.not, 1): return ~u(0)
        case (.lnot, 1): return bool(u(0) == 0)
        case (.shl, 2): return u(0) << (u(1) & 31)
        case (.shr, 2): return UInt32(bitPattern: s(0) >> Int32(u(1) & 31))
        case (.ushr, 2): return u(0) >> (u(1) & 31)
        case (.ieq, 2): return bool(u(0) == u(1))
        case (.ine, 2): return bool(u(0) != u(1))
        case (.ilt, 2): return bool(s(0) < s(1))
        case (.ile, 2): return bool(s(0) <= s(1))
        case (.ult, 2): return bool(u(0) < u(1))
        case (.ule, 2): return bool(u(0) <= u(1))
        case (.itof, 1): return bits(Float(s(0)))
        case (.utof, 1): return bits(Float(u(0)))
        case (.ftoi, 1):
            let x = f(0)
            if x.isNaN { return 0 }
            if x >= 2147483648.0 { return UInt32(bitPattern: Int32.max) }
            if x <= -2147483648.0 { return UInt32(bitPattern: Int32.min) }
            return UInt32(bitPattern: Int32(x.rounded(.towardZero)))
        case (.ftou, 1):
            let x = f(0)
            if x.isNaN || x <= 0 { return 0 }
            if x >= 4294967296.0 { return UInt32.max }
            return UInt32(x.rounded(.towardZero))
        case (.sext16, 1): return UInt32(bitPattern: Int32(Int16(truncatingIfNeeded: u(0))))
        case (.zext16, 1): return u(0) & 0xFFFF
        default: return nil
        }
    }

    /// For a two-operand instruction with one constant operand that leaves the other
    /// unchanged, bit for bit, for every value (`x - +0`, `x + -0`, `x · 1`, `x / 1`,
    /// `x | 0`, `x + 0` and `x - 0` on integers…): which operand is the result (0 or 1), or
    /// nil. The `p - float3(0, 1.3, 0)` of an SDF scene and the `· 1` of an inlined helper's
    /// default scale cost a dispatch per batch otherwise (torus: 24 `x - 0` in its body).
    /// Not `x + +0` or `x - -0`: they turn -0 into +0 (so `1 / x` would change sign), nor
    /// `x · 0` (NaN, infinities and signs). The one value these rules change is a
    /// signalling NaN, which arithmetic would have quieted; shaders make them only by
    /// reinterpreting bits.
    static func identityOperand(_ opcode: Opcode, _ b: UInt32?, _ c: UInt32?) -> Int? {
        let positiveZero: UInt32 = 0, negativeZero: UInt32 = 0x8000_0000, one = Float(1).bitPattern
        switch opcode {
        case .fadd:
            if c == negativeZero { return 0 }
            if b == negativeZero { return 1 }
        case .fsub:
            if c == positiveZero { return 0 }
        case .fmul:
            if c == one { return 0 }
            if b == one { return 1 }
        case .fdiv:
            if c == one { return 0 }
        case .iadd, .or, .xor:
            if c == 0 { return 0 }
            if b == 0 { return 1 }
        case .isub, .shl, .shr, .ushr:
            if c == 0 { return 0 }
        case .imul:
            if c == 1 { return 0 }
            if b == 1 { return 1 }
        default:
            break
        }
        return nil
    }

    /// The bits of 1/c when dividing by the float `c` is exactly multiplying by that:
    /// c = ±2ᵏ with c and 1/c both normal. Then x/c and x·(1/c) are the same real number,
    /// each rounded once, so the same bits for every x — NaN payloads, infinities,
    /// subnormal results and signed zeros included. Why: `smoothstep(0.6, 0.1, d)` divides
    /// by −0.5 and `uv / 2.0` by 2, and a vector division costs about ten multiplications
    /// (`vdivps` against `vmulps` throughput). Other divisors stay divisions: their
    /// reciprocal is rounded, so the product can differ in the last bit.
    static func exactReciprocal(ofDivisor c: UInt32) -> UInt32? {
        let exponent = (c >> 23) & 0xFF
        guard c & 0x7F_FFFF == 0, (1...253).contains(exponent) else { return nil }
        return (c & 0x8000_0000) | ((254 - exponent) << 23)
    }
}
