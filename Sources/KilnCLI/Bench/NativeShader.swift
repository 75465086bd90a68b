import Foundation
import KilnRender
import KilnVM

/// A benchmark shader hand-written in Swift: the baseline the VM is compared with.
///
/// Each one is the fastest plain Swift a person would write for the shader: eight pixels
/// of a row at a time in `SIMD8<Float>` (one AVX2 register), work that is the same for
/// every pixel hoisted out of the pixel loop (computed once per frame or row), divergent
/// loops run with lane masks until no lane is left. It computes exactly what its `.metal`
/// file says, in binary32 and in the compiler's order (no fused multiply-adds, no
/// reassociation), with the same sampling (the conformance semantics) and the same
/// output (premultiplied RGBA8, each channel clamped to 0…1 and rounded), on the same
/// tile scheduler as the VM: the frames are equal byte for byte (`NativeShaderTests`), and
/// the difference in speed is the cost of interpreting bytecode instead of running
/// compiled vector code.
protocol NativeShader: Sendable {
    /// Shades pixels `x0 ..< x1` of row `y` into `output` (4 bytes per pixel, the row's
    /// first pixel at `output[0]`).
    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>)
}

/// Eight pixels' values of one quantity, one AVX2 register: the native shaders' unit of
/// work. (`SIMD16` measured slower overall: 1.3× on loop, whose transcendental chains
/// want more pixels in flight, but 0.7× on raymarch and sdf2d and 3–10× slower on the
/// sampling cases, where the standard library's per-lane access to a 16-lane vector goes
/// through memory.)
typealias Pixels = SIMD8<Float>
/// Per-pixel conditions of `Pixels` (loop masks, selects).
typealias PixelMask = SIMDMask<SIMD8<Int32>>
/// Pixels per `Pixels`.
let pixelsPerRun = Pixels.scalarCount

extension NativeShader {
    /// Calls `body` for each run of up to `pixelsPerRun` pixels of `x0 ..< x1`: the run's
    /// first x, its pixel count, and the pixels' x coordinates `x + 0.5` (lanes past the
    /// count continue the row and are computed but never stored).
    @inline(__always) func forEachRun(x0: Int, x1: Int, _ body: (_ x: Int, _ count: Int, _ px: Pixels) -> Void) {
        var x = x0
        while x < x1 {
            body(x, min(pixelsPerRun, x1 - x), Pixels(repeating: Float(x)) + NativeMath.laneCentres)
            x += pixelsPerRun
        }
    }
}

/// Helpers the native shaders share: the MSL builtins they use over `Pixels`, in binary32,
/// with the VM's semantics (`KilnMath`, docs/vm.md).
enum NativeMath {
    /// `0.5, 1.5, 2.5, …`: the centres of consecutive pixels from an integral x.
    static let laneCentres: Pixels = {
        var centres = Pixels()
        for l in 0..<pixelsPerRun { centres[l] = Float(l) + 0.5 }
        return centres
    }()

    /// sin, cos and exp as Kiln defines them: a shader's plain calls are binary32
    /// polynomials (docs/vm.md "Two precisions"), and the platform's `sinf` differs from
    /// them by an ulp here and there — which matters: melt's `fract(sin(…) · 43758.5453)`
    /// multiplies it by 4·10⁴ and moves a column's melt edge by a pixel. `ShaderMath` is
    /// the VM's own functions, so the reference and the VM agree to the bit.
    @inline(__always) static func sin(_ x: Float) -> Float { ShaderMath.sin(x) }
    @inline(__always) static func cos(_ x: Float) -> Float { ShaderMath.cos(x) }
    @inline(__always) static func sin(_ x: Pixels) -> Pixels { ShaderMath.sin(x) }
    @inline(__always) static func cos(_ x: Pixels) -> Pixels { ShaderMath.cos(x) }
    @inline(__always) static func exp(_ x: Pixels) -> Pixels { ShaderMath.exp(x) }

    /// MSL `min`/`max` as the VM runs them: the first operand unless the second is smaller
    /// (larger); a NaN second operand gives the first.
    @inline(__always) static func min(_ b: Pixels, _ c: Pixels) -> Pixels {
        c.replacing(with: b, where: (b .< c) .| (c .!= c))
    }
    @inline(__always) static func max(_ b: Pixels, _ c: Pixels) -> Pixels {
        c.replacing(with: b, where: (b .> c) .| (c .!= c))
    }
    @inline(__always) static func clamp(_ x: Pixels, _ low: Float, _ high: Float) -> Pixels {
        min(max(x, Pixels(repeating: low)), Pixels(repeating: high))
    }

    /// MSL `floor` (exact in any rounding of the hardware's).
    @inline(__always) static func floor(_ x: Pixels) -> Pixels { x.rounded(.down) }

    /// MSL `fract`: `x − ⌊x⌋`, kept below 1.
    @inline(__always) static func fract(_ x: Pixels) -> Pixels {
        min(x - floor(x), Pixels(repeating: 0x1.fffffep-1))
    }

    /// MSL `sqrt` (NaN below zero, as IEEE).
    @inline(__always) static func sqrt(_ x: Pixels) -> Pixels { x.squareRoot() }

