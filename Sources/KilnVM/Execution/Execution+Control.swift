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

    /// Runs a uniform instruction (`PreparedInstruction.isScalar`) on lane 0 only and, when
    /// a lane-wide instruction may read the result (`broadcasts`), copies it to every lane
    /// of its one destination register. The operands
    /// hold the same bits in every lane (`UniformityAnalysis`), so the broadcast equals what
    /// the lane loop would have written, at a `laneCount`th of the arithmetic.
    ///
    /// Out of line on purpose: inlining a second copy of the whole `switch` into the hot loop
    /// made the optimizer outline the lane-wide `step` instead (a call, a stack frame and a
    /// runtime lane count on every varying instruction: raymarch lost a third of its speed).
    ///
    /// The opcodes scalar code is mostly made of (loop counters, the arithmetic of
    /// per-object constants: 70 of the 85 scalar instructions in raymarch's code; the other
    /// 15 are `sin` and `cos`, which go through the memo) run here on their own lane
    /// functions with a lane count of 1 — the same expressions, so the same bits — and
    /// nothing else, so this function needs no stack frame. The whole `switch` inlined with
    /// one lane has a 280-byte frame and a stack-protector check, which perf showed as a
    /// fifth of the time spent here; every other opcode goes to `scalarStepAny`.
    ///
    /// The instructions come by address: passed by value, the seven fields of one were packed
    /// into argument registers at every call (a tenth of raymarch's dispatch samples). And
    /// they come in runs: `count` scalar instructions that follow each other in a block
    /// (`PreparedInstruction.scalarRun`) in one call, instead of a trip through the hot
    /// loop's dispatch, a call and a return for each.
    @inline(never) static func scalarSteps(_ m: Machine, _ first: UnsafePointer<PreparedInstruction>, count: Int) {
        for k in 0..<count { scalarStep(m, first[k]) }
    }

    /// One uniform instruction on lane 0, and its broadcast.
    @inline(__always) static func scalarStep(_ m: Machine, _ i: PreparedInstruction) {
        switch i.opcode {
        case .fadd: fadd(m, i, 1)
        case .fsub: fsub(m, i, 1)
        case .fmul: fmul(m, i, 1)
        case .fdiv: fdiv(m, i, 1)
        case .iadd: iadd(m, i, 1)
        case .isub: isub(m, i, 1)
        case .ilt: ilt(m, i, 1)
        case .ieq: ieq(m, i, 1)
        case .itof: itof(m, i, 1)
        default: scalarStepAny(m, i)
        }
        guard i.broadcasts else { return }
        let a = m[i.a], value = a[0]
        for l in 0..<laneCount { a[l] = value }
    }

    /// Any other uniform instruction on lane 0: transcendentals through `UniformMemo`.
    @inline(never) static func scalarStepAny(_ m: Machine, _ i: PreparedInstruction) {
        if i.isMemoized {
            // Transcendentals look their operands up first (`UniformMemo`).
            let key = UInt64(m[i.b][0]) | (i.memoKeysTwoOperands ? UInt64(m[i.c][0]) << 32 : 0)
            let entry = m.memo + UniformMemo.index(slot: i.d, key: key)
            if entry.pointee.filled != 0 && entry.pointee.key == key {
                m[i.a][0] = entry.pointee.value
            } else {
                _ = step(m, i, lanes: 1)
                entry.pointee = UniformMemo.Entry(key: key, value: m[i.a][0], filled: 1)
            }
        } else {
            _ = step(m, i, lanes: 1)
        }
    }

    @inline(__always) static func step(_ m: Machine, _ i: PreparedInstruction, lanes n: Int = laneCount) -> Flow {
        switch i.opcode {
        case .mov: mov(m, i, n)
        case .const: const(m, i, n)
        case .arg: arg(m, i, n)
        case .sel: sel(m, i, n)
        case .ldr: ldr(m, i, n)
        case .str: str(m, i, n)
        case .ldk: ldk(m, i, n)
        case .ldb: ldb(m, i, n)
        case .fadd: fadd(m, i, n)
        case .fsub: fsub(m, i, n)
        case .fmul: fmul(m, i, n)
        case .fdiv: fdiv(m, i, n)
        case .fma: fma(m, i, n)
        case .fneg: fneg(m, i, n)
        case .fabs: fabs(m, i, n)
        case .fmin: fmin(m, i, n)
        case .fmax: fmax(m, i, n)
        case .ffloor: ffloor(m, i, n)
        case .fceil: fceil(m, i, n)
        case .ftrunc: ftrunc(m, i, n)
        case .fround: fround(m, i, n)
        case .frint: frint(m, i, n)
        case .ffract: ffract(m, i, n)
        case .fsqrt: fsqrt(m, i, n)
        case .frsqrt: frsqrt(m, i, n)
        case .fsin: fsin(m, i, n)
        case .fcos: fcos(m, i, n)
        case .ftan: ftan(m, i, n)
        case .fasin: fasin(m, i, n)
        case .facos: facos(m, i, n)
        case .fatan: fatan(m, i, n)
        case .fatan2: fatan2(m, i, n)
        case .fsinh: fsinh(m, i, n)
        case .fcosh: fcosh(m, i, n)
        case .ftanh: ftanh(m, i, n)
        case .fexp: fexp(m, i, n)
        case .fexp2: fexp2(m, i, n)
        case .psin: psin(m, i, n)
        case .pcos: pcos(m, i, n)
        case .ptan: ptan(m, i, n)
        case .pexp: pexp(m, i, n)
        case .pexp2: pexp2(m, i, n)
        case .pasin: pasin(m, i, n)
        case .pacos: pacos(m, i, n)
        case .patan: patan(m, i, n)
        case .patan2: patan2(m, i, n)
        case .plog: plog(m, i, n)
        case .plog2: plog2(m, i, n)
        case .plog10: plog10(m, i, n)
        case .ppow: ppow(m, i, n)
        case .psinh: psinh(m, i, n)
        case .pcosh: pcosh(m, i, n)
        case .ptanh: ptanh(m, i, n)
        case .flog: flog(m, i, n)
        case .flog2: flog2(m, i, n)
        case .flog10: flog10(m, i, n)
        case .fpow: fpow(m, i, n)
        case .fmod: fmod(m, i, n)
        case .fsign: fsign(m, i, n)
        case .fisnan: fisnan(m, i, n)
        case .fisinf: fisinf(m, i, n)
        case .feq: feq(m, i, n)
        case .fne: fne(m, i, n)
        case .flt: flt(m, i, n)
        case .fle: fle(m, i, n)
        case .iadd: iadd(m, i, n)
        case .isub: isub(m, i, n)
        case .imul: imul(m, i, n)
        case .idiv: idiv(m, i, n)
        case .irem: irem(m, i, n)
        case .udiv: udiv(m, i, n)
        case .urem: urem(m, i, n)
        case .ineg: ineg(m, i, n)
        case .iabs: iabs(m, i, n)
        case .imin: imin(m, i, n)
        case .imax: imax(m, i, n)
        case .umin: umin(m, i, n)
        case .umax: umax(m, i, n)
        case .and: and(m, i, n)
        case .or: or(m, i, n)
        case .xor: xor(m, i, n)
        case .not: not(m, i, n)
        case .lnot: lnot(m, i, n)
        case .shl: shl(m, i, n)
        case .shr: shr(m, i, n)
        case .ushr: ushr(m, i, n)
        case .ieq: ieq(m, i, n)
        case .ine: ine(m, i, n)
        case .ilt: ilt(m, i, n)
        case .ile: ile(m, i, n)
        case .ult: ult(m, i, n)
        case .ule: ule(m, i, n)
        case .itof: itof(m, i, n)
        case .utof: utof(m, i, n)
        case .ftoi: ftoi(m, i, n)
        case .ftou: ftou(m, i, n)
        case .sext16: sext16(m, i, n)
        case .zext16: zext16(m, i, n)
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
