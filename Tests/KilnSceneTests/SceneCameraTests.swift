import Foundation
import KilnRender
import KilnScene
import Testing

/// The cameras' projection: the matrix handed to custom layers puts world coordinates
/// where the geometry layers put them, and a lon/lat triangle lands on the right pixels.
@Suite struct SceneCameraTests {
    /// Web Mercator written out independently of the implementation.
    func expectedPixel(longitude: Double, latitude: Double, center: (Double, Double), zoom: Double,
                       width: Int, height: Int) -> (x: Double, y: Double) {
        func unit(_ lon: Double, _ lat: Double) -> (Double, Double) {
            let phi = lat * .pi / 180
            return ((lon + 180) / 360, 0.5 - log((1 + sin(phi)) / (1 - sin(phi))) / (4 * .pi))
        }
        let p = unit(longitude, latitude), c = unit(center.0, center.1)
        let size = 512 * pow(2, zoom)
        return ((p.0 - c.0) * size + Double(width) / 2, (p.1 - c.1) * size + Double(height) / 2)
    }

    @Test func matrixAgreesWithPixelMapping() {
        let camera = SceneCamera.mercator(longitude: 10, latitude: 50, zoom: 4.5)
        let m = camera.projectionMatrix(width: 300, height: 200).map(Double.init)
        for (wx, wy) in [(0.52, 0.33), (0.53, 0.34), (0.5, 0.5)] {
            let clipX = m[0] * wx + m[4] * wy + m[12], clipY = m[1] * wx + m[5] * wy + m[13]
            let viaMatrix = ((clipX * 0.5 + 0.5) * 300, (0.5 - clipY * 0.5) * 200)
            let direct = camera.pixel(world: (wx, wy), width: 300, height: 200)
            #expect(abs(viaMatrix.0 - direct.x) < 0.01 && abs(viaMatrix.1 - direct.y) < 0.01)
        }
        let pixel = SceneCamera.pixel.projectionMatrix(width: 100, height: 50)
        #expect(pixel == [0.02, 0, 0, 0, 0, -0.04, 0, 0, 0, 0, 1, 0, -1, 1, 0, 1])
    }

    func triangleScene(zoom: Double, center: (Double, Double), corners: [(Double, Double)]) -> String {
        let data = corners.map { "\($0.0), \($0.1), 0, 1, 1, 0, 0, 1" }.joined(separator: ", ")
        return """
        {"width": 256, "height": 256,
         "camera": {"type": "mercator", "center": [\(center.0), \(center.1)], "zoom": \(zoom)},
         "libraries": {"map": {"path": "../shaders/map_triangle.metal"}},
         "sources": {"tri": {"type": "vertices", "stride": 8, "coordinates": "lonlat", "data": [\(data)]}},
         "layers": [{"id": "tri", "type": "custom", "library": "map", "vertex": "mapTriangleVertex",
                     "fragment": "mapTriangleFragment", "vertices": "tri"}]}
        """
    }

    @Test(arguments: [4.0, 6.0])
    func mercatorTriangleLandsOnItsPixels(zoom: Double) throws {
        let center = (24.6, 59.9)
        let corners = [(24.0, 60.4), (25.2, 60.1), (24.4, 59.6)]
        let image = try renderScene(triangleScene(zoom: zoom, center: center, corners: corners))
        let pixels = corners.map { expectedPixel(longitude: $0.0, latitude: $0.1, center: center, zoom: zoom, width: 256, height: 256) }
        // The centroid is red; a point past each corner, away from the centroid, is empty.
        let cx = pixels.map(\.x).reduce(0, +) / 3, cy = pixels.map(\.y).reduce(0, +) / 3
        #expect(pixel(image, Int(cx), Int(cy)) == [255, 0, 0, 255])
        for corner in pixels {
            let dx = corner.x - cx, dy = corner.y - cy, length = (dx * dx + dy * dy).squareRoot()
            let outside = (corner.x + dx / length * 3, corner.y + dy / length * 3)
            if outside.0 >= 0, outside.0 < 256, outside.1 >= 0, outside.1 < 256 {
                #expect(pixel(image, Int(outside.0), Int(outside.1))[3] == 0)
            }
            let inside = (corner.x - dx / length * 3, corner.y - dy / length * 3)
            #expect(pixel(image, Int(inside.0), Int(inside.1)) == [255, 0, 0, 255])
        }
        // The covered pixels' bounding box is the corners' box (to two pixels: a sharp tip covers no pixel centre near its end).
        var minX = 256, maxX = -1, minY = 256, maxY = -1
        for y in 0..<256 { for x in 0..<256 where pixel(image, x, y)[3] > 0 {
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        } }
        #expect(abs(Double(minX) - pixels.map(\.x).min()!) <= 2 && abs(Double(maxX + 1) - pixels.map(\.x).max()!) <= 2)
        #expect(abs(Double(minY) - pixels.map(\.y).min()!) <= 2 && abs(Double(maxY + 1) - pixels.map(\.y).max()!) <= 2)
    }

    /// A lon/lat circle layer and the custom triangle agree on where a place is.
    @Test func geometryAndCustomLayersAgree() throws {
        let center = (24.6, 59.9)
        let place = (24.4, 59.6)
        let expected = expectedPixel(longitude: place.0, latitude: place.1, center: center, zoom: 6, width: 256, height: 256)
        let image = try renderScene("""
        {"width": 256, "height": 256, "camera": {"type": "mercator", "center": [24.6, 59.9], "zoom": 6},
         "sources": {"p": {"type": "geometry", "data": {"type": "Point", "coordinates": [24.4, 59.6]}}},
         "layers": [{"id": "dot", "type": "circle", "source": "p", "paint": {"circle-color": "#00ff00", "circle-radius": 2}}]}
        """)
        #expect(pixel(image, Int(expected.x), Int(expected.y)) == [0, 255, 0, 255])
        #expect(pixel(image, Int(expected.x) + 4, Int(expected.y))[3] == 0)
    }
}
