import Foundation
import KilnVM

/// The built-in content images (`--content rainbow` …), generated at any size. At 128×128
/// `rainbow`, `checker` and `gradient` reproduce the conformance set's PNGs byte for byte;
/// `photo` is Kiln's own smooth procedural picture. They are made as straight-alpha RGBA8,
/// like a PNG, and premultiplied the same way a loaded PNG is.
public enum BuiltinContent {
    public static let names = ["rainbow", "checker", "gradient", "photo"]

    /// The image `name` at `width`×`height` as the shader sees it, or nil for an unknown name.
    public static func make(_ name: String, width: Int, height: Int) -> Texture? {
        image(name, width: width, height: height)?.premultipliedTexture()
    }

    /// The straight-alpha RGBA8 image `name`, or nil for an unknown name.
    public static func image(_ name: String, width: Int, height: Int) -> RGBAImage? {
        let shade: (Int, Int, Int, Int) -> (UInt8, UInt8, UInt8, UInt8)
        switch name {
        case "rainbow": shade = rainbow
        case "checker": shade = checker
        case "gradient": shade = gradient
        case "photo": shade = photo
        default: return nil
        }
        guard width > 0, height > 0 else { return RGBAImage(width: max(0, width), height: max(0, height), bytes: []) }
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = shade(x, y, width, height)
                let index = (y * width + x) * 4
                bytes[index] = r; bytes[index + 1] = g; bytes[index + 2] = b; bytes[index + 3] = a
            }
        }
        return RGBAImage(width: width, height: height, bytes: bytes)
    }

    /// Six equal horizontal stripes: green, yellow, orange, red, purple, blue.
    private static let stripes: [(UInt8, UInt8, UInt8)] = [(97, 187, 70), (253, 184, 39), (245, 130, 31),
                                                           (224, 58, 62), (150, 61, 151), (0, 157, 220)]

    private static func rainbow(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let (r, g, b) = stripes[min(5, y * 6 / height)]
        return (r, g, b, 255)
    }

    /// An 8-pixel checkerboard, cream and slate, cream at the top-left.
    private static func checker(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        ((x / 8) + (y / 8)) % 2 == 0 ? (236, 232, 220, 255) : (52, 58, 84, 255)
    }

    /// A bilinear ramp between four corner colours; alpha falls from 1 at the left to 0.25
    /// at the right. The corners are unit values (0.15, 0.55, 0.95 are not whole 8-bit
    /// levels), interpolated and only then scaled to 8 bits, as the conformance generator
    /// does — interpolating the rounded levels is off by one in a third of the pixels.
    private static func gradient(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let u = width > 1 ? Double(x) / Double(width - 1) : 0
        let v = height > 1 ? Double(y) / Double(height - 1) : 0
        func byte(_ value: Double) -> UInt8 { UInt8((value * 255 + 0.5).rounded(.down)) }
        func channel(_ topLeft: Double, _ topRight: Double, _ bottomLeft: Double, _ bottomRight: Double) -> UInt8 {
            let top = topLeft + (topRight - topLeft) * u, bottom = bottomLeft + (bottomRight - bottomLeft) * u
            return byte(top + (bottom - top) * v)
        }
        return (channel(1, 0.2, 0.8, 0.8), channel(0.15, 0.15, 0.55, 0.95), channel(0.2, 0.95, 0.2, 0.95),
                byte(1 - 0.75 * u))
    }

    /// A smooth procedural "photo": sky, sun, hills and a little texture.
    private static func photo(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let u = (Float(x) + 0.5) / Float(width), v = (Float(y) + 0.5) / Float(height)
        let horizon = 0.62 + 0.06 * sin(u * 9) + 0.03 * sin(u * 23 + 1)
        var r: Float, g: Float, b: Float
        if v < horizon {
            let t = v / horizon
            r = 0.35 + 0.55 * t; g = 0.55 + 0.30 * t; b = 0.90 - 0.15 * t
            let dx = u - 0.72, dy = v - 0.28
            let sun = max(0, 1 - (dx * dx + dy * dy).squareRoot() / 0.09)
            r += sun * 0.6; g += sun * 0.45; b += sun * 0.1
        } else {
            let t = (v - horizon) / (1 - horizon)
            let ripple = 0.04 * sin(u * 60 + v * 25)
            r = 0.25 - 0.1 * t + ripple; g = 0.50 - 0.2 * t + ripple; b = 0.20 - 0.05 * t
        }
        func byte(_ value: Float) -> UInt8 { UInt8((min(max(value, 0), 1) * 255).rounded()) }
        return (byte(r), byte(g), byte(b), 255)
    }
}