    /// MSL `abs`.
    @inline(__always) static func abs(_ x: Pixels) -> Pixels {
        unsafeBitCast(unsafeBitCast(x, to: SIMD8<UInt32>.self) & SIMD8(repeating: 0x7FFF_FFFF), to: Pixels.self)
    }

    /// MSL `mix(x, y, a) = x + (y − x)·a`.
    @inline(__always) static func mix(_ x: Pixels, _ y: Pixels, _ a: Pixels) -> Pixels { x + (y - x) * a }

    /// MSL `smoothstep(e0, e1, x)`: `t = clamp((x − e0) / (e1 − e0), 0, 1)`, `t·t·(3 − 2t)`.
    @inline(__always) static func smoothstep(_ edge0: Pixels, _ edge1: Pixels, _ x: Pixels) -> Pixels {
        let t = clamp((x - edge0) / (edge1 - edge0), 0, 1)
        return t * t * (3 - 2 * t)
    }

    /// `length(float2(x, y))` and `length(float3(x, y, z))`: the square root of the dot
    /// product, summed left to right.
    @inline(__always) static func length(_ x: Pixels, _ y: Pixels) -> Pixels { sqrt(x * x + y * y) }
    @inline(__always) static func length(_ x: Pixels, _ y: Pixels, _ z: Pixels) -> Pixels {
        sqrt(x * x + y * y + z * z)
    }

    /// Channels quantized as the renderer does (`KilnRender.quantize`: clamped to
    /// [0, 1] with NaN → 0, then ⌊v·255 + 0.5⌋), in vector operations.
    @inline(__always) static func quantize(_ v: Pixels) -> SIMD8<UInt8> {
        var clamped = Pixels(repeating: 1).replacing(with: v, where: v .< 1)
        clamped = Pixels(repeating: 0).replacing(with: clamped, where: v .> 0)
        let level = (clamped * 255 + 0.5).rounded(.down)               // 0 … 255, integral
        // 2²³ + level keeps the level in the low mantissa bits.
        let shifted = level + Pixels(repeating: 8_388_608)
        return SIMD8<UInt8>(truncatingIfNeeded: unsafeBitCast(shifted, to: SIMD8<UInt32>.self))
    }

    /// The first `count` pixels' premultiplied colours as RGBA8 at `output`.
    @inline(__always) static func store(_ r: Pixels, _ g: Pixels, _ b: Pixels, _ a: Pixels, count: Int,
                                        _ output: UnsafeMutablePointer<UInt8>) {
        let r8 = quantize(r), g8 = quantize(g), b8 = quantize(b), a8 = quantize(a)
        for l in 0..<count {
            let o = output + l &* 4
            o[0] = r8[l]; o[1] = g8[l]; o[2] = b8[l]; o[3] = a8[l]
        }
    }

    /// Four planes from interleaved RGBA texels, `texel(l)` for lane l. Through a planar
    /// buffer on the stack and vector loads: per-lane stores into a SIMD value are element
    /// inserts, several times slower.
    @inline(__always) static func planes(_ texel: (Int) -> UnsafePointer<Float>) -> (Pixels, Pixels, Pixels, Pixels) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 4 * pixelsPerRun) { buffer in
            let planar = buffer.baseAddress!
            for l in 0..<pixelsPerRun {
                let p = texel(l)
                planar[l] = p[0]
                planar[pixelsPerRun &+ l] = p[1]
                planar[2 &* pixelsPerRun &+ l] = p[2]
                planar[3 &* pixelsPerRun &+ l] = p[3]
            }
            let raw = UnsafeRawPointer(planar), stride = MemoryLayout<Pixels>.size
            return (raw.loadUnaligned(as: Pixels.self), raw.loadUnaligned(fromByteOffset: stride, as: Pixels.self),
                    raw.loadUnaligned(fromByteOffset: 2 * stride, as: Pixels.self),
                    raw.loadUnaligned(fromByteOffset: 3 * stride, as: Pixels.self))
        }
    }

    /// The transparent texel `texels` reads for pixels outside the image.
    static let transparent: UnsafePointer<Float> = {
        let texel = UnsafeMutablePointer<Float>.allocate(capacity: 4)
        texel.initialize(repeating: 0, count: 4)
        return UnsafePointer(texel)
    }()

    /// Texels `x ..< x + pixelsPerRun` of row `y` (a color effect's `color` argument, a box
    /// filter's taps), de-interleaved into planes; transparent black outside the image.
    @inline(__always) static func texels(_ texels: UnsafeBufferPointer<Float>, width: Int, height: Int,
                                         x: Int, y: Int) -> (Pixels, Pixels, Pixels, Pixels) {
        let row = texels.baseAddress! + y &* width &* 4
        if y >= 0 && y < height && x >= 0 && x &+ pixelsPerRun <= width {
            return planes { row + (x &+ $0) &* 4 }
        }
        let transparent = self.transparent
        return planes { l in
            y >= 0 && y < height && x &+ l >= 0 && x &+ l < width ? row + (x &+ l) &* 4 : transparent
        }
    }
}
