import Foundation
import KilnScene
import Testing
@testable import KilnServer

/// The server's scene messages turn into the right document edits: each message goes
/// through the protocol's decoder (`ClientRequest.decode`) and `KilnService.apply`, as it
/// does in the server (see KilnService+Scenes.swift).
@Suite struct SceneServerMessageTests {
    static let sceneObject: [String: Any] = [
        "width": 16, "height": 16,
        "layers": [["id": "bg", "type": "background", "slot": "bottom"],
                   ["id": "top", "type": "background", "slot": "top", "paint": ["background-opacity": 0.5]]],
    ]

    func apply(_ type: String, _ message: [String: Any], to document: SceneDocument?) throws -> SceneDocument {
        var object = message
        object["type"] = type
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        switch ClientRequest.decode(text: text, limits: .init(maxPreviewSide: 4096, maxFPS: 60)) {
        case .success(let request):
            guard case .scene(let edit) = request.message else { throw SceneError(path: "", "not a scene message") }
            return try KilnService.apply(edit, to: document)
        case .failure(let failure):
            // The decoder reports scene errors as `bad_scene` with the path; give the
            // SceneError back so both stages are checked alike.
            let error = failure.error
            #expect(error.code == .badScene, "\(error)")
            let path = error.path ?? ""
            throw SceneError(path: path, path.isEmpty ? error.message : String(error.message.dropFirst(path.count + 2)))
        }
    }

    func order(_ document: SceneDocument) -> [String] {
        SceneDocument.drawingOrder(document.layers).flatMap { $0.map(\.id) }
    }

    @Test func setAddUpdateRemove() throws {
        var document = try apply("scene.set", ["scene": Self.sceneObject], to: nil)
        #expect(order(document) == ["bg", "top"])
        document = try apply("layer.add", ["layer": ["id": "mid", "type": "background"], "slot": "middle"], to: document)
        #expect(order(document) == ["bg", "mid", "top"])
        document = try apply("layer.add", ["layer": ["id": "under", "type": "background"], "below": "bg"], to: document)
        #expect(order(document) == ["under", "bg", "mid", "top"])
        document = try apply("layer.add", ["layer": ["id": "over", "type": "background"], "above": "top"], to: document)
        #expect(order(document) == ["under", "bg", "mid", "top", "over"])
        document = try apply("layer.update", ["layer": "top", "properties": ["paint": ["background-color": "#ff0000"]]], to: document)
        guard case .background(let color, let opacity) = document.layers.first(where: { $0.id == "top" })?.kind else {
            Issue.record("top is not a background layer")
            return
        }
        #expect(color == SceneColor(1, 0, 0, 1) && opacity == 0.5)   // the paint was merged, not replaced
        document = try apply("layer.remove", ["layer": "mid"], to: document)
        #expect(order(document) == ["under", "bg", "top", "over"])
    }

    @Test func errorsNameWhatIsWrong() throws {
        #expect(throws: SceneError(path: "", "no scene yet: send scene.set first")) {
            try apply("layer.remove", ["layer": "x"], to: nil)
        }
        let document = try apply("scene.set", ["scene": Self.sceneObject], to: nil)
        #expect(throws: SceneError(path: "slot", "expected \"bottom\", \"middle\" or \"top\", got \"side\"")) {
            try apply("layer.add", ["layer": ["id": "x", "type": "background"], "slot": "side"], to: document)
        }
        #expect(throws: SceneError(path: "id", "no layer \"nope\"")) {
            try apply("layer.update", ["layer": "nope", "properties": [:]], to: document)
        }
        #expect(throws: SceneError(path: "layers[1].paint.background-opacity", "expected a number in 0.0...1.0, got 3.0")) {
            try apply("layer.update", ["layer": "top", "properties": ["paint": ["background-opacity": 3]]], to: document)
        }
    }

    @Test func serverRenderersOnlyReadFilesInTheShadersFolder() throws {
        let renderer = KilnService.makeSceneRenderer(shaders: ScenePaths.repository.appendingPathComponent("shaders").path)
        let document = try scene("""
        {"width": 8, "height": 8, "libraries": {"m": {"path": "../scenes/secret.metal"}},
         "sources": {"v": {"type": "vertices", "stride": 8, "data": []}},
         "layers": [{"id": "c", "type": "custom", "library": "m", "vertex": "a", "fragment": "b", "vertices": "v"}]}
        """)
        #expect(throws: SceneError(path: "libraries.m.path", "only files directly inside the server's shaders folder are allowed here, got \"../scenes/secret.metal\"")) {
            try renderer.render(document)
        }
        for escape in ["/etc/passwd", "../../etc/passwd", ".hidden.metal", "sub/map_triangle.metal"] {
            let outside = try scene("""
            {"width": 8, "height": 8, "libraries": {"m": {"path": "\(escape)"}},
             "sources": {"v": {"type": "vertices", "stride": 8, "data": []}},
             "layers": [{"id": "c", "type": "custom", "library": "m", "vertex": "a", "fragment": "b", "vertices": "v"}]}
            """)
            #expect(throws: SceneError.self, "\(escape)") { try renderer.render(outside) }
        }
        let allowed = try scene("""
        {"width": 8, "height": 8, "libraries": {"m": {"path": "../shaders/map_triangle.metal"}},
         "sources": {"v": {"type": "vertices", "stride": 8, "data": [0, 0, 0, 1, 1, 1, 1, 1, 8, 0, 0, 1, 1, 1, 1, 1, 0, 8, 0, 1, 1, 1, 1, 1]}},
         "layers": [{"id": "c", "type": "custom", "library": "m", "vertex": "mapTriangleVertex", "fragment": "mapTriangleFragment", "vertices": "v"}]}
        """)
        let image = try renderer.render(allowed)
        #expect(pixel(image, 1, 1) == [255, 255, 255, 255])
    }
}
