import Foundation
import KilnVM

/// `bench/raymarch.metal` in Swift: sphere tracing eight smooth-unioned orbiting spheres,
/// up to 64 steps with an early exit, a normal from four more distance evaluations.
///
///     float3 c = float3(sin(time * 0.7 + fi * 1.3), cos(time * 0.9 + fi * 2.1),
///                       sin(time * 0.5 + fi * 0.7) * 0.5) * 1.2;      // per sphere
///     float s = length(p - c) - 0.45;
///     float h = clamp(0.5 + 0.5 * (d - s) / 0.3, 0.0, 1.0);
///     d = mix(d, s, h) - 0.3 * h * (1.0 - h);
///
/// The sphere centres depend only on time: computed once per frame. The march runs eight
/// rays together with a mask of those still going, until none is.
struct NativeRaymarch: NativeShader {
    let source: Texture
    let size: (width: Float, height: Float)
    /// The sphere centres (x, y, z).
    private let centres: [(Float, Float, Float)]
    /// normalize(float3(0.6, 0.7, 0.5)).
    private let light: (Float, Float, Float)

    init(source: Texture, size: (width: Float, height: Float), time: Float) {
        self.source = source
        self.size = size
        centres = (0..<8).map { i in
            let fi = Float(i)
            return (NativeMath.sin(time * 0.7 + fi * 1.3) * 1.2, NativeMath.cos(time * 0.9 + fi * 2.1) * 1.2,
                    NativeMath.sin(time * 0.5 + fi * 0.7) * 0.5 * 1.2)
        }
        let length = (0.6 * 0.6 + 0.7 * 0.7 + 0.5 * 0.5 as Float).squareRoot()
        light = (0.6 / length, 0.7 / length, 0.5 / length)
    }

    @inline(__always) private func scene(_ px: Pixels, _ py: Pixels, _ pz: Pixels) -> Pixels {
        var d = Pixels(repeating: 10)
        for (cx, cy, cz) in centres {
            let s = NativeMath.length(px - cx, py - cy, pz - cz) - 0.45
            let h = NativeMath.clamp(0.5 + 0.5 * (d - s) / 0.3, 0, 1)
            d = NativeMath.mix(d, s, h) - 0.3 * h * (1 - h)
        }
        return d
    }

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let uvY = Pixels(repeating: ((Float(y) + 0.5) - 0.5 * size.height) / size.height)
        source.withTexels { texels in
            forEachRun(x0: x0, x1: x1) { x, count, px in
                let uvX = (px - 0.5 * size.width) / size.height
                // rd = normalize(float3(uv, -1.5)); ro = (0, 0, 4).
                let rdZ = Pixels(repeating: -1.5)
                let rdLength = NativeMath.length(uvX, uvY, rdZ)
                let rdx = uvX / rdLength, rdy = uvY / rdLength, rdz = rdZ / rdLength
                var t = Pixels()
                var marching = PixelMask(repeating: true), hit = PixelMask(repeating: false)
                for _ in 0..<64 where any(marching) {
                    let d = scene(rdx * t, rdy * t, 4 + rdz * t)
                    let arrived = marching .& (d .< Pixels(repeating: 0.001))
                    hit .|= arrived
                    marching .&= .!arrived
                    t = t.replacing(with: t + d, where: marching)
                    marching .&= .!(t .> Pixels(repeating: 8))
                }
                let (cr, cg, cb, _) = NativeMath.texels(texels, width: source.width, height: source.height, x: x, y: y)
                var r = cr * 0.25, g = cg * 0.25, b = cb * 0.25
                if any(hit) {
                    let hx = rdx * t, hy = rdy * t, hz = 4 + rdz * t
                    let e: Float = 0.001
                    let a = scene(hx + e, hy - e, hz - e), b2 = scene(hx - e, hy - e, hz + e)
                    let c = scene(hx - e, hy + e, hz - e), d = scene(hx + e, hy + e, hz + e)
                    // float3(1, -1, -1) * a + float3(-1, -1, 1) * b + … summed left to right.
                    let (ma, mb, mc) = (a * -1, b2 * -1, c * -1)
                    let nx: Pixels = a * 1 + mb + mc + d * 1
                    let ny: Pixels = ma + mb + c * 1 + d * 1
                    let nz: Pixels = ma + b2 * 1 + mc + d * 1
                    let nLength = NativeMath.length(nx, ny, nz)
                    let lit = NativeMath.max((nx / nLength) * light.0 + (ny / nLength) * light.1 + (nz / nLength) * light.2,
                                             Pixels())
                    let shade = 0.15 + 0.85 * lit
                    r = r.replacing(with: 0.9 * shade, where: hit)
                    g = g.replacing(with: 0.45 * shade, where: hit)
                    b = b.replacing(with: 0.2 * shade, where: hit)
                }
                NativeMath.store(r, g, b, Pixels(repeating: 1), count: count, output + (x - x0) * 4)
            }
        }
    }
}
