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
    /// The sampler parameter is bound to normalized, linear, clamp-to-edge.
    let from: NativeSampler
    let to: NativeSampler
    let size: (width: Float, height: Float)
    let time: Float

    private let startSpeed: Float = 2.7
    private let meltSpeed: Float = 1

    init(from: Texture, to: Texture, size: (width: Float, height: Float), time: Float) {
        self.from = NativeSampler(from, mode: .samplerParameter)
        self.to = NativeSampler(to, mode: .samplerParameter)
        self.size = size
        self.time = time
    }

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let v = Pixels(repeating: (Float(y) + 0.5) / size.height)
        // The same for every pixel of the frame.
        let velocity = Swift.min(startSpeed * time, 1.0)
        let drop = velocity >= 1 ? (time - 1 / startSpeed) * meltSpeed : 0
        forEachRun(x0: x0, x1: x1) { x, count, px in
            let u = px / size.width
            // dot(float2(u, 0), k) = u·12.9898 + 0·78.233, kept in that order (no FMA).
            let dotted = u * 12.9898 + 0 * 78.233
            var meltedV = v - velocity * 0.35 * NativeMath.fract(NativeMath.sin(dotted) * 43758.5453)
            if velocity >= 1 { meltedV -= drop }
            let melted = meltedV .< Pixels()
            // Each sampler only where some lane needs it; lanes pick theirs.
            var s = any(melted) ? to.sample(u, v) : (Pixels(), Pixels(), Pixels(), Pixels())
            if !all(melted) {
                let f = from.sample(u, meltedV)
                s = (f.0.replacing(with: s.0, where: melted), f.1.replacing(with: s.1, where: melted),
                     f.2.replacing(with: s.2, where: melted), f.3.replacing(with: s.3, where: melted))
            }
            NativeMath.store(s.0, s.1, s.2, s.3, count: count, output + (x - x0) * 4)
        }
    }
}
