import KilnScene
import Testing

/// Invalid scenes are rejected with errors that name the JSON path of the problem.
@Suite struct SceneDecodingTests {
    @Test func badPaintColourNamesItsPath() {
        let text = """
        {"layers": [
          {"id": "a", "type": "background"},
          {"id": "b", "type": "background"},
          {"id": "c", "type": "fill", "source": "g", "paint": {"fill-color": 12}}
        ], "sources": {"g": {"type": "geometry", "data": {"type": "Point", "coordinates": [1, 2]}}}}
        """
        #expect(sceneError(text)?.hasPrefix("layers[2].paint.fill-color: expected a colour") == true)
    }

    @Test func unknownSource() {
        let text = #"{"layers": [{"id": "r", "type": "raster", "source": "nowhere"}]}"#
        #expect(sceneError(text) == "layers[0].source: unknown source \"nowhere\"")
    }

    @Test func sourceOfTheWrongKind() {
        let text = """
        {"sources": {"p": {"type": "image", "builtin": "photo"}},
         "layers": [{"id": "f", "type": "fill", "source": "p"}]}
        """
        #expect(sceneError(text) == "layers[0].source: source \"p\" is not a geometry source")
    }

    @Test func cycleBetweenGroups() {
        let text = """
        {"sources": {"a": {"type": "image", "group": "one"}, "b": {"type": "image", "group": "two"}},
         "groups": {"one": {"layers": [{"id": "x", "type": "raster", "source": "b"}]},
                    "two": {"layers": [{"id": "y", "type": "background"}, {"id": "z", "type": "raster", "source": "a"}]}},
         "layers": [{"id": "r", "type": "raster", "source": "a"}]}
        """
        let error = sceneError(text)
        #expect(error == "groups.two.layers[1]: cycle between layer groups: one → two → one")
    }

    @Test func groupShowingItself() {
        let text = """
        {"sources": {"a": {"type": "image", "group": "one"}},
         "groups": {"one": {"layers": [{"id": "x", "type": "raster", "source": "a"}]}}}
        """
        #expect(sceneError(text) == "groups.one.layers[0]: cycle between layer groups: one → one")
    }

    @Test func unknownGroup() {
        let text = #"{"sources": {"a": {"type": "image", "group": "missing"}}}"#
        #expect(sceneError(text) == "sources.a.group: unknown layer group \"missing\"")
    }

    @Test func badPropertyTypes() {
        #expect(sceneError(#"{"width": "wide"}"#) == "width: expected a number, got a string")
        #expect(sceneError(#"{"height": 20.5}"#) == "height: expected a whole number in 1...8192, got 20.5")
        #expect(sceneError(#"{"layers": [{"id": "a", "type": "background", "visible": 1}]}"#)
                == "layers[0].visible: expected true or false, got a number")
        #expect(sceneError(#"{"layers": [{"id": "a", "type": "background", "slot": "side"}]}"#)
                == "layers[0].slot: expected one of \"bottom\", \"middle\", \"top\", got \"side\"")
        #expect(sceneError(#"{"layers": [{"id": "a", "type": "background", "paint": {"background-opacity": 2}}]}"#)
                == "layers[0].paint.background-opacity: expected a number in 0.0...1.0, got 2.0")
        #expect(sceneError(#"{"layers": [{"id": "a", "type": "sparkle"}]}"#)?.hasPrefix("layers[0].type: expected one of") == true)
        #expect(sceneError(##"{"layers": [{"id": "a", "type": "background", "paint": {"fill-color": "#fff"}}]}"##)?
                .hasPrefix("layers[0].paint.fill-color: unknown property") == true)
        #expect(sceneError(#"{"layers": {"id": "a"}}"#) == "layers: expected an array, got an object")
        #expect(sceneError(#"{"layers": [{"type": "background"}]}"#) == "layers[0].id: required")
        #expect(sceneError(#"{"camera": {"type": "mercator", "center": [0, 95], "zoom": 1}}"#)?
                .hasPrefix("camera.center[1]: expected a number in") == true)
        #expect(sceneError("{not json") != nil)
    }

    @Test func duplicateIdsAcrossGroups() {
        let text = """
        {"groups": {"g": {"layers": [{"id": "a", "type": "background"}]}},
         "layers": [{"id": "a", "type": "background"}]}
        """
        #expect(sceneError(text) == "layers[0].id: duplicate layer id \"a\"")
    }

    @Test func geometryErrorsNameThePosition() {
        let text = """
        {"sources": {"g": {"type": "geometry", "data": {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1]]}}]}}}}
        """
        #expect(sceneError(text) == "sources.g.data.features[0].geometry.coordinates[1]: expected a position [x, y]")
        let lonlat = #"{"sources": {"g": {"type": "geometry", "coordinates": "lonlat", "data": {"type": "Point", "coordinates": [0, 0]}}}}"#
        #expect(sceneError(lonlat) == "sources.g.coordinates: lonlat coordinates need a mercator camera")
        let vertices = #"{"sources": {"v": {"type": "vertices", "stride": 3, "data": [1, 2, 3, 4]}}}"#
        #expect(sceneError(vertices) == "sources.v.data: 4 floats are not a whole number of 3-float vertices")
    }

    @Test func customAndEffectLayersNeedAKnownLibrary() {
        let text = """
        {"sources": {"v": {"type": "vertices", "stride": 4, "data": []}},
         "layers": [{"id": "c", "type": "custom", "library": "nope", "vertex": "v", "fragment": "f", "vertices": "v"}]}
        """
        #expect(sceneError(text) == "layers[0].library: unknown library \"nope\"")
    }

    @Test func drawingOrderIsSlotsThenUnslotted() throws {
        let document = try scene("""
        {"layers": [
          {"id": "free1", "type": "background"},
          {"id": "top1", "type": "background", "slot": "top"},
          {"id": "bottom1", "type": "background", "slot": "bottom"},
          {"id": "middle1", "type": "background", "slot": "middle"},
          {"id": "free2", "type": "background"},
          {"id": "hidden", "type": "background", "slot": "bottom", "visible": false},
          {"id": "bottom2", "type": "background", "slot": "bottom"}
        ]}
        """)
        let order = SceneDocument.drawingOrder(document.layers).flatMap { $0.map(\.id) }
        #expect(order == ["bottom1", "bottom2", "middle1", "top1", "free1", "free2"])
    }
}
