import Foundation
import KilnRender
import KilnScene
import Testing

/// Golden images for each layer type and for the slot/order rules, and the no-seam rule.
@Suite struct SceneLayerTests {
    static let geometry = """
      "sources": {
        "shape": {"type": "geometry", "data": {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[10, 10], [54, 14], [40, 30], [56, 54], [12, 50], [24, 30], [10, 10]]]}}]}},
        "path": {"type": "geometry", "data": {"type": "MultiLineString", "coordinates": [
          [[8, 12], [32, 40], [56, 12]], [[8, 52], [56, 52]]]}},
        "dots": {"type": "geometry", "data": {"type": "MultiPoint", "coordinates": [[16, 16], [48, 20], [32, 46]]}},
        "photo": {"type": "image", "builtin": "photo"}
      }
    """

    func render(_ layers: String, extra: String = "") throws -> RGBAImage {
        try renderScene(#"{"width": 64, "height": 64, "camera": {"type": "pixel"}, \#(Self.geometry), \#(extra) "layers": [\#(layers)]}"#)
    }

    @Test func background() throws {
        let image = try render(##"{"id": "bg", "type": "background", "paint": {"background-color": "#336699", "background-opacity": 0.5}}"##)
        #expect(pixel(image, 10, 10) == [26, 51, 77, 128])
        #expect(image.isConstant)
    }

    @Test func raster() throws {
        try expectGolden(try render(#"{"id": "r", "type": "raster", "source": "photo", "paint": {"raster-opacity": 0.75}}"#), "layer_raster")
    }

    @Test func fill() throws {
        try expectGolden(try render(##"{"id": "f", "type": "fill", "source": "shape", "paint": {"fill-color": "#e04040"}}"##), "layer_fill")
    }

    @Test func lineCapsAndJoins() throws {
        for (cap, join) in [("butt", "miter"), ("round", "round"), ("square", "bevel")] {
            let image = try render("""
            {"id": "l", "type": "line", "source": "path", "paint": {"line-color": "#2050c0", "line-width": 6},
             "layout": {"line-cap": "\(cap)", "line-join": "\(join)"}}
            """)
            try expectGolden(image, "layer_line_\(cap)_\(join)")
        }
    }

    @Test func circle() throws {
        try expectGolden(try render(##"{"id": "c", "type": "circle", "source": "dots", "paint": {"circle-color": "#20a040", "circle-radius": 7}}"##), "layer_circle")
    }

    @Test func custom() throws {
        let image = try renderScene("""
        {"width": 64, "height": 64, "camera": {"type": "pixel"},
         "libraries": {"tri": {"path": "../shaders/map_triangle.metal"}},
         "sources": {"v": {"type": "vertices", "stride": 8, "data": [
            32, 4, 0, 1, 1, 0, 0, 1,   60, 58, 0, 1, 0, 1, 0, 1,   4, 58, 0, 1, 0, 0, 1, 1]}},
         "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
                    {"id": "t", "type": "custom", "library": "tri", "vertex": "mapTriangleVertex",
                     "fragment": "mapTriangleFragment", "vertices": "v"}]}
        """)
        try expectGolden(image, "layer_custom")
    }

    static let tint = """
    "libraries": {"fx": {"source": "#include <metal_stdlib>\\nusing namespace metal;\\n[[ stitchable ]] half4 darken(float2 position, half4 color, float amount) { return half4(color.rgb * half(1 - amount), color.a); }\\n[[ stitchable ]] float2 shift(float2 position, float dx) { return float2(position.x - dx, position.y); }"}},
    """

    @Test func effectAppliesToItsSlotOnly() throws {
        // The darken effect sits in the bottom slot: it darkens the raster beneath it, not
        // the circles in the top slot.
        let image = try render("""
            {"id": "r", "type": "raster", "source": "photo", "slot": "bottom"},
            {"id": "c", "type": "circle", "source": "dots", "slot": "top", "paint": {"circle-color": "#ffffff", "circle-radius": 5}},
            {"id": "fx", "type": "effect", "slot": "bottom", "library": "fx", "function": "darken", "arguments": {"amount": 0.5}}
            """, extra: Self.tint)
        let plain = try render(#"{"id": "r", "type": "raster", "source": "photo"}"#)
        #expect(pixel(image, 16, 16) == [255, 255, 255, 255])
        let before = pixel(plain, 4, 60), after = pixel(image, 4, 60)
        #expect(abs(Int(after[1]) - Int(before[1]) / 2) <= 1)
        try expectGolden(image, "layer_effect")
    }

    @Test func distortionEffect() throws {
        let image = try render("""
            {"id": "c", "type": "circle", "source": "dots", "paint": {"circle-color": "#ff0000", "circle-radius": 5}},
            {"id": "fx", "type": "effect", "library": "fx", "function": "shift", "arguments": {"dx": 10}}
            """, extra: Self.tint)
        // The dot at (16, 16) moved 10 pixels right.
        #expect(pixel(image, 26, 16) == [255, 0, 0, 255])
        #expect(pixel(image, 16, 16)[3] == 0)
    }

    @Test func slotOrder() throws {
        // Declared top-first; drawn bottom, middle, top, then unslotted. Each layer covers
        // less of the frame, so every layer stays visible in the golden image.
        let image = try renderScene("""
        {"width": 64, "height": 64,
         "sources": {
           "big": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[4, 4], [60, 4], [60, 60], [4, 60]]]}},
           "mid": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[12, 12], [52, 12], [52, 52], [12, 52]]]}},
           "small": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[20, 20], [44, 20], [44, 44], [20, 44]]]}},
           "dot": {"type": "geometry", "data": {"type": "Point", "coordinates": [32, 32]}}},
         "layers": [
           {"id": "free", "type": "circle", "source": "dot", "paint": {"circle-color": "#ffffff", "circle-radius": 6}},
           {"id": "top", "type": "fill", "source": "small", "slot": "top", "paint": {"fill-color": "#0000ff"}},
           {"id": "middle", "type": "fill", "source": "mid", "slot": "middle", "paint": {"fill-color": "#00ff00"}},
           {"id": "bottom", "type": "fill", "source": "big", "slot": "bottom", "paint": {"fill-color": "#ff0000"}},
           {"id": "bottom-bg", "type": "background", "slot": "bottom", "paint": {"background-color": "#000000", "background-opacity": 0.5}}
         ]}
        """)
        #expect(pixel(image, 32, 32) == [255, 255, 255, 255])      // unslotted on top
        #expect(pixel(image, 22, 22) == [0, 0, 255, 255])          // top slot
        #expect(pixel(image, 14, 14) == [0, 255, 0, 255])          // middle slot
        #expect(pixel(image, 6, 6) == [128, 0, 0, 255])            // bottom: red, then the half-black declared after it
        #expect(pixel(image, 1, 1) == [0, 0, 0, 128])
        try expectGolden(image, "slot_order")
    }

    /// Two triangles sharing a diagonal at 50% opacity: every pixel of the quad is blended
    /// exactly once, so there is no darker (or missing) line along the diagonal.
    @Test func halfOpaqueQuadHasNoSeam() throws {
        // Separate fills, so only the top-left rule keeps the diagonal from being blended twice.
        let rasterizer = SolidTriangleRasterizer(width: 40, height: 40)
        var framebuffer = [Float](repeating: 0, count: 40 * 40 * 4)
        let color = (r: Float(0.5), g: Float(0), b: Float(0), a: Float(0.5))
        rasterizer.fill([(4, 4), (36, 4), (36, 36)], color: color, into: &framebuffer)
        rasterizer.fill([(4, 4), (36, 36), (4, 36)], color: color, into: &framebuffer)
        for y in 4..<36 { for x in 4..<36 { #expect(framebuffer[(y * 40 + x) * 4 + 3] == 0.5) } }
        #expect(framebuffer[(2 * 40 + 2) * 4 + 3] == 0)

        // The same through a custom layer (vertex + fragment) and a fill layer.
        let quad = "4, 4, 0, 1, 1, 0, 0, 0.5,  36, 4, 0, 1, 1, 0, 0, 0.5,  36, 36, 0, 1, 1, 0, 0, 0.5,  4, 4, 0, 1, 1, 0, 0, 0.5,  36, 36, 0, 1, 1, 0, 0, 0.5,  4, 36, 0, 1, 1, 0, 0, 0.5"
        let image = try renderScene("""
        {"width": 40, "height": 40,
         "libraries": {"tri": {"path": "../shaders/map_triangle.metal"}},
         "sources": {"v": {"type": "vertices", "stride": 8, "data": [\(quad)]}},
         "layers": [{"id": "q", "type": "custom", "library": "tri", "vertex": "mapTriangleVertex",
                     "fragment": "mapTriangleFragment", "vertices": "v"}]}
        """)
        let fill = try renderScene("""
        {"width": 40, "height": 40,
         "sources": {"q": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[4, 4], [36, 4], [36, 36], [4, 36]]]}}},
         "layers": [{"id": "q", "type": "fill", "source": "q", "paint": {"fill-color": "#ff0000", "fill-opacity": 0.5}}]}
        """)
        for y in 4..<36 { for x in 4..<36 {
            #expect(pixel(image, x, y) == [128, 0, 0, 128])
            #expect(pixel(fill, x, y) == [128, 0, 0, 128])
        } }
        #expect(pixel(image, 3, 20) == [0, 0, 0, 0] && pixel(image, 36, 20) == [0, 0, 0, 0])
    }

    @Test func earClippingCoversAConcavePolygonExactly() throws {
        // An L shape: 3 of 4 quadrants of a 40-pixel square.
        let image = try renderScene("""
        {"width": 40, "height": 40,
         "sources": {"l": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[0, 0], [40, 0], [40, 20], [20, 20], [20, 40], [0, 40], [0, 0]]]}}},
         "layers": [{"id": "l", "type": "fill", "source": "l", "paint": {"fill-color": "#ffffff", "fill-opacity": 0.5}}]}
        """)
        var covered = 0
        for y in 0..<40 { for x in 0..<40 where pixel(image, x, y)[3] > 0 {
            covered += 1
            #expect(x < 20 || y < 20)
            #expect(pixel(image, x, y) == [128, 128, 128, 128])
        } }
        #expect(covered == 1200)
    }
}
