import KilnBytecode

/// Lane loops written a group (`LaneGroup`: 8 or 16 lanes) at a time, for the opcodes a body
/// is mostly made of.
///
/// A plain `for l in 0..<n { a[l] = b[l] + c[l] }` over raw pointers makes the optimizer
/// check at run time whether the destination overlaps an operand, and fall back to a scalar
/// loop when it does — which it does whenever an instruction updates a register in place
/// (`acc = acc + x`, the masked `sel x, mask, new, x` of every branch that assigns). Here
/// each group of lanes is loaded before it is stored, which is correct whether or not
/// registers coincide (registers are whole `laneCount`-lane blocks: the same or disjoint), so there
/// is no check and no scalar path. `n < laneCount` (the scalar step's one lane) keeps the
/// plain loop.
extension Execution {
    typealias FloatGroup = LaneGroup<Float>
    typealias WordGroup = LaneGroup<UInt32>

    /// The bytes between groups.
    @inline(__always) static var groupStride: Int { MemoryLayout<FloatGroup>.stride }

    /// `R[a] := op(R[b], R[c])` on every lane, the operands read as `Operand` (binary32,
    /// `Int32` or `UInt32`: the same bits), the result written as whatever `op` returns.
    @inline(__always) static func groups<Operand: SIMDScalar, Result: SIMDScalar>(
        _ m: Machine, _ i: PreparedInstruction, of _: Operand.Type,
        _ op: (LaneGroup<Operand>, LaneGroup<Operand>) -> LaneGroup<Result>
    ) {
        let a = UnsafeMutableRawPointer(m[i.a]), b = UnsafeRawPointer(m[i.b]), c = UnsafeRawPointer(m[i.c])
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            let result = op(b.loadUnaligned(fromByteOffset: offset, as: LaneGroup<Operand>.self),
                            c.loadUnaligned(fromByteOffset: offset, as: LaneGroup<Operand>.self))
            a.storeBytes(of: result, toByteOffset: offset, as: LaneGroup<Result>.self)
        }
    }

    /// `R[a] := op(R[b])` on every lane, the operand read as `Operand`.
    @inline(__always) static func unaryGroups<Operand: SIMDScalar, Result: SIMDScalar>(
        _ m: Machine, _ i: PreparedInstruction, of _: Operand.Type, _ op: (LaneGroup<Operand>) -> LaneGroup<Result>
    ) {
        let a = UnsafeMutableRawPointer(m[i.a]), b = UnsafeRawPointer(m[i.b])
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            a.storeBytes(of: op(b.loadUnaligned(fromByteOffset: offset, as: LaneGroup<Operand>.self)),
                         toByteOffset: offset, as: LaneGroup<Result>.self)
        }
    }

    /// A comparison's result: 1 where `holds`, else 0.
    @inline(__always) static func ones(where holds: SIMDMask<LaneGroup<Int32>>) -> WordGroup {
        WordGroup(repeating: 0).replacing(with: 1, where: holds)
    }

    /// 1 where a lane is non-zero, else 0: `v | −v` has its top bit set exactly when `v ≠ 0`
    /// (the standard library's `.!=` on `LaneGroup<UInt32>` builds its mask lane by lane).
    @inline(__always) static func nonZero(_ v: WordGroup) -> WordGroup {
        (v | (0 &- v)) &>> 31
    }

    /// An IEEE rounding to an integral value on a group with the bits of KilnMath's
    /// (`floor`, `ceil`, `truncate`, `rint` for `.down`, `.up`, `.towardZero`,
    /// `.toNearestOrEven`): a NaN comes back unchanged (the rounding instruction would
    /// quiet a signalling one; KilnMath's pass it). `vroundps` on x86-64-v3; the portable
    /// build (no SSE4.1) calls libm's exact `floorf`, `ceilf`, ….
    @inline(__always) static func roundedGroup(_ p: FloatGroup, _ rule: FloatingPointRoundingRule) -> FloatGroup {
        p.rounded(rule).replacing(with: p, where: p .!= p)
    }

    /// `KilnMath.fract` on a group: `x − ⌊x⌋`, at most `KilnMath.largestBelowOne`. IEEE
    /// floor is unique for every non-NaN value (KilnMath's keeps −0 too), and a NaN `x` makes
    /// the difference `x` either way, so the bits are the scalar step's.
    @inline(__always) static func fractGroup(_ p: FloatGroup) -> FloatGroup {
        let f = p - p.rounded(.down)
        let largestBelowOne = FloatGroup(repeating: KilnMath.largestBelowOne)
        return f.replacing(with: largestBelowOne, where: f .> largestBelowOne)
    }

    /// `KilnMath.squareRoot` on a group: the root of |x| (one `vsqrtps`: the standard
    /// library's `SIMD8.squareRoot()` takes a lane at a time, through libm for negative
    /// lanes), x's sign put back (√−0 = −0, a NaN keeps its sign), NaN where x < 0.
    @inline(__always) static func squareRootGroup(_ p: FloatGroup) -> FloatGroup {
        let signed = onMagnitude(p) { magnitude in
            var root = FloatGroup()
            for l in 0..<FloatGroup.scalarCount { root[l] = magnitude[l].squareRoot() }
            return root
        }
        return signed.replacing(with: .nan, where: p .< 0)
    }

    /// `f(|p|)` with `p`'s sign put back (OR-ed in: `f` gives a non-negative result or NaN).
    @inline(__always) static func onMagnitude(_ p: FloatGroup, _ f: (FloatGroup) -> FloatGroup) -> FloatGroup {
        let bits = unsafeBitCast(p, to: WordGroup.self)
        let result = f(unsafeBitCast(bits & 0x7FFF_FFFF, to: FloatGroup.self))
        return unsafeBitCast(unsafeBitCast(result, to: WordGroup.self) | (bits & 0x8000_0000), to: FloatGroup.self)
    }

    /// `KilnMath.roundHalfAway` (`round`) on a group: |x| truncated, plus one where the
    /// part cut off is at least ½, x's sign put back; a NaN keeps its bits. (No instruction
    /// rounds halves away from zero; `vroundps` truncates.)
    @inline(__always) static func roundHalfAwayGroup(_ p: FloatGroup) -> FloatGroup {
        let signed = onMagnitude(p) { magnitude in
            let t = magnitude.rounded(.towardZero)
            return t.replacing(with: t + 1, where: magnitude - t .>= 0.5)
        }
        return signed.replacing(with: p, where: p .!= p)
    }

    /// `KilnMath.sign` on a group: 1 above zero, −1 below, ±0 kept, NaN → 0.
    @inline(__always) static func signGroup(_ p: FloatGroup) -> FloatGroup {
        p.replacing(with: 0, where: p .!= p).replacing(with: 1, where: p .> 0).replacing(with: -1, where: p .< 0)
    }

    /// `fmax`'s rule (`KilnMath.maximum`) on a group: `p` where `p > q` or `q` is NaN.
    @inline(__always) static func maximumGroup(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup {
        q.replacing(with: p, where: (p .> q) .| (q .!= q))
    }

    /// `fmin`'s rule (`KilnMath.minimum`) on a group: `p` where `p < q` or `q` is NaN.
    @inline(__always) static func minimumGroup(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup {
        q.replacing(with: p, where: (p .< q) .| (q .!= q))
    }

    /// `R[a] := R[b] ≠ 0 ? R[c] : R[d]` on every lane.
    @inline(__always) static func selectGroups(_ m: Machine, _ i: PreparedInstruction) {
        let a = UnsafeMutableRawPointer(m[i.a]), b = UnsafeRawPointer(m[i.b])
        let c = UnsafeRawPointer(m[i.c]), d = UnsafeRawPointer(m[i.d])
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            // All ones where the condition is non-zero.
            let mask = 0 &- nonZero(b.loadUnaligned(fromByteOffset: offset, as: WordGroup.self))
            let result = (c.loadUnaligned(fromByteOffset: offset, as: WordGroup.self) & mask)
                | (d.loadUnaligned(fromByteOffset: offset, as: WordGroup.self) & ~mask)
            a.storeBytes(of: result, toByteOffset: offset, as: WordGroup.self)
        }
    }
}
