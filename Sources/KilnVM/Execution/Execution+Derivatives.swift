import KilnBytecode

/// Screen-space derivatives. The renderer lays a batch out as 16 quads of 2×2 pixels
/// (lane = 4·quad + 2·row + column, `docs/vm.md` "Quads"), as a GPU runs fragments, so a
/// derivative is a difference between lanes of one quad: fine derivatives use this
/// pixel's own row (`dfdx`) or column (`dfdy`), coarse ones the quad's top row or left
/// column for all four pixels. Helper lanes (pixels past the image edge) compute like the
/// others, so edge pixels get real differences, as on a GPU.
///
/// A group of eight lanes is two whole quads, so each group is loaded, shuffled within
/// itself and stored (the destination may be the operand: the group is read before it is
/// written). A lane loop over `source[base | distance] − source[base]` did not vectorize:
/// `fwidth(d)` cost twice its five instructions' share (a probe with one a step).
extension Execution {
    /// `distance` is 1 for x (the neighbour in the row), 2 for y (the neighbour in the column).
    @inline(__always) static func derivative(_ m: Machine, _ i: PreparedInstruction, _ distance: Int, coarse: Bool) {
        let a = UnsafeMutableRawPointer(m[i.a]), b = UnsafeRawPointer(m[i.b])
        for offset in stride(from: 0, to: laneCount * 4, by: groupStride) {
            let v = b.loadUnaligned(fromByteOffset: offset, as: FloatGroup.self)
            // Lane l reads `far[l] − near[l]`: lane (l & ~mask) | distance minus lane l & ~mask,
            // mask being `distance` (fine) or 3 (coarse), within its quad.
            let far: FloatGroup, near: FloatGroup
            switch (distance, coarse) {
            case (1, false):
                far = FloatGroup(v[1], v[1], v[3], v[3], v[5], v[5], v[7], v[7])
                near = FloatGroup(v[0], v[0], v[2], v[2], v[4], v[4], v[6], v[6])
            case (_, false):
                far = FloatGroup(v[2], v[3], v[2], v[3], v[6], v[7], v[6], v[7])
                near = FloatGroup(v[0], v[1], v[0], v[1], v[4], v[5], v[4], v[5])
            case (1, true):
                far = FloatGroup(v[1], v[1], v[1], v[1], v[5], v[5], v[5], v[5])
                near = FloatGroup(v[0], v[0], v[0], v[0], v[4], v[4], v[4], v[4])
            default:
                far = FloatGroup(v[2], v[2], v[2], v[2], v[6], v[6], v[6], v[6])
                near = FloatGroup(v[0], v[0], v[0], v[0], v[4], v[4], v[4], v[4])
            }
            a.storeBytes(of: far - near, toByteOffset: offset, as: FloatGroup.self)
        }
    }
}
