import Foundation
import KilnBytecode
import KilnVM

/// `bench/melt.metal` in Swift: a full-screen fragment pass over two textures.
///
///     float2 uv = in.uv;
///     float velocity = min(START_SPEED * time, 1.0);
///     uv.y -= velocity * 0.35 * fract(sin(dot(float2(uv.x, 0), float2(12.9898, 78.233))) * 43758.5453);
///     if (velocity >= 1) uv.y -= (time - 1 / START_SPEED) * MELT_SPEED;
///     if (uv.y < 0) return to.sample(s, in.uv);
///     return from.sample(s, uv);
struct NativeMelt: NativeShader {
    let from: Texture
    let to: Texture
    let size: (width: Float, height: Float)
    let time: Float

    private let startSpeed: Float = 2.7
    private let meltSpeed: Float = 1

    init(from: Texture, to: Texture, size: (width: Float, height: Float), time: Float) {
        self.from = from
        self.to = to
        self.size = size
        self.time = time
    }

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let v = (Float(y) + 0.5) / size.height
        let velocity = min(startSpeed * time, 1.0)
        // The sampler parameter is bound to normalized, linear, clamp-to-edge.
        let mode = SampleMode.samplerParameter
        for x in x0..<x1 {
            let u = (Float(x) + 0.5) / size.width
            // dot(float2(u, 0), k) = u·12.9898 + 0·78.233, kept in that order (no FMA).
            let dotted = u * 12.9898 + 0 * 78.233
            var meltedV = v - velocity * 0.35 * NativeMath.fract(NativeMath.sin(dotted) * 43758.5453)
            if velocity >= 1 { meltedV -= (time - 1 / startSpeed) * meltSpeed }
            let s = meltedV < 0
                ? Sampling.sample(to, x: u, y: v, mode: mode)
                : Sampling.sample(from, x: u, y: meltedV, mode: mode)
            NativeMath.store(s.0, s.1, s.2, s.3, output, (x - x0) * 4)
        }
    }
}
