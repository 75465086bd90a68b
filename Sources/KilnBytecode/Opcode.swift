/// The Kiln instruction set: one table, one line of semantics per opcode.
///
/// Every instruction operates on *lane-wide* 32-bit registers: `R[x]` below means
/// "register x in every lane of the batch". Bytecode is scalar: the compiler lowers
/// vectors and matrices to their components. Notation:
///
/// - `R[a]`, `R[b]`, `R[c]`, `R[d]`: registers named by the instruction's fields;
///   `f`, `i`, `u` mark how the 32 bits are read (binary32, two's-complement int32, uint32).
/// - `K[n]`: 32-bit word n of the library's constant pool; `U[n]`: word n of the draw's
///   uniform argument block; `Buf[s][n]`: word n of bound buffer s (array arguments).
/// - `pc`: index of the next instruction, relative to the function's first instruction.
/// - Booleans are 0 or 1. A *mask* is a register of booleans, one per lane.
///
/// Nothing traps: integer division by zero gives 0, out-of-range loads give 0,
/// out-of-range stores do nothing, float→int conversions saturate (NaN → 0).
/// See `docs/isa.md` for the same table with the encoding and the SPMD rules.
public enum Opcode: UInt8, CaseIterable, Sendable {
    // MARK: data movement
    /// `mov a, b`: `R[a] := R[b]`
    case mov = 0
    /// `const a, #imm`: `R[a] := K[imm]` in every lane
    case const
    /// `arg a, #imm`: `R[a] := U[imm]` (a uniform argument word) in every lane
    case arg
    /// `sel a, b, c, d`: `R[a] := R[b] ≠ 0 ? R[c] : R[d]` (per lane; the masked write)
    case sel
    /// `ldr a, b, c, #imm`: `R[a] := R[b + R[c]u]` if `R[c]u < imm` else 0 (dynamic index into registers b..b+imm-1)
    case ldr
    /// `str a, b, c, d, #imm`: `R[a + R[c]u] := R[b]` in lanes where `R[d] ≠ 0` and `R[c]u < imm`
    case str
    /// `ldk a, b, d, #imm`: `R[a] := K[imm + R[b]u]` if `R[b]u < d` else 0 (constant arrays)
    case ldk
    /// `ldb a, b, #imm`: `R[a] := Buf[imm][R[b]u]` if in range else 0 (array arguments, vertex buffers)
    case ldb

