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
    public static let subpixel: Double = 256
    /// Corners farther than this from the frame, in pixels, are dropped with their triangle
    /// (keeps the fixed-point edge functions far from overflow).
    public static let maxCoordinate: Double = 1e7

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

    private struct Point {
        var x: Int64
        var y: Int64
    }

    private func snap(_ p: (x: Double, y: Double)) -> Point? {
        guard p.x.isFinite, p.y.isFinite, abs(p.x) < Self.maxCoordinate, abs(p.y) < Self.maxCoordinate else { return nil }
        return Point(x: Int64((p.x * Self.subpixel).rounded()), y: Int64((p.y * Self.subpixel).rounded()))
    }

    private func edge(_ a: Point, _ b: Point, _ px: Int64, _ py: Int64) -> Int64 {
        (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x)
    }

    /// The top-left rule for a positive-area (clockwise on a y-down screen) triangle: a
    /// left edge runs upward, a top edge rightward.
    private func ownsEdge(_ a: Point, _ b: Point) -> Bool {
        let dy = b.y - a.y
        return dy < 0 || (dy == 0 && b.x > a.x)
    }

    /// Marks the pixels one triangle covers; false when it covers none.
    private func cover(_ p0: (x: Double, y: Double), _ p1: (x: Double, y: Double), _ p2: (x: Double, y: Double),
                       into covered: inout [Bool]) -> Bool {
        guard let a = snap(p0), var b = snap(p1), var c = snap(p2) else { return false }
        var area = edge(a, b, c.x, c.y)
        if area == 0 { return false }
        if area < 0 { swap(&b, &c); area = -area }
        let unit = Int64(Self.subpixel)
        let minX = max(0, Int(min(a.x, b.x, c.x) / unit) - 1), maxX = min(width - 1, Int(max(a.x, b.x, c.x) / unit) + 1)
        let minY = max(0, Int(min(a.y, b.y, c.y) / unit) - 1), maxY = min(height - 1, Int(max(a.y, b.y, c.y) / unit) + 1)
        guard minX <= maxX, minY <= maxY else { return false }
        let ownsBC = ownsEdge(b, c), ownsCA = ownsEdge(c, a), ownsAB = ownsEdge(a, b)
        var any = false
        for y in minY...maxY {
            let py = Int64(y) * unit + unit / 2
            for x in minX...maxX {
                let px = Int64(x) * unit + unit / 2
                let w0 = edge(b, c, px, py), w1 = edge(c, a, px, py), w2 = edge(a, b, px, py)
                guard w0 > 0 || (w0 == 0 && ownsBC), w1 > 0 || (w1 == 0 && ownsCA), w2 > 0 || (w2 == 0 && ownsAB) else { continue }
                covered[y * width + x] = true
                any = true
            }
        }
        return any
    }
}
