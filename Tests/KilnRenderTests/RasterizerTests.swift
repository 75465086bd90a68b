import Foundation
import KilnRender
import Testing

/// The triangle rasterizer of vertex + fragment pairs: coverage (top-left rule, shared
/// edges), varyings and the w ≤ 0 rule.
@Suite struct RasterizerTests {
    /// Vertices straight from a buffer of clip-space positions, with a colour each; the
    /// fragment returns a constant half-transparent grey, an interpolated or a flat colour.
    static let source = """
    #include <metal_stdlib>
    using namespace metal;
    struct Corner {
        float4 position [[position]];
        float4 smooth;
        float4 first [[flat]];
    };
    vertex Corner place(uint id [[vertex_id]], constant float4 *positions [[buffer(0)]],
                        constant float4 *colors [[buffer(1)]]) {
        Corner out;
        out.position = positions[id];
        out.smooth = colors[id];
        out.first = colors[id];
        return out;
    }
    fragment float4 halfGrey(Corner in [[stage_in]]) { return float4(0.25, 0.25, 0.25, 0.5); }
    fragment float4 smoothColor(Corner in [[stage_in]]) { return in.smooth; }
    fragment float4 flatColor(Corner in [[stage_in]]) { return in.first; }
    """

    /// Clip-space (x, y, 0, 1) of a pixel-space point in a `size`-pixel square frame.
    static func clip(_ x: Double, _ y: Double, size: Int) -> [Float] {
        let half = Double(size) / 2
        return [Float(x / half - 1), Float(1 - y / half), 0, 1]
    }

    static func draw(_ fragment: String, size: Int, corners: [(Double, Double)], colors: [Float]? = nil,
                     positions: [Float]? = nil) throws -> RGBAImage {
        let library = try compile(source)
        let clipPositions = positions ?? corners.flatMap { clip($0.0, $0.1, size: size) }
        let count = clipPositions.count / 4
        let colors = colors ?? [Float](repeating: 1, count: count * 4)
        return try Renderer.render(RenderRequest(library: library, functionName: "place", fragmentName: fragment,
                                                 width: size, height: size,
                                                 arguments: ["positions": clipPositions, "colors": colors], threads: 1))
    }

