import KilnBytecode
import KilnVM

/// `bench/box9.metal` in Swift: a layer effect with nine bilinear layer samples.
///
///     half4 acc = 0;
///     for (int j = -1; j <= 1; j++)
///         for (int i = -1; i <= 1; i++)
///             acc += layer.sample(position + 2 * float2(i, j));
///     return acc / 9;
struct NativeBox9: NativeShader {
    let layer: Texture

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        let py = Float(y) + 0.5
        for x in x0..<x1 {
            let px = Float(x) + 0.5
            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
            for j in -1...1 {
                for i in -1...1 {
                    let s = Sampling.sample(layer, x: px + 2 * Float(i), y: py + 2 * Float(j), mode: .layer)
                    r += s.0
                    g += s.1
                    b += s.2
                    a += s.3
                }
            }
            NativeMath.store(r / 9, g / 9, b / 9, a / 9, output, (x - x0) * 4)
        }
    }
}
