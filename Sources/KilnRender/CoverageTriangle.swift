/// Which pixels a triangle covers: the one coverage rule behind every triangle Kiln draws,
/// vertex draws (`TriangleDraw`) and solid fills (`SolidTriangleRasterizer`) alike.
///
/// Corners snap to 1/256 pixel and edge functions are evaluated exactly in integers, so
/// two triangles that share an edge compute the same (negated) values on it. A pixel is
/// covered when its centre is inside; a centre exactly on an edge belongs to the triangle
/// for which that edge is a top or left edge (the top-left rule), so a shared edge is
/// covered exactly once.
struct CoverageTriangle {
    /// A corner in fixed point: pixels × `subpixel`, y down.
    struct Point: Equatable {
        var x: Int64
        var y: Int64
    }

    /// Subpixel precision of corner positions.
    static let subpixel: Int64 = 256
    /// Corners farther than this from the frame, in pixels, drop their triangle (keeps the
    /// fixed-point edge functions far from overflow).
    static let maxCoordinate: Double = 1e7

    /// `(x, y)` in pixels snapped to the subpixel grid; nil when not finite or too far out.
    static func snap(x: Double, y: Double) -> Point? {
        guard x.isFinite, y.isFinite, abs(x) < maxCoordinate, abs(y) < maxCoordinate else { return nil }
        let scale = Double(subpixel)
        return Point(x: Int64((x * scale).rounded()), y: Int64((y * scale).rounded()))
    }

    /// The corners in positive-area order (clockwise on a y-down screen).
    let a: Point
    let b: Point
    let c: Point
    /// Twice the area, in subpixel units², > 0.
    let area: Int64
    /// Whether `b` and `c` were exchanged to make the area positive.
    let swapped: Bool

    /// nil for a triangle without area.
    init?(_ a: Point, _ b: Point, _ c: Point) {
        let area = Self.edge(a, b, c.x, c.y)
        guard area != 0 else { return nil }
        self.a = a
        (self.b, self.c) = area > 0 ? (b, c) : (c, b)
        self.area = abs(area)
        swapped = area < 0
    }

    static func edge(_ a: Point, _ b: Point, _ px: Int64, _ py: Int64) -> Int64 {
        (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x)
    }

    /// The top-left rule for a positive-area triangle: a left edge runs upward (dy < 0), a
    /// top edge rightward (dy = 0, dx > 0). The other triangle on a shared edge runs it the
    /// opposite way, so exactly one owns it.
    static func ownsEdge(_ a: Point, _ b: Point) -> Bool {
        let dy = b.y - a.y
        return dy < 0 || (dy == 0 && b.x > a.x)
    }

    /// The edge values of one pixel centre and whether the triangle covers it.
    struct Sample {
        var w0: Int64
        var w1: Int64
        var w2: Int64
        var covered: Bool
    }

    /// Calls `body(x0, y0, samples)` for every 2×2 quad at even (`x0`, `y0`) with at least
    /// one covered pixel, samples in lane order (top-left, top-right, bottom-left,
    /// bottom-right), as a GPU shades fragments: the quad's uncovered pixels — also those
    /// past the frame's right or bottom edge — run as helper lanes, so derivatives are
    /// differences of real values. Same coverage rule as `forEachCoveredPixel`.
    func forEachCoveredQuad<Failure: Error>(width: Int, height: Int,
                                            _ body: (_ x0: Int, _ y0: Int, _ samples: [Sample]) throws(Failure) -> Void) throws(Failure) {
        let unit = Self.subpixel
        let minX = max(0, Int(min(a.x, b.x, c.x) / unit) - 1) & ~1, maxX = min(width - 1, Int(max(a.x, b.x, c.x) / unit) + 1)
        let minY = max(0, Int(min(a.y, b.y, c.y) / unit) - 1) & ~1, maxY = min(height - 1, Int(max(a.y, b.y, c.y) / unit) + 1)
        guard minX <= maxX, minY <= maxY else { return }
        let ownsBC = Self.ownsEdge(b, c), ownsCA = Self.ownsEdge(c, a), ownsAB = Self.ownsEdge(a, b)
        var samples = [Sample](repeating: Sample(w0: 0, w1: 0, w2: 0, covered: false), count: 4)
        for y0 in stride(from: minY, through: maxY, by: 2) {
            for x0 in stride(from: minX, through: maxX, by: 2) {
                var any = false
                for lane in 0..<4 {
                    let x = x0 + (lane & 1), y = y0 + (lane >> 1)
                    let px = Int64(x) * unit + unit / 2, py = Int64(y) * unit + unit / 2
                    let w0 = Self.edge(b, c, px, py), w1 = Self.edge(c, a, px, py), w2 = Self.edge(a, b, px, py)
                    let inside = (w0 > 0 || (w0 == 0 && ownsBC)) && (w1 > 0 || (w1 == 0 && ownsCA)) && (w2 > 0 || (w2 == 0 && ownsAB))
                    let covered = inside && x < width && y < height
                    samples[lane] = Sample(w0: w0, w1: w1, w2: w2, covered: covered)
                    any = any || covered
                }
                if any { try body(x0, y0, samples) }
            }
        }
    }

    /// Calls `body(x, y, w0, w1, w2)` for every covered pixel of a `width`×`height` frame,
    /// row by row; `w0…w2` are the edge values opposite `a`, `b`, `c` (their sum is `area`).
    func forEachCoveredPixel<Failure: Error>(width: Int, height: Int,
                                             _ body: (_ x: Int, _ y: Int, _ w0: Int64, _ w1: Int64, _ w2: Int64) throws(Failure) -> Void) throws(Failure) {
        let unit = Self.subpixel
        let minX = max(0, Int(min(a.x, b.x, c.x) / unit) - 1), maxX = min(width - 1, Int(max(a.x, b.x, c.x) / unit) + 1)
        let minY = max(0, Int(min(a.y, b.y, c.y) / unit) - 1), maxY = min(height - 1, Int(max(a.y, b.y, c.y) / unit) + 1)
        guard minX <= maxX, minY <= maxY else { return }
        let ownsBC = Self.ownsEdge(b, c), ownsCA = Self.ownsEdge(c, a), ownsAB = Self.ownsEdge(a, b)
        for y in minY...maxY {
            let py = Int64(y) * unit + unit / 2
            for x in minX...maxX {
                let px = Int64(x) * unit + unit / 2
                let w0 = Self.edge(b, c, px, py), w1 = Self.edge(c, a, px, py), w2 = Self.edge(a, b, px, py)
                guard w0 > 0 || (w0 == 0 && ownsBC), w1 > 0 || (w1 == 0 && ownsCA), w2 > 0 || (w2 == 0 && ownsAB) else { continue }
                try body(x, y, w0, w1, w2)
            }
        }
    }
}
