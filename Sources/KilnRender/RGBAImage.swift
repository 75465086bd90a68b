import KilnVM

/// An 8-bit RGBA image, row 0 at the top. Whether the colour is straight or premultiplied
/// is the caller's business: PNG files hold straight alpha, frames hold premultiplied.
public struct RGBAImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// `(y × width + x) × 4 + channel`.
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// A straight-alpha image (a PNG's pixels) as the premultiplied float texture shaders
    /// see: `(r·a, g·a, b·a, a)` with `r = R/255`, `a = A/255` (conformance README §2).
    public func premultipliedTexture() -> Texture {
        var pixels = [Float](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            let a = Float(bytes[index * 4 + 3]) / 255
            for channel in 0..<3 { pixels[index * 4 + channel] = Float(bytes[index * 4 + channel]) / 255 * a }
            pixels[index * 4 + 3] = a
        }
        return Texture(width: width, height: height, pixels: pixels)
    }

    /// Premultiplied bytes converted to straight alpha, as PNG viewers expect
    /// (rounded; fully transparent pixels become 0,0,0,0).
    public func unpremultiplied() -> RGBAImage {
        var out = bytes
        for index in stride(from: 0, to: out.count, by: 4) {
            let alpha = Int(out[index + 3])
            if alpha == 0 { out[index] = 0; out[index + 1] = 0; out[index + 2] = 0; continue }
            guard alpha < 255 else { continue }
            for channel in 0..<3 {
                out[index + channel] = UInt8(min(255, (Int(out[index + channel]) * 255 + alpha / 2) / alpha))
            }
        }
        return RGBAImage(width: width, height: height, bytes: out)
    }

    /// True when every pixel is the same (tests use it to reject blank renders).
    public var isConstant: Bool {
        guard bytes.count >= 4 else { return true }
        let first = bytes[0..<4]
        return stride(from: 4, to: bytes.count, by: 4).allSatisfy { bytes[$0..<$0 + 4] == first }
    }
}

/// Quantization of shader output (conformance README §6): each channel clamped to [0, 1]
/// on its own (NaN → 0), stored as `floor(v·255 + 0.5)`. The one 8-bit conversion of
/// every renderer, scene and benchmark reference (inlinable so their loops vectorize).
@inlinable @inline(__always)
public func quantize(_ value: Float) -> UInt8 {
    let clamped = value > 0 ? (value < 1 ? value : 1) : 0 // also maps NaN to 0
    let v = clamped * 255 + 0.5                            // in [0.5, 255.5]
    // ⌊v⌋ without `.rounded(.down)` (a libm call on baseline x86-64) or a trapping
    // conversion (a range check per channel), so store loops vectorize: below 2²³, adding
    // and subtracting 2²³ rounds to the nearest integer; step down if that rounded up.
    // Adding 2²³ to the integral result puts it in the low mantissa bits.
    let nearest = (v + 8_388_608) - 8_388_608
    let floor = nearest > v ? nearest - 1 : nearest
    return UInt8(truncatingIfNeeded: (floor + 8_388_608).bitPattern)
}