    // MARK: float arithmetic (IEEE binary32, round to nearest even, no implicit fusion)
    /// `fadd a, b, c`: `R[a]f := R[b]f + R[c]f`
    case fadd
    /// `fsub a, b, c`: `R[a]f := R[b]f − R[c]f`
    case fsub
    /// `fmul a, b, c`: `R[a]f := R[b]f × R[c]f`
    case fmul
    /// `fdiv a, b, c`: `R[a]f := R[b]f ÷ R[c]f`
    case fdiv
    /// `fma a, b, c, d`: `R[a]f := R[b]f × R[c]f + R[d]f` rounded once (only from `fma()`)
    case fma
    /// `fneg a, b`: `R[a]f := −R[b]f`
    case fneg
    /// `fabs a, b`: `R[a]f := |R[b]f|`
    case fabs
    /// `fmin a, b, c`: `R[a]f := min(R[b]f, R[c]f)`; if one operand is NaN, the other
    case fmin
    /// `fmax a, b, c`: `R[a]f := max(R[b]f, R[c]f)`; if one operand is NaN, the other
    case fmax
    /// `ffloor a, b`: `R[a]f := ⌊R[b]f⌋`
    case ffloor
    /// `fceil a, b`: `R[a]f := ⌈R[b]f⌉`
    case fceil
    /// `ftrunc a, b`: `R[a]f := R[b]f` rounded toward zero
    case ftrunc
    /// `fround a, b`: `R[a]f := R[b]f` rounded to nearest, halfway cases away from zero
    case fround
    /// `frint a, b`: `R[a]f := R[b]f` rounded to nearest, halfway cases to even
    case frint
    /// `ffract a, b`: `R[a]f := min(x − ⌊x⌋, 0x1.fffffep-1)` with `x = R[b]f`
    case ffract
    /// `fsqrt a, b`: `R[a]f := √R[b]f` (correctly rounded)
    case fsqrt
    /// `frsqrt a, b`: `R[a]f := 1 / √R[b]f`
    case frsqrt
    /// `fsin a, b`: `R[a]f := sin(R[b]f)` in binary32 (≤ 2 ulp for |x| < 1e6; beyond, as `psin`)
    case fsin
    /// `fcos a, b`: `R[a]f := cos(R[b]f)` in binary32 (≤ 2 ulp for |x| < 1e6; beyond, as `pcos`)
    case fcos
    /// `ftan a, b`: `R[a]f := tan(R[b]f)` in binary32 (≤ 4 ulp for |x| < 1e6; beyond, as `ptan`)
    case ftan
    /// `fasin a, b`: `R[a]f := asin(R[b]f)` in binary32 (≤ 3 ulp; |x| > 1 → NaN)
    case fasin
    /// `facos a, b`: `R[a]f := acos(R[b]f)` in binary32 (≤ 3 ulp; |x| > 1 → NaN)
    case facos
    /// `fatan a, b`: `R[a]f := atan(R[b]f)` in binary32 (≤ 3 ulp)
    case fatan
    /// `fatan2 a, b, c`: `R[a]f := atan2(y: R[b]f, x: R[c]f)` in binary32 (≤ 3 ulp; C's zero and ∞ rules)
    case fatan2
    /// `fsinh a, b`: `R[a]f := sinh(R[b]f)` in binary32 (≤ 3 ulp)
    case fsinh
    /// `fcosh a, b`: `R[a]f := cosh(R[b]f)` in binary32 (≤ 3 ulp)
    case fcosh
    /// `ftanh a, b`: `R[a]f := tanh(R[b]f)` in binary32 (≤ 3 ulp)
    case ftanh
    /// `fexp a, b`: `R[a]f := eˣ` with `x = R[b]f`, in binary32 (≤ 2 ulp)
    case fexp
    /// `fexp2 a, b`: `R[a]f := 2ˣ` in binary32 (≤ 2 ulp)
    case fexp2
    /// `flog a, b`: `R[a]f := ln(R[b]f)` in binary32 (≤ 2 ulp; negative → NaN, 0 → −∞)
    case flog
    /// `flog2 a, b`: `R[a]f := log₂(R[b]f)` in binary32 (≤ 2 ulp)
    case flog2
    /// `flog10 a, b`: `R[a]f := log₁₀(R[b]f)` in binary32 (≤ 2 ulp)
    case flog10
    /// `fpow a, b, c`: `R[a]f := R[b]f ^ R[c]f` in binary32 (≤ 2 ulp for |y| ≤ 18, ≤ 16 ulp on the whole range; C `powf` special cases)
    case fpow
    /// `fmod a, b, c`: `R[a]f := x − y × trunc(x / y)` with `x = R[b]f, y = R[c]f` (C `fmodf`)
    case fmod
    /// `fsign a, b`: `R[a]f := x > 0 ? 1 : x < 0 ? −1 : x` with `x = R[b]f` (±0 and NaN pass through as 0)
    case fsign
    /// `fisnan a, b`: `R[a] := R[b]f is NaN ? 1 : 0`
    case fisnan
    /// `fisinf a, b`: `R[a] := R[b]f is ±∞ ? 1 : 0`
    case fisinf
    /// `feq a, b, c`: `R[a] := R[b]f == R[c]f ? 1 : 0` (ordered: NaN compares unequal)
    case feq
    /// `fne a, b, c`: `R[a] := R[b]f != R[c]f ? 1 : 0` (NaN → 1)
    case fne
    /// `flt a, b, c`: `R[a] := R[b]f < R[c]f ? 1 : 0`
    case flt
    /// `fle a, b, c`: `R[a] := R[b]f ≤ R[c]f ? 1 : 0`
    case fle

