import Foundation
import KilnBytecode
import KilnCompiler
import KilnJSON
import KilnLanguage
import KilnStorage
import KilnVM
import Testing
@testable import KilnServer
@testable import KilnWebSockets

/// A renderer double: a gradient whose red channel encodes the `level` argument and whose
/// blue channel encodes time, so tests can see that arguments and the clock reach frames.
/// (Real rendering is tested in KilnRenderTests and end to end in Tests/e2e.)
final class GradientRenderer: PreviewRenderer, @unchecked Sendable {
    let lock = NSLock()
    var renders = 0
    /// The prepared-function cache the last frame request carried.
    var lastPreparedFunctions: PreparedFunctionCache?
    var failWith: String?
    /// When set, a render waits for it (after counting itself, and with the failure it
    /// started with): a test can change the session while a frame is rendering.
    var gate: DispatchSemaphore?

    func render(_ request: PreviewRequest) throws -> [UInt8] {
        lock.lock(); renders += 1; lastPreparedFunctions = request.preparedFunctions
        let failure = failWith, gate = gate; lock.unlock()
        gate?.wait()
        if let failure { throw CommandError(failure) }
        let level = UInt8(clamping: Int((request.arguments["level"]?.first ?? 0) * 255))
        let blue = UInt8(clamping: Int(request.time * 10) % 256)
        var bytes = [UInt8](repeating: 255, count: request.width * request.height * 4)
        for index in 0..<(request.width * request.height) {
            bytes[index * 4] = level
            bytes[index * 4 + 1] = UInt8(index % 256)
            bytes[index * 4 + 2] = blue
        }
        return bytes
    }

    func encodePNG(premultiplied bytes: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47] + bytes.prefix(16)
    }

    func decodeContent(png: [UInt8], maxSide: Int) throws -> PreviewContent {
        guard png.count > 8 else { throw CommandError("truncated PNG") }
        return PreviewContent(width: 7, height: 5, storage: png)
    }

    func builtinContent(named name: String, width: Int, height: Int) throws -> PreviewContent {
        guard ["rainbow", "checker", "gradient", "photo"].contains(name) else { throw CommandError("unknown content \(name)") }
        return PreviewContent(width: width, height: height, storage: name)
    }
}

struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}

let waveSource = """
    #include <metal_stdlib>
    using namespace metal;
    /// @arg amplitude 0...20 = 4 "wave height"
    [[ stitchable ]] float2 wave(float2 position, float time, float amplitude) {
        position.y += amplitude * sin(position.x / 10 + time);
        return position;
    }
    """

/// A service with the gradient renderer, two workers, no files and `store` for permalinks
/// and history, not yet started.
func makeService(store: ShareStore? = nil, _ configure: (inout ServerSettings) -> Void = { _ in }) -> (KilnService, GradientRenderer) {
    var settings = ServerSettings()
    settings.transport.port = 0
    settings.publicDirectory = nil
    settings.shadersDirectory = nil
    settings.workerThreads = 2
    configure(&settings)
    let renderer = GradientRenderer()
    return (KilnService(settings: settings, renderer: renderer, store: store), renderer)
}

/// Starts a service on a free port with the gradient renderer.
func startService(_ configure: (inout ServerSettings) -> Void = { _ in }) throws -> (KilnService, GradientRenderer) {
    let (service, renderer) = makeService(configure)
    try service.start()
    return (service, renderer)
}

func connect(_ service: KilnService, path: String = "/") throws -> WebSocketClient {
    let client = try WebSocketClient(url: "ws://127.0.0.1:\(service.port)\(path)")
    #expect(client.waitUntilOpen(timeout: 5))
    return client
}

/// The next text message as JSON (skipping binary messages unless `keepBinary`).
func nextJSON(_ client: WebSocketClient, type: String? = nil, timeout: TimeInterval = 5) -> [String: Any]? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        guard case .message(.text(let text))? = client.receive(timeout: deadline.timeIntervalSinceNow) else { continue }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { continue }
        if type == nil || object["type"] as? String == type { return object }
    }
    return nil
}

func nextBinary(_ client: WebSocketClient, prefix: [UInt8], timeout: TimeInterval = 5) -> [UInt8]? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if case .message(.binary(let bytes))? = client.receive(timeout: deadline.timeIntervalSinceNow), bytes.starts(with: prefix) {
            return bytes
        }
    }
    return nil
}

@Suite(.serialized) struct ServerProtocolTests {
    @Test func seedClientReceivesTheLibraryAsOneBinaryMessage() throws {
        let (service, _) = try startService()
        defer { service.stop() }
        let client = try connect(service)
        client.send(.text(waveSource))
        let bytes = try #require(nextBinary(client, prefix: Array("KILNLIB".utf8)))
        let library = try LibraryReader.decode(bytes)
        #expect(library.functions.map(\.name) == ["wave"])
        client.close()
    }

