/// Premultiplied source-over, the one blend in Kiln: fragments onto the framebuffer of a
/// triangle draw, and scene layers onto their slot and slots onto the frame.
/// `destination = source + destination · (1 − source.a)`, with the source alpha clamped
/// to [0, 1] for the weight (NaN counts as 0: a broken alpha never erases what lies below).
public enum Compositing {
    /// Blends one premultiplied colour over the four floats at `destination`.
    @inlinable @inline(__always)
    public static func over(_ r: Float, _ g: Float, _ b: Float, _ a: Float, onto destination: UnsafeMutablePointer<Float>) {
        let keep = 1 - (a > 0 ? (a < 1 ? a : 1) : 0)
        destination[0] = r + destination[0] * keep
        destination[1] = g + destination[1] * keep
        destination[2] = b + destination[2] * keep
        destination[3] = a + destination[3] * keep
    }

    /// Blends premultiplied RGBA pixels over `destination`, pixel by pixel.
    public static func over(_ source: [Float], onto destination: inout [Float]) {
        let count = min(source.count, destination.count) / 4 * 4
        source.withUnsafeBufferPointer { source in
            destination.withUnsafeMutableBufferPointer { destination in
                var index = 0
                while index < count {
                    over(source[index], source[index + 1], source[index + 2], source[index + 3],
                         onto: destination.baseAddress! + index)
                    index += 4
                }
            }
        }
    }
}
