import KilnBytecode
import KilnVM

/// Bilinear sampling of a run of coordinates at once (`Pixels`), for the native shaders:
/// the conformance semantics (`Sampling`), written as a person would with SIMD types.
///
/// The filter arithmetic — `q = p − 0.5`, `i = ⌊q⌋`, `w = q − i`, two horizontal lerps and
/// a vertical one — runs in vector operations; the sixteen texel loads per pixel are
/// scalar (x86 has gathers, Swift does not expose them). When any lane of the run has a
/// tap outside the image (or a coordinate that is not finite), the run goes through
/// `Sampling.sample` lane by lane: the address modes are for edges, and edges are rare.
struct NativeSampler: @unchecked Sendable {
    let texture: Texture
    let mode: SampleMode
    /// The texels, kept alive by `texture` (its storage never moves).
    private let texels: UnsafePointer<Float>
    private let scaleX: Float, scaleY: Float
    /// `width − 1`, `height − 1`: the largest `q` with both taps inside is just below these.
    private let lastX: Pixels, lastY: Pixels

    /// Whether every texel's offset (4 floats a texel) is exact in binary32.
    private let small: Bool
    static let texelLimit = 1 << 22

    init(_ texture: Texture, mode: SampleMode) {
        small = texture.width * texture.height <= Self.texelLimit
        self.texture = texture
        self.mode = mode
        texels = texture.withTexels { $0.baseAddress! }
        scaleX = mode.normalized ? Float(texture.width) : 1
        scaleY = mode.normalized ? Float(texture.height) : 1
        lastX = Pixels(repeating: Float(texture.width - 1))
        lastY = Pixels(repeating: Float(texture.height - 1))
    }

    /// Premultiplied (r, g, b, a) at (`x`, `y`) for every lane (pixels, or fractions of the
    /// size when the mode is normalized).
    @inline(__always) func sample(_ x: Pixels, _ y: Pixels) -> (Pixels, Pixels, Pixels, Pixels) {
        // Multiplying pixel coordinates by 1 is exact: the same bits as the VM's sampler.
        let qx = x * scaleX - 0.5, qy = y * scaleY - 0.5
        let zero = Pixels()
        // i = ⌊q⌋ in [0, size − 2] for every lane ⇔ 0 ≤ q < size − 1 (false for NaN).
        let inside = (qx .>= zero) .& (qx .< lastX) .& (qy .>= zero) .& (qy .< lastY)
        guard all(inside), small else { return sampleAtEdges(x, y) }
        let fx = qx.rounded(.down), fy = qy.rounded(.down)
        let wx = qx - fx, wy = qy - fy
        // Each lane's top-left tap as a float offset, in vector arithmetic: exact, the
        // indexes are integral and the offset is below 2²⁴ (`texelLimit`).
        let corners = (fy * Pixels(repeating: Float(texture.width)) + fx) * 4
        let rowFloats = texture.width &* 4, texels = self.texels
        @inline(__always) func tap(_ offset: Int) -> (Pixels, Pixels, Pixels, Pixels) {
            NativeMath.planes { (l: Int) -> UnsafePointer<Float> in texels + (Int(corners[l]) &+ offset) }
        }
        let t00 = tap(0), t10 = tap(4), t01 = tap(rowFloats), t11 = tap(rowFloats &+ 4)
        @inline(__always) func bilinear(_ a: Pixels, _ b: Pixels, _ c: Pixels, _ d: Pixels) -> Pixels {
            let top = a + (b - a) * wx
            let bottom = c + (d - c) * wx
            return top + (bottom - top) * wy
        }
        return (bilinear(t00.0, t10.0, t01.0, t11.0), bilinear(t00.1, t10.1, t01.1, t11.1),
                bilinear(t00.2, t10.2, t01.2, t11.2), bilinear(t00.3, t10.3, t01.3, t11.3))
    }

    /// A run of which some lanes reach past the image: one `Sampling.sample` each.
    @inline(never) func sampleAtEdges(_ x: Pixels, _ y: Pixels) -> (Pixels, Pixels, Pixels, Pixels) {
        var r = Pixels(), g = Pixels(), b = Pixels(), a = Pixels()
        for l in 0..<pixelsPerRun {
            (r[l], g[l], b[l], a[l]) = Sampling.sample(texture, x: x[l], y: y[l], mode: mode)
        }
        return (r, g, b, a)
    }
}
