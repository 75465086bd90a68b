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