    // MARK: integer arithmetic (32-bit two's complement, wrapping)
    /// `iadd a, b, c`: `R[a] := R[b] + R[c]` (wraps)
    case iadd
    /// `isub a, b, c`: `R[a] := R[b] − R[c]` (wraps)
    case isub
    /// `imul a, b, c`: `R[a] := R[b] × R[c]` (low 32 bits)
    case imul
    /// `idiv a, b, c`: `R[a]i := R[b]i ÷ R[c]i` toward zero; ÷0 → 0; INT_MIN ÷ −1 → INT_MIN
    case idiv
    /// `irem a, b, c`: `R[a]i := R[b]i rem R[c]i` (sign of dividend); rem 0 → 0; INT_MIN rem −1 → 0
    case irem
    /// `udiv a, b, c`: `R[a]u := R[b]u ÷ R[c]u`; ÷0 → 0
    case udiv
    /// `urem a, b, c`: `R[a]u := R[b]u mod R[c]u`; mod 0 → 0
    case urem
    /// `ineg a, b`: `R[a]i := −R[b]i` (wraps)
    case ineg
    /// `iabs a, b`: `R[a]i := |R[b]i|` (INT_MIN stays INT_MIN)
    case iabs
    /// `imin a, b, c`: `R[a]i := min(R[b]i, R[c]i)`
    case imin
    /// `imax a, b, c`: `R[a]i := max(R[b]i, R[c]i)`
    case imax
    /// `umin a, b, c`: `R[a]u := min(R[b]u, R[c]u)`
    case umin
    /// `umax a, b, c`: `R[a]u := max(R[b]u, R[c]u)`
    case umax
    /// `and a, b, c`: `R[a] := R[b] & R[c]` (also logical and of booleans)
    case and
    /// `or a, b, c`: `R[a] := R[b] | R[c]` (also logical or of booleans)
    case or
    /// `xor a, b, c`: `R[a] := R[b] ^ R[c]`
    case xor
    /// `not a, b`: `R[a] := ~R[b]` (bitwise)
    case not
    /// `lnot a, b`: `R[a] := R[b] == 0 ? 1 : 0` (logical not)
    case lnot
    /// `shl a, b, c`: `R[a] := R[b] << (R[c]u & 31)`
    case shl
    /// `shr a, b, c`: `R[a]i := R[b]i >> (R[c]u & 31)` (arithmetic)
    case shr
    /// `ushr a, b, c`: `R[a]u := R[b]u >> (R[c]u & 31)` (logical)
    case ushr
    /// `ieq a, b, c`: `R[a] := R[b] == R[c] ? 1 : 0`
    case ieq
    /// `ine a, b, c`: `R[a] := R[b] != R[c] ? 1 : 0`
    case ine
    /// `ilt a, b, c`: `R[a] := R[b]i < R[c]i ? 1 : 0`
    case ilt
    /// `ile a, b, c`: `R[a] := R[b]i ≤ R[c]i ? 1 : 0`
    case ile
    /// `ult a, b, c`: `R[a] := R[b]u < R[c]u ? 1 : 0`
    case ult
    /// `ule a, b, c`: `R[a] := R[b]u ≤ R[c]u ? 1 : 0`
    case ule

    // MARK: conversions
    /// `itof a, b`: `R[a]f := Float(R[b]i)` (round to nearest even)
    case itof
    /// `utof a, b`: `R[a]f := Float(R[b]u)`
    case utof
    /// `ftoi a, b`: `R[a]i := Int32(R[b]f)` toward zero, saturating; NaN → 0
    case ftoi
    /// `ftou a, b`: `R[a]u := UInt32(R[b]f)` toward zero, saturating (negative → 0); NaN → 0
    case ftou
    /// `sext16 a, b`: `R[a]i := Int32(Int16(truncatingIfNeeded: R[b]))` (to `short`)
    case sext16
    /// `zext16 a, b`: `R[a]u := R[b]u & 0xFFFF` (to `ushort`)
    case zext16

    // MARK: textures
    /// `sample a, b, c, #imm, mode`: `R[a…a+3]f := sample(texture imm, x: R[b]f, y: R[c]f)` with `SampleMode(mode)`
    case sample
    /// `texread a, b, c, #imm`: `R[a…a+3]f := texel(texture imm, R[b]u, R[c]u)`; outside → 0
    case texread
    /// `texsize a, #imm`: `R[a]u := width, R[a+1]u := height` of texture imm
    case texsize

    // MARK: control flow (targets are absolute indexes into `Library.code` that lie inside
    // the code range — prologue or body — being executed)
    /// `jmp #imm`: `pc := imm`
    case jmp
    /// `jz a, #imm`: if `R[a]` (uniform; lane 0 decides) == 0 then `pc := imm`
    case jz
    /// `jnz a, #imm`: if `R[a]` (uniform; lane 0 decides) ≠ 0 then `pc := imm`
    case jnz
    /// `jnone a, #imm`: if no lane of the mask `R[a]` is set then `pc := imm` (skip an empty arm)
    case jnone
    /// `jany a, #imm`: if some lane of the mask `R[a]` is set then `pc := imm` (loop back edge; charges the instruction budget)
    case jany
    /// `ret`: end of this code range
    case ret

