import Foundation
import KilnRender
import KilnScene
import KilnServer
import Testing

/// Ear clipping covers exactly the pixels whose centres lie inside the polygon.
@Suite struct TessellationTests {
    /// Even-odd point-in-polygon, and whether the point is (nearly) on an edge.
    func inside(_ x: Double, _ y: Double, _ ring: [(Double, Double)]) -> (inside: Bool, onEdge: Bool) {
        var result = false, onEdge = false
        for i in ring.indices {
            let (ax, ay) = ring[i], (bx, by) = ring[(i + 1) % ring.count]
            let cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
            let length = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
            if abs(cross) / max(length, 1e-12) < 0.01,
               (x - ax) * (x - bx) <= 0.0001, (y - ay) * (y - by) <= 0.0001 { onEdge = true }
            if (ay > y) != (by > y), x < ax + (y - ay) * (bx - ax) / (by - ay) { result.toggle() }
        }
        return (result, onEdge)
    }

    @Test func concaveStarWithStraightCorners() throws {
        // A 12-pointed star (concave everywhere) with extra points in the middle of edges.
        var ring: [(Double, Double)] = []
        for k in 0..<24 {
            let angle = Double(k) / 24 * 2 * .pi
            let radius = k % 2 == 0 ? 28.0 : 11.0
            ring.append((32 + radius * cos(angle), 32 + radius * sin(angle)))
        }
        var withMidpoints: [(Double, Double)] = []
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            withMidpoints.append(a)
            if i % 3 == 0 { withMidpoints.append(((a.0 + b.0) / 2, (a.1 + b.1) / 2)) }
        }
        let coordinates = (withMidpoints + [withMidpoints[0]]).map { "[\($0.0), \($0.1)]" }.joined(separator: ", ")
        let image = try renderScene("""
        {"width": 64, "height": 64,
         "sources": {"s": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[\(coordinates)]]}}},
         "layers": [{"id": "s", "type": "fill", "source": "s", "paint": {"fill-color": "#ffffff", "fill-opacity": 0.5}}]}
        """)
        var checked = 0
        for y in 0..<64 { for x in 0..<64 {
            let test = inside(Double(x) + 0.5, Double(y) + 0.5, ring)
            guard !test.onEdge else { continue }
            checked += 1
            #expect(pixel(image, x, y) == (test.inside ? [128, 128, 128, 128] : [0, 0, 0, 0]), "pixel \(x), \(y)")
        } }
        #expect(checked > 4000)
    }

    @Test func tessellationBudgetIsANamedLimit() throws {
        var limits = SceneLimits()
        limits.maxTessellationSteps = 3
        let renderer = SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: ScenePaths.scenes, threads: 1, limits: limits)
        let document = try scene("""
        {"width": 16, "height": 16,
         "sources": {"p": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[0, 0], [16, 0], [8, 4], [16, 16], [0, 16]]]}}},
         "layers": [{"id": "f", "type": "fill", "source": "p"}]}
        """)
        #expect(throws: SceneError(path: "sources.p", "a polygon of 5 points exceeds maxTessellationSteps = 3")) {
            try renderer.render(document)
        }
    }
}