    @Test func seedClientReceivesDiagnosticsForBrokenSource() throws {
        let (service, _) = try startService()
        defer { service.stop() }
        let client = try connect(service, path: "/live")
        client.send(.text("[[ stitchable ]] float2 f(float2 p) { return q; }"))
        let reply = try #require(nextJSON(client, type: "compiled"))
        #expect(reply["ok"] as? Bool == false)
        let diagnostics = try #require(reply["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.contains { ($0["message"] as? String ?? "").contains("undeclared identifier") })
        client.close()
    }

    @Test func compilePreviewArgumentsAndClock() throws {
        let (service, _) = try startService()
        defer { service.stop() }
        let client = try connect(service)
        client.send(.text(#"{"type":"compile","id":1,"source":\#(JSONText.serialize([waveSource]).dropFirst().dropLast())}"#))
        let compiled = try #require(nextJSON(client, type: "compiled"))
        #expect(compiled["id"] as? Int == 1)
        #expect(compiled["ok"] as? Bool == true)
        let functions = try #require(compiled["functions"] as? [[String: Any]])
        let arguments = try #require(functions.first?["arguments"] as? [[String: Any]])
        #expect(arguments.map { $0["name"] as? String } == ["position", "time", "amplitude"])
        #expect(arguments.map { $0["binding"] as? String } == ["position", "uniform", "uniform"])
        #expect(arguments.last?["max"] as? Double == 20)
        #expect(nextBinary(client, prefix: Array("KILNLIB".utf8)) != nil)

        client.send(.text(#"{"type":"preview.start","id":2,"size":[8,4],"fps":60,"args":{"level":0.5}}"#))
        let started = try #require(nextJSON(client, type: "preview.started"))
        #expect(started["function"] as? String == "wave")
        let frameBytes = try #require(nextBinary(client, prefix: FrameHeader.magic))
        let header = try #require(FrameHeader(bytes: frameBytes))
        #expect(header.width == 8 && header.height == 4 && header.format == .rgba8)
        #expect(frameBytes.count == FrameHeader.byteCount + 8 * 4 * 4)
        #expect(frameBytes[FrameHeader.byteCount] == 127)

        client.send(.text(#"{"type":"clock","id":3,"action":"seek","time":20}"#))
        let clock = try #require(nextJSON(client, type: "clock"))
        #expect(clock["time"] as? Double == 20)
        client.send(.text(#"{"type":"preview.update","args":{"level":1}}"#))
        var sawUpdate = false
        for _ in 0..<30 {
            guard let frame = nextBinary(client, prefix: FrameHeader.magic) else { break }
            if frame[FrameHeader.byteCount] == 255, (FrameHeader(bytes: frame)?.time ?? 0) >= 20 { sawUpdate = true; break }
        }
        #expect(sawUpdate)
        client.close()
    }

    @Test func badRequestsAreScopedErrorsAndTheConnectionSurvives() throws {
        let (service, _) = try startService()
        defer { service.stop() }
        let client = try connect(service)
        for (message, code) in [("{oops", "bad_json"), (#"{"id":4}"#, "bad_request"), (#"{"type":"nope","id":5}"#, "unknown_type"),
                                (#"{"type":"preview.start","size":[9000,9000]}"#, "too_large"),
                                (#"{"type":"preview.update","fps":3}"#, "no_preview")] {
            client.send(.text(message))
            let error = try #require(nextJSON(client, type: "error"))
            #expect(error["code"] as? String == code, "\(message)")
        }
        client.send(.text(#"{"type":"ping","id":"alive"}"#))
        #expect(nextJSON(client, type: "pong")?["id"] as? String == "alive")
        client.close()
    }

    @Test func failedEditKeepsStreamingTheLastGoodLibrary() throws {
        let (service, renderer) = try startService()
        defer { service.stop() }
        let client = try connect(service)
        client.send(.text(waveSource))
        _ = nextBinary(client, prefix: Array("KILNLIB".utf8))
        client.send(.text(#"{"type":"preview.start","size":[4,4],"fps":60}"#))
        #expect(nextBinary(client, prefix: FrameHeader.magic) != nil)
        client.send(.text(#"{"type":"compile","id":8,"source":"float2 broken("}"#))
        let failed = try #require(nextJSON(client, type: "compiled"))
        #expect(failed["ok"] as? Bool == false)
        let before = renderer.renders
        // Frames rendered before `before` may still be on their way; a few more frames
        // must include one rendered after the failed edit.
        var frames = 0
        while frames < 10, renderer.renders <= before, nextBinary(client, prefix: FrameHeader.magic) != nil { frames += 1 }
        #expect(nextBinary(client, prefix: FrameHeader.magic) != nil)
        #expect(renderer.renders > before)
        client.close()
    }

    @Test func renderFailureIsReportedOnce() throws {
        let (service, renderer) = try startService()
        defer { service.stop() }
        renderer.failWith = "instruction budget exceeded at wave.metal:5"
        let client = try connect(service)
        client.send(.text(waveSource))
        _ = nextBinary(client, prefix: Array("KILNLIB".utf8))
        client.send(.text(#"{"type":"preview.start","id":"p","size":[4,4]}"#))
        let error = try #require(nextJSON(client, type: "error"))
        #expect(error["code"] as? String == "render_failed")
        #expect(error["id"] as? String == "p")
        client.close()
    }

    /// A client that sends 100 compiles back to back and reads as fast as it can is never
    /// taken for a slow reader: every request is answered and the connection stays open.
    @Test func aBurstOfCompilesFromAReadingClientKeepsTheConnection() throws {
        let (service, _) = try startService()
        defer { service.stop() }
        let client = try connect(service)
        let count = 100
        for index in 0..<count {
            let source = waveSource.replacingOccurrences(of: "return position;", with: "return position + float2(\(index), 0);")
            let object: [String: Any] = ["type": "compile", "id": index, "source": source]
            client.send(.text(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)))
        }
        var answered = Set<Int>()
        var lastCompiled = -1
        let deadline = Date().addingTimeInterval(20)
        while answered.count < count, Date() < deadline {
            guard let event = client.receive(timeout: deadline.timeIntervalSinceNow) else { continue }
            if case .closed = event { break }
            guard case .message(.text(let text)) = event,
                  let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                  let id = object["id"] as? Int else { continue }
            #expect(object["type"] as? String != "error", "\(text)")
            answered.insert(id)
            if object["type"] as? String == "compiled" { lastCompiled = max(lastCompiled, id) }
        }
        #expect(answered.count == count)
        #expect(lastCompiled == count - 1)
        client.send(.text(#"{"type":"ping","id":"still here"}"#))
        #expect(nextJSON(client, type: "pong")?["id"] as? String == "still here")
        client.close()
    }

    @Test func tokenIsRequiredWhenConfigured() throws {
        let (service, _) = try startService { $0.token = "t0k" }
        defer { service.stop() }
        let refused = try WebSocketClient(url: "ws://127.0.0.1:\(service.port)/")
        #expect(!refused.waitUntilOpen(timeout: 3))
        refused.close()
        let accepted = try connect(service, path: "/?token=t0k")
        accepted.close()
    }

    @Test func oversizedMessageClosesOnlyThatConnection() throws {
        let (service, _) = try startService { $0.transport.maxMessageBytes = 1000 }
        defer { service.stop() }
        let bystander = try connect(service)
        let client = try connect(service)
        client.send(.text(String(repeating: "x", count: 5000)))
        var closed = false
        for _ in 0..<10 { if case .closed? = client.receive(timeout: 1) { closed = true; break } }
        #expect(closed)
        bystander.send(.text(#"{"type":"ping","id":1}"#))
        #expect(nextJSON(bystander, type: "pong") != nil)
        bystander.close()
        client.close()
    }

    @Test func sessionsAndConnectionObjectsAreReleasedOnStop() throws {
        let (service, _) = try startService()
        var clients: [WebSocketClient] = []
        for _ in 0..<10 { clients.append(try connect(service)) }
        // The client sees the handshake finish a moment before the server's callback runs.
        let deadline = Date().addingTimeInterval(5)
        while service.sessionCount < 10 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(service.sessionCount == 10)
        // The counter is process-wide and other suites run beside this one: this test's ten
        // must be gone, whatever the others hold at the moment.
        let during = WebSocketConnection.liveObjects
        service.stop()
        for client in clients { client.close() }
        #expect(service.sessionCount == 0)
        let released = Date().addingTimeInterval(10)
        while WebSocketConnection.liveObjects > during - 10 && Date() < released { Thread.sleep(forTimeInterval: 0.01) }
        #expect(WebSocketConnection.liveObjects <= during - 10)
    }

    @Test func compileCacheCompilesIdenticalSourcesOnce() throws {
        let cache = CompileCache(capacity: 2)
        let file = [SourceFile(name: "a.metal", text: waveSource)]
        #expect(cache.compile(file).hit == false)
        #expect(cache.compile(file).hit == true)
        _ = cache.compile([SourceFile(name: "b.metal", text: waveSource)])
        _ = cache.compile([SourceFile(name: "c.metal", text: waveSource)])
        #expect(cache.count == 2)
        #expect(cache.compile(file).hit == false)  // evicted, least recently used
    }

    @Test func frameHeaderRoundTrips() {
        let header = FrameHeader(format: .png, sequence: 7, time: 1.25, width: 640, height: 480, renderMicroseconds: 1234)
        #expect(header.bytes.count == FrameHeader.byteCount)
        #expect(FrameHeader(bytes: header.bytes) == header)
        #expect(FrameHeader(bytes: Array("KILNLIB\0".utf8) + header.bytes) == nil)
    }

    @Test func metricsAreExportedInPrometheusFormat() {
        let metrics = Metrics()
        metrics.increment("kiln_frames_sent_total", by: 3)
        metrics.observeRender(seconds: 0.003)
        let text = metrics.prometheusText()
        #expect(text.contains("kiln_frames_sent_total 3"))
        #expect(text.contains("# TYPE kiln_render_seconds histogram"))
        #expect(text.contains("kiln_render_seconds_bucket{le=\"0.005\"} 1"))
        #expect(text.contains("kiln_render_seconds_count 1"))
    }
}
