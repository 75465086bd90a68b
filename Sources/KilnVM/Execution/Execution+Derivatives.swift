import KilnBytecode

/// Screen-space derivatives. The renderer lays a batch out as 16 quads of 2×2 pixels
/// (lane = 4·quad + 2·row + column, `docs/vm.md` "Quads"), as a GPU runs fragments, so a
/// derivative is a difference between lanes of one quad: fine derivatives use this
/// pixel's own row (`dfdx`) or column (`dfdy`), coarse ones the quad's top row or left
/// column for all four pixels. Helper lanes (pixels past the image edge) compute like the
/// others, so edge pixels get real differences, as on a GPU.
extension Execution {
    /// `distance` is 1 for x (the neighbour in the row), 2 for y (the neighbour in the column).
    @inline(__always) static func derivative(_ m: Machine, _ i: PreparedInstruction, _ distance: Int, coarse: Bool) {
        let a = m[i.a], b = m[i.b]
        // `a` may be `b`: read every lane before writing any.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: laneCount) { source in
            for l in 0..<laneCount { source[l] = b[l] }
            for l in 0..<laneCount {
                let base = coarse ? l & ~3 : l & ~distance
                a[l] = (f(source[base | distance]) - f(source[base])).bitPattern
            }
        }
    }
}
