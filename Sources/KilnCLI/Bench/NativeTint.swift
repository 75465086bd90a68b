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
        let v = (Float(y) + 0.5) / size.height
        let dy = v - 0.5
        source.withTexels { texels in
            for x in x0..<x1 {
                let u = (Float(x) + 0.5) / size.width
                let base = (y * source.width + x) * 4
                // Color effects see the source pixel itself; outside the source, transparent.
                let inside = x < source.width && y < source.height
                let cr = inside ? texels[base] : 0
                let cg = inside ? texels[base + 1] : 0
                let cb = inside ? texels[base + 2] : 0
                let ca = inside ? texels[base + 3] : 0
                let phase = time + u * 6.28318
                let rr = 0.5 + 0.5 * NativeMath.sin(phase)
                let rg = 0.5 + 0.5 * NativeMath.sin(phase + 2)
                let rb = 0.5 + 0.5 * NativeMath.sin(phase + 4)
                let dx = u - 0.5
                let vignette = NativeMath.smoothstep(0.8, 0.3, (dx * dx + dy * dy).squareRoot())
                NativeMath.store(NativeMath.mix(cr, rr, 0.5) * vignette,
                                 NativeMath.mix(cg, rg, 0.5) * vignette,
                                 NativeMath.mix(cb, rb, 0.5) * vignette, ca, output, (x - x0) * 4)
            }
        }
    }
}