    // MARK: derivatives (a batch is 16 quads of 2×2 pixels: lane = 4·quad + 2·row + column)
    /// `dfdx a, b`: `R[a]f := R[b]f[lane | 1] − R[b]f[lane & ~1]` (fine: across this pixel's row of its quad)
    case dfdx
    /// `dfdy a, b`: `R[a]f := R[b]f[lane | 2] − R[b]f[lane & ~2]` (fine: across this pixel's column of its quad)
    case dfdy
    /// `dfdxc a, b`: `R[a]f := R[b]f[4·quad + 1] − R[b]f[4·quad]` (coarse: the quad's top row, for all four)
    case dfdxc
    /// `dfdyc a, b`: `R[a]f := R[b]f[4·quad + 2] − R[b]f[4·quad]` (coarse: the quad's left column, for all four)
    case dfdyc

    // MARK: texture writes (kernel functions; after the derivatives so earlier opcode numbers stay put)
    /// `texwrite a, b, c, d, #imm`: `texel(texture imm, R[b]u, R[c]u) := R[a…a+3]f` in lanes where `R[d] ≠ 0`; outside → nothing
    case texwrite

    // MARK: precise transcendentals (`precise::sin` …; after the texture writes so earlier
    // opcode numbers stay put). Evaluated in binary64 and rounded once: a result differs
    // from the correctly rounded one only when the exact value lies within 2⁻²¹ ulp of a
    // rounding boundary, by 1 ulp (docs/vm.md "Math accuracy").
    /// `psin a, b`: `R[a]f := sin(R[b]f)` in binary64, rounded once (≤ 1 ulp for |x| ≤ 1e5, ≤ 2 ulp beyond)
    case psin
    /// `pcos a, b`: `R[a]f := cos(R[b]f)` in binary64, rounded once (≤ 1 ulp for |x| ≤ 1e5, ≤ 2 ulp beyond)
    case pcos
    /// `ptan a, b`: `R[a]f := tan(R[b]f)` in binary64, rounded once (≤ 4 ulp)
    case ptan
    /// `pexp a, b`: `R[a]f := eˣ` with `x = R[b]f`, in binary64, rounded once (≤ 1 ulp)
    case pexp
    /// `pexp2 a, b`: `R[a]f := 2ˣ` in binary64, rounded once (≤ 1 ulp)
    case pexp2
    /// `pasin a, b`: `R[a]f := asin(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case pasin
    /// `pacos a, b`: `R[a]f := acos(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case pacos
    /// `patan a, b`: `R[a]f := atan(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case patan
    /// `patan2 a, b, c`: `R[a]f := atan2(y: R[b]f, x: R[c]f)` in binary64, rounded once (≤ 1 ulp)
    case patan2
    /// `plog a, b`: `R[a]f := ln(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case plog
    /// `plog2 a, b`: `R[a]f := log₂(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case plog2
    /// `plog10 a, b`: `R[a]f := log₁₀(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case plog10
    /// `ppow a, b, c`: `R[a]f := R[b]f ^ R[c]f` in binary64, rounded once (≤ 1 ulp; C `powf` special cases)
    case ppow
    /// `psinh a, b`: `R[a]f := sinh(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case psinh
    /// `pcosh a, b`: `R[a]f := cosh(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case pcosh
    /// `ptanh a, b`: `R[a]f := tanh(R[b]f)` in binary64, rounded once (≤ 1 ulp)
    case ptanh
}

/// Which fields of an instruction an opcode reads and writes, and what `imm` means.
/// The verifier, the disassembler and the compiler's encoder all work from this one shape.
public enum OperandShape: Sendable, Equatable {
    /// No operands (`ret`).
    case none
    /// `a` ← constant pool index `imm`.
    case destConstant
    /// `a` ← uniform argument word `imm`.
    case destArgument
    /// `a` ← op(`b`).
    case unary
    /// `a` ← op(`b`, `c`).
    case binary
    /// `a` ← op(`b`, `c`, `d`).
    case ternary
    /// `ldr`: `a` ← registers `b ..< b+imm` at index `R[c]`.
    case loadRegisterArray
    /// `str`: registers `a ..< a+imm` at index `R[c]` ← `b` under mask `d`.
    case storeRegisterArray
    /// `ldk`: `a` ← constants `imm ..< imm+d` at index `R[b]`.
    case loadConstantArray
    /// `ldb`: `a` ← buffer `imm` at index `R[b]`.
    case loadBuffer
    /// `sample`/`texread`: `a…a+3` ← texture `imm` at (`b`, `c`); `mode` is a `SampleMode` for `sample`.
    case texture
    /// `texsize`: `a`, `a+1` ← size of texture `imm`.
    case textureSize
    /// `texwrite`: texture `imm` at (`b`, `c`) ← `a…a+3` under mask `d`.
    case textureWrite
    /// `jmp`: target `imm`.
    case jump
    /// `jz`/`jnz`/`jnone`/`jany`: condition `a`, target `imm`.
    case conditionalJump
}

