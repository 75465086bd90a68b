import Foundation
import KilnRender
import KilnScene
import KilnServer
import Testing

/// Layer outputs are cached: a changed document redraws only the layers whose inputs
/// changed (counted per layer id), and the runtime edits keep that promise.
@Suite struct SceneCachingTests {
    static let base = """
    {"width": 128, "height": 128,
     "libraries": {"tri": {"path": "../shaders/map_triangle.metal"},
                   "fx": {"source": "#include <metal_stdlib>\\nusing namespace metal;\\n[[ stitchable ]] half4 darken(float2 position, half4 color, float amount) { return half4(color.rgb * half(1 - amount), color.a); }"}},
     "sources": {
       "shape": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[10, 10], [110, 20], [60, 110]]]}},
       "path": {"type": "geometry", "data": {"type": "LineString", "coordinates": [[5, 120], [64, 64], [120, 120]]}},
       "dots": {"type": "geometry", "data": {"type": "MultiPoint", "coordinates": [[20, 100], [100, 100]]}},
       "v": {"type": "vertices", "stride": 8, "data": [64, 8, 0, 1, 1, 0, 0, 1,  120, 70, 0, 1, 0, 1, 0, 1,  8, 70, 0, 1, 0, 0, 1, 1]}},
     "layers": [
       {"id": "bg", "type": "background", "slot": "bottom", "paint": {"background-color": "#ddeeff"}},
       {"id": "fill", "type": "fill", "source": "shape", "slot": "bottom", "paint": {"fill-color": "#ff8800"}},
       {"id": "line", "type": "line", "source": "path", "slot": "middle", "paint": {"line-width": 4}},
       {"id": "tri", "type": "custom", "slot": "middle", "library": "tri", "vertex": "mapTriangleVertex",
        "fragment": "mapTriangleFragment", "vertices": "v"},
       {"id": "dots", "type": "circle", "source": "dots", "paint": {"circle-radius": 6, "circle-color": "#ffffff"}},
       {"id": "fx", "type": "effect", "library": "fx", "function": "darken", "arguments": {"amount": 0.2}}
     ]}
    """

