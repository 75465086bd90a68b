import Foundation
import KilnRender
import KilnScene
import Testing
@testable import KilnServer
@testable import KilnWebSockets
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Scene messages over a real WebSocket and `POST /render` with a scene.
///
@Suite(.serialized)
struct SceneServerEndToEndTests {
    /// Scenes do not use the preview renderer; this one refuses everything.
    struct NoPreviews: PreviewRenderer {
        struct Refused: Error {}
        func render(_ request: PreviewRequest) throws -> [UInt8] { throw Refused() }
        func encodePNG(premultiplied bytes: [UInt8], width: Int, height: Int) throws -> [UInt8] { throw Refused() }
        func decodeContent(png: [UInt8], maxSide: Int) throws -> PreviewContent { throw Refused() }
        func builtinContent(named name: String, width: Int, height: Int) throws -> PreviewContent { throw Refused() }
    }

    func start() throws -> KilnService {
        var settings = ServerSettings()
        settings.transport.port = 0
        settings.publicDirectory = nil
        settings.shadersDirectory = ScenePaths.repository.appendingPathComponent("shaders").path
        settings.workerThreads = 1
        let service = KilnService(settings: settings, renderer: NoPreviews())
        try service.start()
        return service
    }

    func next(_ client: WebSocketClient, timeout: TimeInterval = 10) -> WebSocketMessage? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if case .message(let message)? = client.receive(timeout: deadline.timeIntervalSinceNow) { return message }
        }
        return nil
    }

    func nextJSON(_ client: WebSocketClient) -> [String: Any]? {
        while let message = next(client) {
            if case .text(let text) = message {
                return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
            }
        }
        return nil
    }

    static let scene = """
    {"width": 32, "height": 32,
     "libraries": {"fx": {"source": "#include <metal_stdlib>\\nusing namespace metal;\\n[[ stitchable ]] half4 darken(float2 position, half4 color, float amount) { return half4(color.rgb * half(1 - amount), color.a); }"}},
     "sources": {"p": {"type": "geometry", "data": {"type": "Polygon", "coordinates": [[[4, 4], [28, 4], [16, 28]]]}}},
     "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
                {"id": "f", "type": "fill", "source": "p", "paint": {"fill-color": "#ff0000"}},
                {"id": "fx", "type": "effect", "library": "fx", "function": "darken", "arguments": {"amount": 0.5}}]}
    """

    @Test func setUpdateAndErrorsOverTheWebSocket() throws {
        let service = try start()
        defer { service.stop() }
        let client = try WebSocketClient(url: "ws://127.0.0.1:\(service.port)/")
        #expect(client.waitUntilOpen(timeout: 5))
        defer { client.close() }

        client.send(.text(#"{"type": "scene.set", "id": 1, "format": "rgba8", "scene": \#(Self.scene)}"#))
        guard case .binary(let frame)? = next(client) else { Issue.record("no frame"); return }
        let header = try #require(FrameHeader(bytes: frame))
        #expect(header.width == 32 && header.height == 32 && frame.count == 32 + 32 * 32 * 4)
        let rendered = try #require(nextJSON(client))
        #expect(rendered["type"] as? String == "scene.rendered" && rendered["id"] as? Int == 1)
        #expect(rendered["drawn"] as? [String] == ["bg", "f", "fx"])

        client.send(.text(#"{"type": "layer.update", "id": 2, "layer": "fx", "properties": {"arguments": {"amount": 0.25}}}"#))
        guard case .binary? = next(client) else { Issue.record("no frame"); return }
        let updated = try #require(nextJSON(client))
        #expect(updated["drawn"] as? [String] == ["fx"])

        client.send(.text(#"{"type": "layer.update", "id": 3, "layer": "f", "properties": {"paint": {"fill-color": 5}}}"#))
        let error = try #require(nextJSON(client))
        #expect(error["type"] as? String == "error" && error["code"] as? String == "bad_scene")
        #expect(error["path"] as? String == "layers[1].paint.fill-color")
    }

    @Test func postRenderWithAScene() throws {
        let service = try start()
        defer { service.stop() }
        func post(_ body: String) throws -> (Int, Data) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(service.port)/render")!)
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var result: (Int, Data) = (0, Data())
            URLSession.shared.dataTask(with: request) { data, response, _ in
                result = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data())
                done.signal()
            }.resume()
            _ = done.wait(timeout: .now() + 20)
            return result
        }
        let (status, data) = try post(Self.scene)
        #expect(status == 200)
        let image = try PNG.decode(Array(data))
        #expect(image.width == 32 && image.height == 32)
        let (badStatus, badData) = try post(#"{"layers": [{"id": "r", "type": "raster", "source": "none"}]}"#)
        #expect(badStatus == 422)
        #expect(String(decoding: badData, as: UTF8.self).contains("layers[0].source"))
    }
}
