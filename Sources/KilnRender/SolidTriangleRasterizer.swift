/// Fills triangles given in pixel coordinates (y down) with one premultiplied colour and
/// composites them source-over onto a float framebuffer, by the rules vertex draws use
/// (docs/rendering.md): corners snap to 1/256 pixel, a pixel is covered when its centre is
/// inside, and a centre exactly on an edge belongs to the triangle for which that edge is a
/// top or left edge — so two triangles sharing an edge never both cover a pixel on it.
///
/// One call blends every covered pixel once, however many of its triangles cover it: the
/// tessellated pieces of one shape (a quad's two halves, a line's overlapping joins) then
/// read as one surface at partial opacity, with no darker seams.
public struct SolidTriangleRasterizer: Sendable {
    public let width: Int
    public let height: Int

    /// Subpixel precision of corner positions (as in vertex draws).
    public static let subpixel = Double(CoverageTriangle.subpixel)
    /// Corners farther than this from the frame, in pixels, are dropped with their triangle
    /// (keeps the fixed-point edge functions far from overflow).
    public static let maxCoordinate = CoverageTriangle.maxCoordinate

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// A premultiplied RGBA colour.
    public typealias Color = (r: Float, g: Float, b: Float, a: Float)

    /// Fills `corners` (three points per triangle; a trailing partial triangle is ignored)
    /// with `color`, blended source-over into `framebuffer` (premultiplied RGBA floats,
    /// `width × height × 4`, row 0 at the top).
    public func fill(_ corners: [(x: Double, y: Double)], color: Color, into framebuffer: inout [Float]) {
        guard framebuffer.count >= width * height * 4, width > 0, height > 0 else { return }
        var covered = [Bool](repeating: false, count: width * height)
        var any = false
        var index = 0
        while index + 3 <= corners.count {
            if cover(corners[index], corners[index + 1], corners[index + 2], into: &covered) { any = true }
            index += 3
        }
        guard any else { return }
        let keep = 1 - min(max(color.a.isNaN ? 0 : color.a, 0), 1)
        for pixel in 0..<(width * height) where covered[pixel] {
            let base = pixel * 4
            framebuffer[base] = color.r + framebuffer[base] * keep
            framebuffer[base + 1] = color.g + framebuffer[base + 1] * keep
            framebuffer[base + 2] = color.b + framebuffer[base + 2] * keep
            framebuffer[base + 3] = color.a + framebuffer[base + 3] * keep
        }
    }

    /// Marks the pixels one triangle covers; false when it covers none.
    private func cover(_ p0: (x: Double, y: Double), _ p1: (x: Double, y: Double), _ p2: (x: Double, y: Double),
                       into covered: inout [Bool]) -> Bool {
        guard let a = CoverageTriangle.snap(x: p0.x, y: p0.y), let b = CoverageTriangle.snap(x: p1.x, y: p1.y),
              let c = CoverageTriangle.snap(x: p2.x, y: p2.y), let triangle = CoverageTriangle(a, b, c) else { return false }
        var any = false
        triangle.forEachCoveredPixel(width: width, height: height) { x, y, _, _, _ in
            covered[y * width + x] = true
            any = true
        }
        return any
    }
}
