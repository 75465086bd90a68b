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
        if n == laneCount && count <= selectedElementLimit {
            return indexedGroups(into: a, index: index, count: Int(count)) { k, offset in
                UnsafeRawPointer(base + k &* laneCount).loadUnaligned(fromByteOffset: offset, as: WordGroup.self)
            }
        }
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
        if n == laneCount && count <= selectedElementLimit {
            return storeGroups(base: base, value: value, index: index, mask: mask, count: Int(count))
        }
        for l in 0..<n {
            let k = index[l], v = value[l]
            if k < count && mask[l] != 0 { base[Int(k) &* laneCount &+ l] = v }
        }
    }
    /// `R[a] := K[imm + R[b]]` if `R[b] < d` (d is a count).
    @inline(__always) static func ldk(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], index = m[i.b], count = Int(i.d), first = Int(i.imm)
        let constants = m.constants, constantCount = m.constantCount
        if n == laneCount && count <= selectedElementLimit && first + count <= constantCount {
            return indexedGroups(into: a, index: index, count: count) { k, _ in
                WordGroup(repeating: constants[first &+ k])
            }
        }
        for l in 0..<n {
            let k = Int(index[l]), slot = first &+ k
            a[l] = (k < count && slot < constantCount) ? constants[slot] : 0
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

    // MARK: small arrays, eight lanes at a time

    /// Arrays of at most this many elements are read and written with one compare and blend
    /// per element and group of eight lanes (`indexedGroups`, `storeGroups`); longer ones lane
    /// by lane. Why: a lane loop reads one element a lane behind two range checks and a
    /// branch — a palette lookup `table[k]` with a varying `k` cost more than the rest of
    /// its loop (bench/probes/table.metal) — while a blend per element costs ~6 vector
    /// operations for eight lanes, cheaper up to about eight elements.
    static let selectedElementLimit: UInt32 = 8

    /// All ones in the lanes of `index` equal to `k`, else zero: `nonZero(index ^ k) − 1`
    /// (the standard library's `.==` would build the mask lane by lane).
    @inline(__always) static func equalMask(_ index: WordGroup, _ k: Int) -> WordGroup {
        nonZero(index ^ WordGroup(repeating: UInt32(truncatingIfNeeded: k))) &- 1
    }

    /// `R[a] := element(R[index])`, 0 where the index is `count` or more: each lane's result
    /// is the OR of every element masked by "the index is this one" — at most one matches.
    @inline(__always) static func indexedGroups(into a: UnsafeMutablePointer<UInt32>, index: UnsafeMutablePointer<UInt32>,
                                                count: Int, _ element: (Int, Int) -> WordGroup) {
        let destination = UnsafeMutableRawPointer(a), indices = UnsafeRawPointer(index)
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            let k = indices.loadUnaligned(fromByteOffset: offset, as: WordGroup.self)
            var result = WordGroup(repeating: 0)
            for j in 0..<count { result |= element(j, offset) & equalMask(k, j) }
            destination.storeBytes(of: result, toByteOffset: offset, as: WordGroup.self)
        }
    }

    /// `str` on eight lanes: every element register takes the value where the lane's index
    /// names it and its mask is set. Index, value and mask are loaded before the group's
    /// elements are written, as the lane loop reads them before writing.
    @inline(__always) static func storeGroups(base: UnsafeMutablePointer<UInt32>, value: UnsafeMutablePointer<UInt32>,
                                              index: UnsafeMutablePointer<UInt32>, mask: UnsafeMutablePointer<UInt32>,
                                              count: Int) {
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            let k = UnsafeRawPointer(index).loadUnaligned(fromByteOffset: offset, as: WordGroup.self)
            let v = UnsafeRawPointer(value).loadUnaligned(fromByteOffset: offset, as: WordGroup.self)
            let enabled = 0 &- nonZero(UnsafeRawPointer(mask).loadUnaligned(fromByteOffset: offset, as: WordGroup.self))
            for j in 0..<count {
                let element = UnsafeMutableRawPointer(base + j &* laneCount)
                let hit = equalMask(k, j) & enabled
                let old = element.loadUnaligned(fromByteOffset: offset, as: WordGroup.self)
                element.storeBytes(of: (v & hit) | (old & ~hit), toByteOffset: offset, as: WordGroup.self)
            }
        }
    }
}
