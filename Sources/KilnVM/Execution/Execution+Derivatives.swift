import KilnBytecode

/// Screen-space derivatives. The renderer lays a batch out as 16 quads of 2×2 pixels
/// (lane = 4·quad + 2·row + column, `docs/vm.md` "Quads"), as a GPU runs fragments, so a
/// derivative is a difference between lanes of one quad: fine derivatives use this
/// pixel's own row (`dfdx`) or column (`dfdy`), coarse ones the quad's top row or left
/// column for all four pixels. Helper lanes (pixels past the image edge) compute like the
/// others, so edge pixels get real differences, as on a GPU.
///
/// Eight lanes are two whole quads, so each eight are loaded, shuffled among themselves and
/// stored (the destination may be the operand: they are read before they are written) —
/// eight whatever the build's `LaneGroup` width, which only the arithmetic loops follow. A
/// lane loop over `source[base | distance] − source[base]` did not vectorize: `fwidth(d)`
/// cost twice its five instructions' share (a probe with one a step).
extension Execution {
    /// Two quads: the lanes a derivative shuffles at a time.
    typealias Quads = SIMD8<Float>

    /// `distance` is 1 for x (the neighbour in the row), 2 for y (the neighbour in the column).
    @inline(__always) static func derivative(_ m: Machine, _ i: PreparedInstruction, _ distance: Int, coarse: Bool) {
        let a = UnsafeMutableRawPointer(m[i.a]), b = UnsafeRawPointer(m[i.b])
        for offset in stride(from: 0, to: laneCount * 4, by: MemoryLayout<Quads>.stride) {
            let v = b.loadUnaligned(fromByteOffset: offset, as: Quads.self)
            // Lane l reads `far[l] − near[l]`: lane (l & ~mask) | distance minus lane l & ~mask,
            // mask being `distance` (fine) or 3 (coarse), within its quad.
            let far: Quads, near: Quads
            switch (distance, coarse) {
            case (1, false):
                far = Quads(v[1], v[1], v[3], v[3], v[5], v[5], v[7], v[7])
                near = Quads(v[0], v[0], v[2], v[2], v[4], v[4], v[6], v[6])
            case (_, false):
                far = Quads(v[2], v[3], v[2], v[3], v[6], v[7], v[6], v[7])
                near = Quads(v[0], v[1], v[0], v[1], v[4], v[5], v[4], v[5])
            case (1, true):
                far = Quads(v[1], v[1], v[1], v[1], v[5], v[5], v[5], v[5])
                near = Quads(v[0], v[0], v[0], v[0], v[4], v[4], v[4], v[4])
            default:
                far = Quads(v[2], v[2], v[2], v[2], v[6], v[6], v[6], v[6])
                near = Quads(v[0], v[0], v[0], v[0], v[4], v[4], v[4], v[4])
            }
            a.storeBytes(of: far - near, toByteOffset: offset, as: Quads.self)
        }
    }
}
