import KilnBytecode
import KilnVM

/// `bench/box9.metal` in Swift: a layer effect with nine bilinear layer samples.
///
///     half4 acc = 0;
///     for (int j = -1; j <= 1; j++)
///         for (int i = -1; i <= 1; i++)
///             acc += layer.sample(position + 2 * float2(i, j));
///     return acc / 9;
///
/// Every tap is `position` plus whole pixels: a texel centre, where the bilinear weights
/// are zero and the filter returns the texel itself. So the Swift a person writes reads the
/// nine texels (transparent outside the image, as the layer's sampler gives there).
struct NativeBox9: NativeShader {
    let layer: Texture

    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>) {
        layer.withTexels { texels in
            forEachRun(x0: x0, x1: x1) { x, count, _ in
                var r = Pixels(), g = Pixels(), b = Pixels(), a = Pixels()
                for j in -1...1 {
                    for i in -1...1 {
                        let s = NativeMath.texels(texels, width: layer.width, height: layer.height, x: x + 2 * i, y: y + 2 * j)
                        r += s.0
                        g += s.1
                        b += s.2
                        a += s.3
                    }
                }
                NativeMath.store(r / 9, g / 9, b / 9, a / 9, count: count, output + (x - x0) * 4)
            }
        }
    }
}
