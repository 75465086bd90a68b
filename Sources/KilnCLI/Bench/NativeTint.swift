import Foundation
import KilnVM

/// `bench/tint.metal` in Swift: a color effect over the exact source pixel.
///
///     float2 uv = position / size;
///     float3 rainbow = 0.5 + 0.5 * sin(time + uv.x * 6.28318 + float3(0, 2, 4));
///     float3 rgb = mix(float3(color.rgb), rainbow, 0.5);
///     float vig = smoothstep(0.8, 0.3, distance(uv, float2(0.5)));
///     return half4(half3(rgb * vig), color.a);
struct NativeTint: NativeShader {
    let source: Texture
    let size: (width: Float, height: Float)
    let time: Float

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let dy = Pixels(repeating: (Float(y) + 0.5) / size.height - 0.5)
        source.withTexels { texels in
            forEachRun(x0: x0, x1: x1) { x, count, px in
                let u = px / size.width
                let (cr, cg, cb, ca) = NativeMath.texels(texels, width: source.width, height: source.height, x: x, y: y)
                let phase = time + u * 6.28318
                let rr = 0.5 + 0.5 * NativeMath.sin(phase)
                let rg = 0.5 + 0.5 * NativeMath.sin(phase + 2)
                let rb = 0.5 + 0.5 * NativeMath.sin(phase + 4)
                let dx = u - 0.5
                let vignette = NativeMath.smoothstep(Pixels(repeating: 0.8), Pixels(repeating: 0.3),
                                                     NativeMath.length(dx, dy))
                let half = Pixels(repeating: 0.5)
                NativeMath.store(NativeMath.mix(cr, rr, half) * vignette, NativeMath.mix(cg, rg, half) * vignette,
                                 NativeMath.mix(cb, rb, half) * vignette, ca, count: count, output + (x - x0) * 4)
            }
        }
    }
}
