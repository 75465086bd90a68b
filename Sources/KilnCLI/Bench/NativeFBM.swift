import Foundation
import KilnVM

/// `bench/fbm.metal` in Swift: domain-warped value noise, three six-octave fbm
/// evaluations per pixel.
///
///     float hash(float2 p) { return fract(sin(dot(p, float2(127.1, 311.7))) * 43758.5453); }
///     float noise(float2 p) { i = floor(p); f = fract(p); u = f * f * (3.0 - 2.0 * f);
///         return mix(mix(hash(i), hash(i + (1, 0)), u.x), mix(hash(i + (0, 1)), hash(i + (1, 1)), u.x), u.y); }
///     float fbm(float2 p) { six octaves: v += a * noise(p); p = p * 2.03 + float2(1.7, 9.2); a *= 0.5; }
///     uv = position / size.y * 3.0;
///     q = float2(fbm(uv + time * 0.1), fbm(uv + float2(5.2, 1.3)));
///     f = fbm(uv + 2.0 * q + time * 0.05);
///     pal = 0.5 + 0.5 * cos(6.28318 * (f * 1.2 + float3(0.0, 0.1, 0.2)));
///     return half4(half3(mix(float3(color.rgb), pal, 0.85)), 1);
struct NativeFBM: NativeShader {
    let source: Texture
    let size: (width: Float, height: Float)
    let time: Float

    @inline(__always) private func hash(_ x: Pixels, _ y: Pixels) -> Pixels {
        NativeMath.fract(NativeMath.sin(x * 127.1 + y * 311.7) * 43758.5453)
    }

    @inline(__always) private func noise(_ x: Pixels, _ y: Pixels) -> Pixels {
        let ix = NativeMath.floor(x), iy = NativeMath.floor(y)
        let fx = NativeMath.fract(x), fy = NativeMath.fract(y)
        let ux = fx * fx * (3 - 2 * fx), uy = fy * fy * (3 - 2 * fy)
        return NativeMath.mix(NativeMath.mix(hash(ix, iy), hash(ix + 1, iy + 0), ux),
                              NativeMath.mix(hash(ix + 0, iy + 1), hash(ix + 1, iy + 1), ux), uy)
    }

    @inline(__always) private func fbm(_ x: Pixels, _ y: Pixels) -> Pixels {
        var v = Pixels(), a: Float = 0.5
        var px = x, py = y
        for _ in 0..<6 {
            v += a * noise(px, py)
            px = px * 2.03 + 1.7
            py = py * 2.03 + 9.2
            a *= 0.5
        }
        return v
    }

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let uvY = Pixels(repeating: (Float(y) + 0.5) / size.height * 3)
        source.withTexels { texels in
            forEachRun(x0: x0, x1: x1) { x, count, px in
                let uvX = px / size.height * 3
                let qx = fbm(uvX + time * 0.1, uvY + time * 0.1)
                let qy = fbm(uvX + 5.2, uvY + 1.3)
                let f = fbm(uvX + 2 * qx + time * 0.05, uvY + 2 * qy + time * 0.05)
                let (cr, cg, cb, _) = NativeMath.texels(texels, width: source.width, height: source.height, x: x, y: y)
                let weight = Pixels(repeating: 0.85)
                NativeMath.store(NativeMath.mix(cr, 0.5 + 0.5 * NativeMath.cos(6.28318 * (f * 1.2 + 0.0)), weight),
                                 NativeMath.mix(cg, 0.5 + 0.5 * NativeMath.cos(6.28318 * (f * 1.2 + 0.1)), weight),
                                 NativeMath.mix(cb, 0.5 + 0.5 * NativeMath.cos(6.28318 * (f * 1.2 + 0.2)), weight),
                                 Pixels(repeating: 1), count: count, output + (x - x0) * 4)
            }
        }
    }
}
