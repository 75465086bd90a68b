import KilnBytecode

/// Dispatch and control flow. `step` is the one `switch` over the opcode; it is inlined into
/// the executor's hot loop (and, separately, into the trace loop).
///
/// Jumps: `jmp` always; `jz`/`jnz` test lane 0 of a uniform condition; `jnone` skips a
/// block when no lane of the mask is set; `jany` loops while some lane is. Targets are
/// already relative to the running code range.
extension Execution {
    /// True if some lane of `mask` is non-zero (an OR reduction the optimizer vectorizes).
    @inline(__always) static func anyLane(_ mask: UnsafeMutablePointer<UInt32>) -> Bool {
        var bits: UInt32 = 0
        for l in 0..<laneCount { bits |= mask[l] }
        return bits != 0
    }

    @inline(__always) static func step(_ m: Machine, _ i: PreparedInstruction) -> Flow {
        switch i.opcode {
        case .mov: mov(m, i)
        case .const: const(m, i)
        case .arg: arg(m, i)
        case .sel: sel(m, i)
        case .ldr: ldr(m, i)
        case .str: str(m, i)
        case .ldk: ldk(m, i)
        case .ldb: ldb(m, i)
        case .fadd: fadd(m, i)
        case .fsub: fsub(m, i)
        case .fmul: fmul(m, i)
        case .fdiv: fdiv(m, i)
        case .fma: fma(m, i)
        case .fneg: fneg(m, i)
        case .fabs: fabs(m, i)
        case .fmin: fmin(m, i)
        case .fmax: fmax(m, i)
        case .ffloor: ffloor(m, i)
        case .fceil: fceil(m, i)
        case .ftrunc: ftrunc(m, i)
        case .fround: fround(m, i)
        case .frint: frint(m, i)
        case .ffract: ffract(m, i)
        case .fsqrt: fsqrt(m, i)
        case .frsqrt: frsqrt(m, i)
        case .fsin: fsin(m, i)
        case .fcos: fcos(m, i)
        case .ftan: ftan(m, i)
        case .fasin: fasin(m, i)
        case .facos: facos(m, i)
        case .fatan: fatan(m, i)
        case .fatan2: fatan2(m, i)
        case .fsinh: fsinh(m, i)
        case .fcosh: fcosh(m, i)
        case .ftanh: ftanh(m, i)
        case .fexp: fexp(m, i)
        case .fexp2: fexp2(m, i)
        case .flog: flog(m, i)
        case .flog2: flog2(m, i)
        case .flog10: flog10(m, i)
        case .fpow: fpow(m, i)
        case .fmod: fmod(m, i)
        case .fsign: fsign(m, i)
        case .fisnan: fisnan(m, i)
        case .fisinf: fisinf(m, i)
        case .feq: feq(m, i)
        case .fne: fne(m, i)
        case .flt: flt(m, i)
        case .fle: fle(m, i)
        case .iadd: iadd(m, i)
        case .isub: isub(m, i)
        case .imul: imul(m, i)
        case .idiv: idiv(m, i)
        case .irem: irem(m, i)
        case .udiv: udiv(m, i)
        case .urem: urem(m, i)
        case .ineg: ineg(m, i)
        case .iabs: iabs(m, i)
        case .imin: imin(m, i)
        case .imax: imax(m, i)
        case .umin: umin(m, i)
        case .umax: umax(m, i)
        case .and: and(m, i)
        case .or: or(m, i)
        case .xor: xor(m, i)
        case .not: not(m, i)
        case .lnot: lnot(m, i)
        case .shl: shl(m, i)
        case .shr: shr(m, i)
        case .ushr: ushr(m, i)
        case .ieq: ieq(m, i)
        case .ine: ine(m, i)
        case .ilt: ilt(m, i)
        case .ile: ile(m, i)
        case .ult: ult(m, i)
        case .ule: ule(m, i)
        case .itof: itof(m, i)
        case .utof: utof(m, i)
        case .ftoi: ftoi(m, i)
        case .ftou: ftou(m, i)
        case .sext16: sext16(m, i)
        case .zext16: zext16(m, i)
        case .sample: sample(m, i)
        case .texread: texread(m, i)
        case .texsize: texsize(m, i)
        case .texwrite: texwrite(m, i)
        case .jmp: return .jump(Int(i.imm))
        case .jz: if m[i.a][0] == 0 { return .jump(Int(i.imm)) }
        case .jnz: if m[i.a][0] != 0 { return .jump(Int(i.imm)) }
        case .jnone: if !anyLane(m[i.a]) { return .jump(Int(i.imm)) }
        case .jany: if anyLane(m[i.a]) { return .jump(Int(i.imm)) }
        case .ret: return .finish
        case .dfdx: derivative(m, i, 1, coarse: false)
        case .dfdy: derivative(m, i, 2, coarse: false)
        case .dfdxc: derivative(m, i, 1, coarse: true)
        case .dfdyc: derivative(m, i, 2, coarse: true)
        }
        return .next
    }
}