    /// Coverage by the alpha byte: every pixel is either untouched or exactly 0.5 (128).
    static func coverage(_ image: RGBAImage) -> (covered: Int, other: [UInt8]) {
        var covered = 0, other: Set<UInt8> = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                switch image.alpha(x, y) {
                case 0: break
                case 128: covered += 1
                case let alpha: other.insert(alpha)
                }
            }
        }
        return (covered, other.sorted())
    }

    @Test func aQuadOfTwoTrianglesHasNoSeam() throws {
        // Pixel-aligned square 2…14 split along its diagonal, which runs through pixel centres.
        let quad = [(2.0, 2.0), (14.0, 2.0), (14.0, 14.0), (2.0, 2.0), (14.0, 14.0), (2.0, 14.0)]
        let image = try Self.draw("halfGrey", size: 16, corners: quad)
        let (covered, other) = Self.coverage(image)
        #expect(other.isEmpty, "pixels drawn twice (or partly) have alpha \(other)")
        #expect(covered == 12 * 12)
        #expect(image.alpha(2, 2) == 128 && image.alpha(13, 13) == 128 && image.alpha(7, 7) == 128)
        #expect(image.alpha(1, 1) == 0 && image.alpha(14, 14) == 0)
    }

    @Test func anIrregularQuadOfTwoTrianglesHasNoSeam() throws {
        // Off-grid corners, both windings: still every pixel once at most, and the two
        // halves add up to what one fan of the same quad covers.
        let a = (1.3, 2.7), b = (27.9, 0.4), c = (30.2, 29.6), d = (3.1, 25.05)
        let split = try Self.draw("halfGrey", size: 32, corners: [a, b, c, c, d, a])
        let other = try Self.draw("halfGrey", size: 32, corners: [a, b, d, b, c, d])
        let first = Self.coverage(split), second = Self.coverage(other)
        #expect(first.other.isEmpty && second.other.isEmpty)
        #expect(first.covered == second.covered && first.covered > 500)
        let sameCoverage = split.bytes == other.bytes
        #expect(sameCoverage)
    }

    @Test func edgesThroughPixelCentresFollowTheTopLeftRule() throws {
        // A square whose edges pass exactly through pixel centres 2.5 and 6.5: its top row
        // and left column are inside, its bottom row and right column outside.
        let square = [(2.5, 2.5), (6.5, 2.5), (6.5, 6.5), (2.5, 2.5), (6.5, 6.5), (2.5, 6.5)]
        for corners in [square, square.reversed()] {
            let image = try Self.draw("halfGrey", size: 16, corners: Array(corners))
            var inside: [String] = []
            for y in 0..<16 {
                for x in 0..<16 where image.alpha(x, y) != 0 { inside.append("\(x),\(y)") }
            }
            let expected = (2...5).flatMap { y in (2...5).map { x in "\(x),\(y)" } }
            #expect(inside == expected)
            #expect(Self.coverage(image).other.isEmpty)
        }
    }

    @Test func interpolatedVaryingsBlendAndFlatOnesTakeTheFirstVertex() throws {
        let triangle = [(0.0, 0.0), (32.0, 0.0), (0.0, 32.0)]
        let colors: [Float] = [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]
        let smooth = try Self.draw("smoothColor", size: 32, corners: triangle, colors: colors)
        let flat = try Self.draw("flatColor", size: 32, corners: triangle, colors: colors)
        // Barycentric weights at pixel (8, 4): centre (8.5, 4.5) → (1 - 8.5/32 - 4.5/32, 8.5/32, 4.5/32).
        #expect(smooth.pixel(8, 4) == [Draw.level(1 - 13 / 32), Draw.level(8.5 / 32), Draw.level(4.5 / 32), 255])
        var flatColours: Set<[UInt8]> = [], smoothColours: Set<[UInt8]> = []
        for y in 0..<32 {
            for x in 0..<32 where flat.alpha(x, y) != 0 {
                flatColours.insert(flat.pixel(x, y))
                smoothColours.insert(smooth.pixel(x, y))
            }
        }
        #expect(flatColours == [[255, 0, 0, 255]])
        #expect(smoothColours.count > 100)
    }

    @Test func varyingsArePerspectiveCorrect() throws {
        // The same screen triangle with the far vertex at w = 4: its colour's share at a pixel is
        // (λ/w) / Σ(λ/w), not the screen-space λ.
        let positions: [Float] = [-1, 1, 0, 1, 4, 4, 0, 4, -1, -1, 0, 1]   // (0,0), (32,0), (0,32) on screen
        let colors: [Float] = [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]
        let image = try Self.draw("smoothColor", size: 32, corners: [], colors: colors, positions: positions)
        let l1: Float = 8.5 / 32, l2: Float = 4.5 / 32, l0 = 1 - l1 - l2
        let sum = l0 + l1 / 4 + l2
        #expect(image.pixel(8, 4) == [Draw.level(l0 / sum), Draw.level(l1 / 4 / sum), Draw.level(l2 / sum), 255])
    }

    @Test func aTriangleWithWAtOrBelowZeroIsSkipped() throws {
        // The first triangle has a vertex behind the eye (w = -1), the second one at w = 0;
        // only the third one is drawn.
        let good = [(0.0, 0.0), (16.0, 0.0), (0.0, 16.0)].flatMap { Self.clip($0.0, $0.1, size: 16) }
        var behind = good, atEye = good
        behind[7] = -1
        atEye[11] = 0
        let image = try Self.draw("halfGrey", size: 16, corners: [], positions: behind + atEye + good)
        let alone = try Self.draw("halfGrey", size: 16, corners: [], positions: good)
        let onlyTheGoodOne = image.bytes == alone.bytes
        #expect(onlyTheGoodOne)
        #expect(Self.coverage(image).covered > 0)
        let nothing = try Self.draw("halfGrey", size: 16, corners: [], positions: behind)
        let blank = nothing.bytes.allSatisfy { $0 == 0 }
        #expect(blank)
    }

    @Test func theGalleryTriangleRendersAColouredTriangle() throws {
        let url = Paths.repository.appendingPathComponent("shaders/triangle.metal")
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: "triangle.metal")
        let vertices: [Float] = [0, 0.8, 0, 1, 1, 0, 0, 1,
                                 -0.8, -0.7, 0, 1, 0, 1, 0, 1,
                                 0.8, -0.7, 0, 1, 0, 0, 1, 1]
        let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        let image = try Renderer.render(RenderRequest(library: library, functionName: "triangleVertex",
                                                      width: 128, height: 128,
                                                      arguments: ["vertices": vertices, "projection": identity]))
        #expect(image.alpha(64, 64) == 255)
        let centre = image.pixel(64, 64)
        #expect(centre[0] > 40 && centre[1] > 40 && centre[2] > 40, "a blend of all three corners, got \(centre)")
        for (x, y) in [(0, 0), (127, 0), (0, 127), (127, 127)] { #expect(image.pixel(x, y) == [0, 0, 0, 0]) }
        // Near each corner its own colour dominates: top red, bottom left green, bottom right blue.
        let top = image.pixel(64, 16), left = image.pixel(20, 108), right = image.pixel(107, 108)
        #expect(top[0] > top[1] && top[0] > top[2])
        #expect(left[1] > left[0] && left[1] > left[2])
        #expect(right[2] > right[0] && right[2] > right[1])
    }
}
