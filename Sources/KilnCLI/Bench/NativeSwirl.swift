import Foundation
import KilnVM

/// `bench/swirl.metal` in Swift: a color effect with a 32-iteration loop of
/// transcendental math per pixel.
///
///     float2 uv = position / size;
///     float2 z = (uv - 0.5) * 3;
///     float acc = 0;
///     for (int i = 0; i < 32; i++) {
///         z = float2(sin(1.3 * z.x + time) + cos(1.7 * z.y),
///                    cos(0.9 * z.x - time) - sin(1.1 * z.y)) * 0.9 + uv;
///         acc += exp(-dot(z, z));
///     }
///     float3 pal = 0.5 + 0.5 * cos(0.35 * acc + float3(0, 2, 4));
///     return half4(half3(mix(float3(color.rgb), pal, 0.7)), 1);
struct NativeSwirl: NativeShader {
    let source: Texture
    let size: (width: Float, height: Float)
    let time: Float

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let v = Pixels(repeating: (Float(y) + 0.5) / size.height)
        source.withTexels { texels in
            forEachRun(x0: x0, x1: x1) { x, count, px in
                let u = px / size.width
                var zx = (u - 0.5) * 3
                var zy = (v - 0.5) * 3
                var acc = Pixels()
                for _ in 0..<32 {
                    let nx = (NativeMath.sin(1.3 * zx + time) + NativeMath.cos(1.7 * zy)) * 0.9 + u
                    let ny = (NativeMath.cos(0.9 * zx - time) - NativeMath.sin(1.1 * zy)) * 0.9 + v
                    zx = nx
                    zy = ny
                    acc += NativeMath.exp(-(zx * zx + zy * zy))
                }
                let (cr, cg, cb, _) = NativeMath.texels(texels, width: source.width, height: source.height, x: x, y: y)
                let phase = 0.35 * acc
                let weight = Pixels(repeating: 0.7)
                NativeMath.store(NativeMath.mix(cr, 0.5 + 0.5 * NativeMath.cos(phase), weight),
                                 NativeMath.mix(cg, 0.5 + 0.5 * NativeMath.cos(phase + 2), weight),
                                 NativeMath.mix(cb, 0.5 + 0.5 * NativeMath.cos(phase + 4), weight),
                                 Pixels(repeating: 1), count: count, output + (x - x0) * 4)
            }
        }
    }
}
