import Foundation
import KilnBytecode
import KilnVM

/// `bench/wave.metal` in Swift: a distortion, then a bilinear read of the source.
///
///     float2 uv = position / bounds.zw;
///     position.y += 4 * sin(4 * uv.x + 2 * time);
///     return position;              // the renderer samples the source there
struct NativeWave: NativeShader {
    let sampler: NativeSampler
    let bounds: (x: Float, y: Float, width: Float, height: Float)
    let time: Float

    init(source: Texture, bounds: (x: Float, y: Float, width: Float, height: Float), time: Float) {
        sampler = NativeSampler(source, mode: .layer)
        self.bounds = bounds
        self.time = time
    }

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let py = Pixels(repeating: Float(y) + 0.5)
        let phase = 2 * time
        forEachRun(x0: x0, x1: x1) { x, count, px in
            let u = px / bounds.width
            let sy = py + 4 * NativeMath.sin(4 * u + phase)
            let (r, g, b, a) = sampler.sample(px, sy)
            NativeMath.store(r, g, b, a, count: count, output + (x - x0) * 4)
        }
    }
}