    func renderer() -> SceneRenderer { SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: ScenePaths.scenes, threads: 1) }

    /// A new library source in every document (a client editing an effect, or an attacker)
    /// keeps at most `maxCachedLibraries` compiled libraries, and the latest still works.
    @Test func compiledLibrariesAreBounded() throws {
        let renderer = renderer()
        for index in 0..<40 {
            let text = "#include <metal_stdlib>\\nusing namespace metal;\\n[[ stitchable ]] half4 tint(float2 position, half4 color) { return color * \(index).0h / 40.0h; }"
            let document = try scene("""
                {"width": 8, "height": 8, "libraries": {"fx": {"source": "\(text)"}},
                 "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
                            {"id": "fx", "type": "effect", "library": "fx", "function": "tint"}]}
                """)
            let image = try renderer.render(document)
            #expect(renderer.cachedLibraryCount <= SceneLimits.default.maxCachedLibraries)
            if index == 39 { #expect(image.bytes[0] == 249) }       // 39/40 of white, premultiplied
        }
        #expect(renderer.cachedLibraryCount == SceneLimits.default.maxCachedLibraries)
    }

    @Test func firstFrameDrawsEveryLayerOnce() throws {
        let renderer = renderer()
        _ = try renderer.render(try scene(Self.base))
        #expect(renderer.lastDrawn == ["bg", "fill", "line", "tri", "dots", "fx"])
        #expect(renderer.renderCounts.values.allSatisfy { $0 == 1 })
        // The same document again: nothing is drawn, the picture is the same.
        let again = try renderer.render(try scene(Self.base))
        #expect(renderer.lastDrawn.isEmpty)
        let fresh = try SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: ScenePaths.scenes, threads: 1).render(try scene(Self.base))
        let same = again == fresh
        #expect(same)
    }

    @Test func updatingTheTopEffectArgumentRerunsOnlyTheEffect() throws {
        let renderer = renderer()
        var document = try scene(Self.base)
        let clock = ContinuousClock()
        var first: RGBAImage?
        let full = try clock.measure { first = try renderer.render(document) }
        document = try document.updatingLayer("fx", properties: Array(#"{"arguments": {"amount": 0.6}}"#.utf8))
        var second: RGBAImage?
        let update = try clock.measure { second = try renderer.render(document) }
        #expect(renderer.lastDrawn == ["fx"])
        #expect(renderer.renderCounts == ["bg": 1, "fill": 1, "line": 1, "tri": 1, "dots": 1, "fx": 2])
        let changed = first != second        // (a Bool: a failing image comparison would print every byte)
        #expect(changed)
        // The cached result equals a fresh render of the updated document.
        let fresh = try SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: ScenePaths.scenes, threads: 1).render(document)
        let same = second == fresh
        #expect(same)
        print("scene frame: full \(full), after an effect-argument update \(update)")
    }

    @Test func sceneSetWithOneChangedLayerRedrawsOneLayer() throws {
        let renderer = renderer()
        _ = try renderer.render(try scene(Self.base))
        // A new document in which only the line changed: the line is drawn again, and the
        // unslotted effect above everything is not (it is in another slot).
        let changed = Self.base.replacingOccurrences(of: #""line-width": 4"#, with: #""line-width": 7"#)
        _ = try renderer.render(try scene(changed))
        #expect(renderer.lastDrawn == ["line"])
        #expect(renderer.renderCounts["line"] == 2 && renderer.renderCounts["tri"] == 1)
    }

    @Test func anEffectIsRedrawnWhenWhatLiesBeneathItChanges() throws {
        let renderer = renderer()
        _ = try renderer.render(try scene(Self.base))
        let changed = Self.base.replacingOccurrences(of: #""circle-radius": 6"#, with: #""circle-radius": 9"#)
        _ = try renderer.render(try scene(changed))
        #expect(renderer.lastDrawn == ["dots", "fx"])
    }

    @Test func cameraOrSizeChangesRedrawEverything() throws {
        let renderer = renderer()
        _ = try renderer.render(try scene(Self.base))
        _ = try renderer.render(try scene(Self.base.replacingOccurrences(of: #""width": 128"#, with: #""width": 96"#)))
        #expect(renderer.lastDrawn.count == 6)
    }

    @Test func runtimeEdits() throws {
        let renderer = renderer()
        var document = try scene(Self.base)
        let before = try renderer.render(document)

        // Hiding and removing draw nothing new.
        document = try document.updatingLayer("dots", properties: Array(#"{"visible": false}"#.utf8))
        _ = try renderer.render(document)
        #expect(renderer.lastDrawn == ["fx"])   // it sits on what changed beneath it
        document = try document.removingLayer("dots")
        _ = try renderer.render(document)
        #expect(renderer.lastDrawn.isEmpty)

        // Adding draws just the new layer; `below` puts it in its neighbour's slot.
        let circle = ##"{"id": "dot2", "type": "circle", "source": "dots", "paint": {"circle-color": "#00ff00", "circle-radius": 4}}"##
        document = try document.addingLayer(Array(circle.utf8), placement: .below("tri"))
        _ = try renderer.render(document)
        #expect(renderer.lastDrawn == ["dot2"])
        let order = SceneDocument.drawingOrder(document.layers).flatMap { $0.map(\.id) }
        #expect(order == ["bg", "fill", "line", "dot2", "tri", "fx"])

        let square = ##"{"id": "sq", "type": "background", "paint": {"background-color": "#00000040"}}"##
        document = try document.addingLayer(Array(square.utf8), placement: .slot(.bottom))
        #expect(SceneDocument.drawingOrder(document.layers).flatMap { $0.map(\.id) }.prefix(3) == ["bg", "fill", "sq"])
        document = try document.addingLayer(Array(#"{"id": "last", "type": "background"}"#.utf8), placement: .above("fx"))
        #expect(SceneDocument.drawingOrder(document.layers).flatMap { $0.map(\.id) }.last == "last")

        // Bad edits name what is wrong and leave the document as it was.
        #expect(throws: SceneError(path: "below", "no layer \"nope\"")) {
            try document.addingLayer(Array(circle.utf8), placement: .below("nope"))
        }
        #expect(throws: SceneError(path: "layers[8].id", "duplicate layer id \"bg\"")) {
            try document.addingLayer(Array(#"{"id": "bg", "type": "background"}"#.utf8), placement: .top)
        }
        #expect(throws: SceneError(path: "layers[1].paint.fill-color", "expected a colour (\"#rrggbb\", \"#rrggbbaa\" or [r, g, b, a] in 0...1), got a number")) {
            try document.updatingLayer("fill", properties: Array(#"{"paint": {"fill-color": 3}}"#.utf8))
        }
        #expect(before.width == 128)
    }

    @Test func theCacheStaysWithinItsBudget() throws {
        var limits = SceneLimits()
        limits.maxCachedFloats = 128 * 128 * 4 * 2          // two layers' worth
        let renderer = SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: ScenePaths.scenes, threads: 1, limits: limits)
        let document = try scene(Self.base)
        let first = try renderer.render(document)
        let second = try renderer.render(document)
        // The two top layers stayed cached; the four beneath them are drawn again.
        #expect(renderer.lastDrawn == ["bg", "fill", "line", "tri"])
        let same = first == second
        #expect(same)
    }

    @Test func groupsAreCachedAndFollowTheirLayers() throws {
        let renderer = renderer()
        let text = """
        {"width": 32, "height": 32,
         "sources": {"g": {"type": "image", "group": "inner"}},
         "groups": {"inner": {"layers": [{"id": "inner-bg", "type": "background", "paint": {"background-color": "#ff0000"}}]}},
         "layers": [{"id": "show", "type": "raster", "source": "g", "paint": {"raster-opacity": 0.5}}]}
        """
        let first = try renderer.render(try scene(text))
        #expect(pixel(first, 5, 5) == [128, 0, 0, 128])
        #expect(renderer.lastDrawn == ["inner-bg", "show"])
        let second = try renderer.render(try scene(text.replacingOccurrences(of: "#ff0000", with: "#0000ff")))
        #expect(renderer.lastDrawn == ["inner-bg", "show"])
        #expect(pixel(second, 5, 5) == [0, 0, 128, 128])
        _ = try renderer.render(try scene(text.replacingOccurrences(of: "0.5", with: "0.25")))
        #expect(renderer.lastDrawn == ["inner-bg", "show"] || renderer.lastDrawn == ["show"])
    }
}
