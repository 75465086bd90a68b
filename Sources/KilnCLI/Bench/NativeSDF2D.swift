import Foundation
import KilnVM

/// `bench/sdf2d.metal` in Swift: sixteen moving rounded boxes and circles smooth-unioned,
/// anti-aliased edges, an outline ring and a glow.
///
///     float2 cell = float2(float(i % 4), float(i / 4)) - 1.5;
///     float2 c = cell * 0.22 + 0.03 * float2(sin(time * 1.3 + fi), cos(time * 1.1 + fi * 1.7));
///     float a = time * 0.6 + fi * 0.4;  float ca = cos(a), sa = sin(a);
///     float2 q = p - c;  q = float2(ca * q.x + sa * q.y, ca * q.y - sa * q.x);
///     float r = 0.07 + 0.02 * sin(time * 2.0 + fi * 0.9);
///     float s = (i & 1) == 0 ? roundBox(q, float2(r), 0.02) : length(q) - r;
///     d = smin(d, s, 0.05);
///
/// The shapes' parameters depend only on time: computed once per frame.
struct NativeSDF2D: NativeShader {
    let source: Texture
    let bounds: (x: Float, y: Float, width: Float, height: Float)
    let time: Float
    private struct Shape {
        var cx: Float, cy: Float, cosine: Float, sine: Float, radius: Float
    }
    private let shapes: [Shape]

    init(source: Texture, bounds: (x: Float, y: Float, width: Float, height: Float), time: Float) {
        self.source = source
        self.bounds = bounds
        self.time = time
        shapes = (0..<16).map { i in
            let fi = Float(i)
            let cellX = Float(i % 4) - 1.5, cellY = Float(i / 4) - 1.5
            let a = time * 0.6 + fi * 0.4
            return Shape(cx: cellX * 0.22 + 0.03 * NativeMath.sin(time * 1.3 + fi),
                         cy: cellY * 0.22 + 0.03 * NativeMath.cos(time * 1.1 + fi * 1.7),
                         cosine: NativeMath.cos(a), sine: NativeMath.sin(a),
                         radius: 0.07 + 0.02 * NativeMath.sin(time * 2.0 + fi * 0.9))
        }
    }

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let py = Pixels(repeating: ((Float(y) + 0.5) - bounds.y - 0.5 * bounds.height) / bounds.height)
        let pixel = 1 / bounds.height
        source.withTexels { texels in
            forEachRun(x0: x0, x1: x1) { x, count, position in
                let px = (position - bounds.x - 0.5 * bounds.width) / bounds.height
                var d = Pixels(repeating: 1e3)
                for (i, shape) in shapes.enumerated() {
                    let qx0 = px - shape.cx, qy0 = py - shape.cy
                    let qx = shape.cosine * qx0 + shape.sine * qy0
                    let qy = shape.cosine * qy0 - shape.sine * qx0
                    let s: Pixels
                    if i & 1 == 0 {
                        // roundBox(q, float2(r), 0.02)
                        let bx = NativeMath.abs(qx) - shape.radius + 0.02, by = NativeMath.abs(qy) - shape.radius + 0.02
                        let outside = NativeMath.length(NativeMath.max(bx, Pixels()), NativeMath.max(by, Pixels()))
                        s = outside + NativeMath.min(NativeMath.max(bx, by), Pixels()) - 0.02
                    } else {
                        s = NativeMath.length(qx, qy) - shape.radius
                    }
                    // smin(d, s, 0.05)
                    let h = NativeMath.clamp(0.5 + 0.5 * (s - d) / 0.05, 0, 1)
                    d = NativeMath.mix(s, d, h) - 0.05 * h * (1 - h)
                }
                let fill = 1 - NativeMath.smoothstep(Pixels(repeating: -pixel), Pixels(repeating: pixel), d)
                let ring = 1 - NativeMath.smoothstep(Pixels(repeating: 0.5 * pixel), Pixels(repeating: 2 * pixel),
                                                     NativeMath.abs(d - 0.012))
                let glow = NativeMath.exp(-12 * NativeMath.max(d, Pixels()))
                let diagonal = px + py * 0.5
                let (cr, cg, cb, _) = NativeMath.texels(texels, width: source.width, height: source.height, x: x, y: y)
                func channel(_ colour: Pixels, _ offset: Float, _ tint: Float) -> Pixels {
                    let body = 0.5 + 0.5 * NativeMath.cos(6.28318 * (diagonal + offset) + time)
                    let base = colour * 0.15 + glow * tint * 0.8
                    return NativeMath.mix(NativeMath.mix(base, body, fill), Pixels(repeating: 1), ring * 0.7)
                }
                NativeMath.store(channel(cr, 0.0, 0.25), channel(cg, 0.33, 0.55), channel(cb, 0.67, 1.0),
                                 Pixels(repeating: 1), count: count, output + (x - x0) * 4)
            }
        }
    }
}
