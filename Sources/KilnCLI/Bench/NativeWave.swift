import Foundation
import KilnBytecode
import KilnVM

/// `bench/wave.metal` in Swift: a distortion, then a bilinear read of the source.
///
///     float2 uv = position / bounds.zw;
///     position.y += 4 * sin(4 * uv.x + 2 * time);
///     return position;              // the renderer samples the source there
struct NativeWave: NativeShader {
    let source: Texture
    let bounds: (x: Float, y: Float, width: Float, height: Float)
    let time: Float

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let py = Float(y) + 0.5
        for x in x0..<x1 {
            let px = Float(x) + 0.5
            let u = px / bounds.width
            let sy = py + 4 * NativeMath.sin(4 * u + 2 * time)
            let (r, g, b, a) = Sampling.sample(source, x: px, y: sy, mode: .layer)
            NativeMath.store(r, g, b, a, output, (x - x0) * 4)
        }
    }
}
