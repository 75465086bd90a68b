import KilnBytecode

/// Lane loops written eight lanes at a time, for the opcodes a body is mostly made of.
///
/// A plain `for l in 0..<n { a[l] = b[l] + c[l] }` over raw pointers makes the optimizer
/// check at run time whether the destination overlaps an operand, and fall back to a scalar
/// loop when it does — which it does whenever an instruction updates a register in place
/// (`acc = acc + x`, the masked `sel x, mask, new, x` of every branch that assigns). Here
/// each group of eight lanes is loaded before it is stored, which is correct whether or not
/// registers coincide (registers are whole 64-lane blocks: the same or disjoint), so there
/// is no check and no scalar path. `n < laneCount` (the scalar step's one lane) keeps the
/// plain loop.
extension Execution {
    typealias FloatGroup = SIMD8<Float>
    typealias WordGroup = SIMD8<UInt32>

    /// The bytes between groups.
    @inline(__always) static var groupStride: Int { MemoryLayout<FloatGroup>.stride }

    /// `R[a] := op(R[b], R[c])` on every lane, read and written as binary32.
    @inline(__always) static func floatGroups(_ m: Machine, _ i: PreparedInstruction,
                                              _ op: (FloatGroup, FloatGroup) -> FloatGroup) {
        let a = UnsafeMutableRawPointer(m[i.a]), b = UnsafeRawPointer(m[i.b]), c = UnsafeRawPointer(m[i.c])
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            let result = op(b.loadUnaligned(fromByteOffset: offset, as: FloatGroup.self),
                            c.loadUnaligned(fromByteOffset: offset, as: FloatGroup.self))
            a.storeBytes(of: result, toByteOffset: offset, as: FloatGroup.self)
        }
    }

    /// `R[a] := R[b] ≠ 0 ? R[c] : R[d]` on every lane.
    @inline(__always) static func selectGroups(_ m: Machine, _ i: PreparedInstruction) {
        let a = UnsafeMutableRawPointer(m[i.a]), b = UnsafeRawPointer(m[i.b])
        let c = UnsafeRawPointer(m[i.c]), d = UnsafeRawPointer(m[i.d])
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            // All ones where the condition is non-zero: `v | −v` has its top bit set exactly
            // when `v ≠ 0`. (The standard library's `.!=` builds a `SIMDMask` lane by lane.)
            let condition = b.loadUnaligned(fromByteOffset: offset, as: WordGroup.self)
            let mask = 0 &- ((condition | (0 &- condition)) &>> 31)
            let result = (c.loadUnaligned(fromByteOffset: offset, as: WordGroup.self) & mask)
                | (d.loadUnaligned(fromByteOffset: offset, as: WordGroup.self) & ~mask)
            a.storeBytes(of: result, toByteOffset: offset, as: WordGroup.self)
        }
    }
}
