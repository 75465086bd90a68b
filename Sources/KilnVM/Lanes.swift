/// Number of lanes (pixels) one VM batch runs. Every register holds this many 32-bit values.
public let laneCount = 128

/// Which pixels the `laneCount` lanes of a full-frame batch shade: a tile of
/// `columns` × `rows` pixels made of 2×2 quads (lane = 4·quad + 2·(row within the quad) +
/// column within the quad, quads in row-major order), as a GPU groups fragments, so `dfdx`
/// and `dfdy` are differences inside a quad. A square tile keeps the lanes of a batch close
/// together: in a sphere tracer or an SDF scene neighbouring pixels take about the same
/// number of steps, and a batch runs as long as its slowest lane.
public enum BatchTile {
    /// Tile width and height in pixels (`columns × rows == laneCount`, both even).
    public static let columns = 16
    public static let rows = laneCount / columns
    static let quadsPerRow = columns / 2

    /// The tile column of a lane.
    @inline(__always) public static func column(_ lane: Int) -> Int { ((lane >> 2) % quadsPerRow) << 1 | (lane & 1) }
    /// The tile row of a lane.
    @inline(__always) public static func row(_ lane: Int) -> Int { ((lane >> 2) / quadsPerRow) << 1 | ((lane >> 1) & 1) }
    /// Each lane's `column` and `row` as binary32, `laneCount` of each: tables lane loops
    /// read as vectors (a 64-bit integer does not convert to binary32 in an AVX2 vector
    /// instruction, and the checked integer arithmetic of `column(_:)` does not vectorize).
    public static let columnsAsFloat: UnsafePointer<Float> = table { Float(column($0)) }
    public static let rowsAsFloat: UnsafePointer<Float> = table { Float(row($0)) }
    private static func table(_ value: (Int) -> Float) -> UnsafePointer<Float> {
        let table = UnsafeMutablePointer<Float>.allocate(capacity: laneCount)
        for lane in 0..<laneCount { table[lane] = value(lane) }
        return UnsafePointer(table)
    }

    /// The lane of tile pixel (`column`, `row`).
    @inline(__always) public static func lane(column: Int, row: Int) -> Int {
        ((row >> 1) * quadsPerRow + (column >> 1)) << 2 | (row & 1) << 1 | (column & 1)
    }
}

/// The lanes a lane loop takes at a time (`Execution.groups`): one vector register of the
/// CPU level the binary was built for. The x86-64-v4 build (AVX-512, `make` picks it on a
/// CPU that has it; README "CPU level") takes sixteen 32-bit lanes a step, every other build
/// eight: on AVX2 a sixteen-lane group is two registers and measured 1.0–1.5× slower
/// (starfield worst: its sines' polynomials run out of registers), on AVX-512 it is
/// 1.2–1.6× faster than eight lanes (docs/vm.md, "The group width"). Lanes never see
/// their neighbours in a group, so the width changes no bit of any result.
#if KILN_X86_64_V4
typealias LaneGroup<Scalar: SIMDScalar> = SIMD16<Scalar>
#else
typealias LaneGroup<Scalar: SIMDScalar> = SIMD8<Scalar>
#endif
