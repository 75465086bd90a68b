import KilnBytecode

/// Texture sampling with exactly the conformance semantics (`conformance/README.md` §3–4).
///
/// Coordinates are pixels (texel centres at `i + 0.5`) or, with `mode.normalized`, fractions
/// of the size (multiplied by width/height first). Linear filtering, computed in binary32 in
/// this order: `q = p − 0.5; i = ⌊q⌋; w = q − i;`
/// `S = lerp(lerp(t(i.x, i.y), t(i.x+1, i.y), w.x), lerp(t(i.x, i.y+1), t(i.x+1, i.y+1), w.x), w.y)`
/// with `lerp(a, b, w) = a + (b − a)·w` — this form returns `a` exactly when `a == b`, so a
/// flat region (e.g. opaque alpha 1) stays exactly flat. Nearest filtering reads texel `⌊p⌋`.
/// Texel indexes outside the image follow the address mode: transparent black (`zero`),
/// clamped (`clampToEdge`), wrapped (`repeat`) or reflected (`mirroredRepeat`).
/// A NaN or infinite coordinate samples transparent black in every mode (it has no texel
/// and no filter weight); texel indexes saturate at ±2³¹ (`repeat` of coordinates beyond
/// that is not exact — such floats are spaced hundreds of pixels apart anyway).
public enum Sampling {
    /// Samples `texture` at (`x`, `y`) with `mode`; returns premultiplied (r, g, b, a).
    public static func sample(_ texture: Texture, x: Float, y: Float, mode: SampleMode) -> (Float, Float, Float, Float) {
        TextureView(texture).sample(x: x, y: y, mode: mode.rawValue)
    }

    /// Texel (`x`, `y`) exactly; transparent black outside the image (`texture.read`).
    public static func read(_ texture: Texture, x: UInt32, y: UInt32) -> (Float, Float, Float, Float) {
        TextureView(texture).read(x: x, y: y)
    }
}

extension Sampling {
    /// Samples `laneCount` coordinates at once — what a renderer needs for a batch of a
    /// distortion's results — with the VM's vectorized lane loops instead of one
    /// `sample(_:x:y:mode:)` call per pixel. Results are bit-identical to `sample`.
    /// `xs`, `ys`: `laneCount` coordinates each; `output`: `4 × laneCount` floats, written
    /// planar (all red lanes, then green, blue, alpha).
    public static func sampleLanes(_ texture: Texture, xs: UnsafePointer<Float>, ys: UnsafePointer<Float>,
                                   mode: SampleMode, into output: UnsafeMutablePointer<Float>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: scratchWordCount) { scratch in
            LaneSampler(texture).sample(xs: xs, ys: ys, mode: mode, into: output, scratch: scratch.baseAddress!)
        }
    }

    /// The words of scratch memory `LaneSampler.sample` needs.
    public static let scratchWordCount = Execution.scratchWordsPerLane * laneCount
}

/// `Sampling.sampleLanes` for a renderer that samples one texture batch after batch: the
/// texture's view is made once, and the caller owns the scratch memory. Why: a temporary
/// allocation over 1 KiB asks the runtime whether the stack has room, which on Linux is
/// `pthread_getattr_np` — a `malloc` and a `free` — and with the texture's retain and
/// release that was a tenth of a distortion's frame (`bench` wave).
public struct LaneSampler {
    /// Kept for its texels, which the view points into.
    private let texture: Texture
    private let view: TextureView

    public init(_ texture: Texture) {
        self.texture = texture
        view = TextureView(texture)
    }

    /// `Sampling.sampleLanes`, with `scratch` of `Sampling.scratchWordCount` words.
    @inline(__always)
    public func sample(xs: UnsafePointer<Float>, ys: UnsafePointer<Float>, mode: SampleMode,
                       into output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<UInt32>) {
        view.sampleLanes(x: UnsafeRawPointer(xs).assumingMemoryBound(to: UInt32.self),
                         y: UnsafeRawPointer(ys).assumingMemoryBound(to: UInt32.self), mode: mode.rawValue,
                         into: UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt32.self), scratch: scratch)
    }
}

extension Sampling {

    /// Texels (`x0 + min(lane, count − 1)`, `y`) for all `laneCount` lanes, exactly as
    /// `read` gives them (transparent black outside the image), written planar into
    /// `output` (`4 × laneCount` floats). Lanes past `count` repeat the last pixel, like the
    /// renderer's other lane inputs.
    public static func readRowLanes(_ texture: Texture, x0: Int, y: Int, count: Int,
                                    into output: UnsafeMutablePointer<Float>) {
        TextureView(texture).readRowLanes(x0: x0, y: y, count: count,
                                          into: UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt32.self))
    }

    /// Texels of a `BatchTile` from (`x0`, `y`) in its lane order, exactly as `read` gives
    /// them, written planar into `output` (`4 × laneCount` floats); pixels past `columns`,
    /// `rows` or the image are transparent. With `stride` k tile pixel (x, y) reads texel (x·k, y·k).
    public static func readQuadLanes(_ texture: Texture, x0: Int, y: Int, columns: Int, rows: Int = BatchTile.rows,
                                     stride: Int = 1, into output: UnsafeMutablePointer<Float>) {
        TextureView(texture).readQuadLanes(x0: x0, y: y, columns: columns, rows: rows, stride: stride,
                                           into: UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt32.self))
    }
}