extension Opcode {
    /// The assembler mnemonic, as the disassembler prints it.
    public var mnemonic: String { String(describing: self) }

    /// The operand shape of this opcode.
    public var shape: OperandShape {
        switch self {
        case .ret: return .none
        case .const: return .destConstant
        case .arg: return .destArgument
        case .mov, .fneg, .fabs, .ffloor, .fceil, .ftrunc, .fround, .frint, .ffract, .fsqrt, .frsqrt,
             .fsin, .fcos, .ftan, .fasin, .facos, .fatan, .fsinh, .fcosh, .ftanh, .fexp, .fexp2,
             .flog, .flog2, .flog10, .fsign, .fisnan, .fisinf, .ineg, .iabs, .not, .lnot,
             .psin, .pcos, .ptan, .pexp, .pexp2, .pasin, .pacos, .patan, .plog, .plog2, .plog10,
             .psinh, .pcosh, .ptanh,
             .itof, .utof, .ftoi, .ftou, .sext16, .zext16, .dfdx, .dfdy, .dfdxc, .dfdyc:
            return .unary
        case .fadd, .fsub, .fmul, .fdiv, .fmin, .fmax, .fatan2, .fpow, .patan2, .ppow, .fmod, .feq, .fne, .flt, .fle,
             .iadd, .isub, .imul, .idiv, .irem, .udiv, .urem, .imin, .imax, .umin, .umax,
             .and, .or, .xor, .shl, .shr, .ushr, .ieq, .ine, .ilt, .ile, .ult, .ule:
            return .binary
        case .sel, .fma: return .ternary
        case .ldr: return .loadRegisterArray
        case .str: return .storeRegisterArray
        case .ldk: return .loadConstantArray
        case .ldb: return .loadBuffer
        case .sample, .texread: return .texture
        case .texsize: return .textureSize
        case .texwrite: return .textureWrite
        case .jmp: return .jump
        case .jz, .jnz, .jnone, .jany: return .conditionalJump
        }
    }
}

/// How a `sample` instruction filters and addresses (its `mode` byte).
///
/// bit 0: coordinates are normalized (0…1 across the texture) instead of pixels;
/// bit 1: linear filter (else nearest); bits 2–3: address mode.
public struct SampleMode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Address modes of Metal samplers that Kiln implements.
    public enum Address: UInt8, Sendable, CaseIterable {
        /// Texels outside the image are transparent black (SwiftUI layers and distortions).
        case zero = 0
        /// Indexes are clamped into the image (Metal's default, `clamp_to_edge`).
        case clampToEdge = 1
        /// Coordinates wrap (`repeat`).
        case `repeat` = 2
        /// Coordinates mirror at every edge (`mirrored_repeat`).
        case mirroredRepeat = 3
    }

    public init(normalized: Bool, linear: Bool, address: Address) {
        rawValue = (normalized ? 1 : 0) | (linear ? 2 : 0) | (address.rawValue << 2)
    }
    public var normalized: Bool { rawValue & 1 != 0 }
    public var linear: Bool { rawValue & 2 != 0 }
    public var address: Address { Address(rawValue: (rawValue >> 2) & 3)! }

    /// `layer.sample(p)`: pixel coordinates, bilinear, transparent outside.
    public static let layer = SampleMode(normalized: false, linear: true, address: .zero)
    /// What a `sampler` *parameter* is bound to in a preview: normalized, linear, clamp to edge.
    public static let samplerParameter = SampleMode(normalized: true, linear: true, address: .clampToEdge)
    /// Highest valid raw value (the verifier rejects anything above).
    public static let maxRawValue: UInt8 = 15
}
