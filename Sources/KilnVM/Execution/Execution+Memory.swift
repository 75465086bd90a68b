import KilnBytecode

/// Data movement: moves, constants, uniform arguments, the masked select, and dynamically
/// indexed register arrays, constant arrays and buffers. Every index is range-checked per
/// lane: out of range reads 0 and writes nothing.
extension Execution {
    @inline(__always) static func mov(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { $0 } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = b[l] }
    }
    /// `imm` already holds the constant's bits (see `PreparedInstruction`).
    @inline(__always) static func const(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], value = i.imm
        for l in 0..<n { a[l] = value }
    }
    @inline(__always) static func arg(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a]
        let value = Int(i.imm) < m.uniformCount ? m.uniforms[Int(i.imm)] : 0
        for l in 0..<n { a[l] = value }
    }
    @inline(__always) static func sel(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return selectGroups(m, i) }
        let a = m[i.a], b = m[i.b], c = m[i.c], d = m[i.d]
        for l in 0..<n { a[l] = b[l] != 0 ? c[l] : d[l] }
    }
    /// `R[a] := R[b + R[c]]` if `R[c] < imm`; lane l of register b+k is at `b + k·laneCount + l`.
    @inline(__always) static func ldr(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], base = m[i.b], index = m[i.c], count = i.imm
        for l in 0..<n {
            let k = index[l]
            a[l] = k < count ? base[Int(k) &* laneCount &+ l] : 0
        }
    }
    /// `R[a + R[c]] := R[b]` in lanes where `R[d] ≠ 0` and `R[c] < imm`. The mask and value are
    /// read before any write, so a store that overwrites its own index or value register
    /// still uses the old lane values.
    @inline(__always) static func str(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let base = m[i.a], value = m[i.b], index = m[i.c], mask = m[i.d], count = i.imm
        for l in 0..<n {
            let k = index[l], v = value[l]
            if k < count && mask[l] != 0 { base[Int(k) &* laneCount &+ l] = v }
        }
    }
    /// `R[a] := K[imm + R[b]]` if `R[b] < d` (d is a count).
    @inline(__always) static func ldk(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], index = m[i.b], count = UInt64(i.d), first = UInt64(i.imm)
        let constantCount = UInt64(m.constantCount)
        for l in 0..<n {
            let k = UInt64(index[l]), slot = first + k
            a[l] = (k < count && slot < constantCount) ? m.constants[Int(slot)] : 0
        }
    }
    /// `R[a] := Buf[imm][R[b]]` if the slot is bound and the index is in range.
    @inline(__always) static func ldb(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], index = m[i.b]
        let slot = Int(i.imm)
        guard slot < m.bufferCount else {
            for l in 0..<n { a[l] = 0 }
            return
        }
        let buffer = m.buffers[slot]
        for l in 0..<n {
            let k = Int(index[l])
            a[l] = k < buffer.count ? buffer.words[k] : 0
        }
    }
}
