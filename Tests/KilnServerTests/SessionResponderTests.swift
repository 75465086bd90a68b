import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnStorage
import KilnVM
import Testing
@testable import KilnServer

/// The live protocol without sockets: a session opened on a `RecordingSink`, messages in
/// through `receive`, replies read off the sink. (ServerProtocolTests drives the same
/// logic over real WebSocket connections.)
@Suite(.serialized) struct SessionResponderTests {
    /// A service with the gradient renderer and no socket; frames are scheduled.
    static func service(store: ShareStore? = nil, _ configure: (inout ServerSettings) -> Void = { _ in }) -> (KilnService, GradientRenderer) {
        let (service, renderer) = makeService(store: store, configure)
        service.startScheduling()
        return (service, renderer)
    }

    /// A `compile` request; with `client`, the page's id under which history keeps the version.
    static func compileMessage(id: Int, source: String, client: String? = nil) -> String {
        var object: [String: Any] = ["type": "compile", "id": id, "name": "wave.metal", "source": source]
        if let client { object["client"] = client }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test func seedSourceIsAnsweredWithTheLibraryAlone() throws {
        let (service, _) = Self.service()
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        service.receive(text: waveSource, session: session)
        #expect(sink.wait { $0.contains { if case .library = $0 { true } else { false } } })
        let library = try LibraryReader.decode(try #require(sink.libraries.first))
        #expect(library.functions.map(\.name) == ["wave"])
        #expect(sink.messages.isEmpty)
    }

    /// Frames carry their compiled shader's prepared-function cache, so a renderer prepares
    /// the library's code once rather than once a frame.
    @Test func framesCarryTheLibrarysPreparedFunctions() throws {
        let (service, renderer) = Self.service()
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        service.receive(text: Self.compileMessage(id: 1, source: waveSource), session: session)
        #expect(sink.wait { $0.contains { if case .library = $0 { true } else { false } } })
        let library = try LibraryReader.decode(try #require(sink.libraries.first))
        service.receive(text: #"{"type":"preview.start","id":2,"size":[8,4],"fps":60}"#, session: session)
        #expect(sink.wait { _ in !sink.frames.isEmpty })
        let carried = try #require(renderer.lock.withLock { renderer.lastPreparedFunctions })
        #expect(carried.library == library)
    }

    @Test func compilePreviewArgumentsAndClock() throws {
        let (service, _) = Self.service()
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        service.receive(text: Self.compileMessage(id: 1, source: waveSource), session: session)
        let compiled = try #require(sink.message("compiled"))
        #expect(compiled["id"] as? Int == 1 && compiled["ok"] as? Bool == true && compiled["cached"] as? Bool == false)
        #expect(sink.wait { $0.contains { if case .library = $0 { true } else { false } } })

        service.receive(text: #"{"type":"preview.start","id":2,"size":[8,4],"fps":60,"args":{"level":0.5}}"#, session: session)
        let started = try #require(sink.message("preview.started"))
        #expect(started["function"] as? String == "wave" && started["id"] as? Int == 2)
        #expect(sink.wait { replies in replies.contains { if case .frame = $0 { true } else { false } } })
        let (header, payload) = try #require(sink.frames.first)
        #expect(header.width == 8 && header.height == 4 && header.format == .rgba8)
        #expect(payload.count == 8 * 4 * 4 && payload[0] == 127)

        service.receive(text: #"{"type":"clock","id":3,"action":"seek","time":20}"#, session: session)
        #expect(sink.message("clock")?["time"] as? Double == 20)
        service.receive(text: #"{"type":"preview.update","args":{"level":1}}"#, session: session)
        #expect(sink.wait { _ in sink.frames.contains { $0.1.first == 255 && $0.0.time >= 20 } })
        service.receive(text: #"{"type":"preview.stop","id":4}"#, session: session)
        #expect(sink.message("preview.stopped")?["id"] as? Int == 4)
    }

    /// A paused 8×4 preview whose next frame (asked for by a `preview.update`) is held in
    /// the renderer double and fails with `failure` once `gate` is signalled; `before` is
    /// the render count before that frame.
    static func holdAFailingFrame(_ service: KilnService, _ renderer: GradientRenderer, failure: String)
        -> (session: Int, sink: RecordingSink, gate: DispatchSemaphore, before: Int) {
        let sink = RecordingSink()
        let session = service.openSession(sink)
        service.receive(text: compileMessage(id: 1, source: waveSource), session: session)
        service.receive(text: #"{"type":"preview.start","id":2,"size":[8,4],"fps":60}"#, session: session)
        #expect(sink.wait { _ in !sink.frames.isEmpty })
        service.receive(text: #"{"type":"clock","action":"pause"}"#, session: session)
        #expect(sink.message("clock") != nil)
        let gate = DispatchSemaphore(value: 0)
        let before = renderer.lock.withLock {
            renderer.gate = gate
            renderer.failWith = failure
            return renderer.renders
        }
        service.receive(text: #"{"type":"preview.update","args":{"level":1}}"#, session: session)
        waitForRenders(renderer, moreThan: before)
        return (session, sink, gate, before)
    }

    /// Waits (up to 5 s) until the renderer double has started more than `count` renders.
    static func waitForRenders(_ renderer: GradientRenderer, moreThan count: Int) {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, renderer.lock.withLock({ renderer.renders <= count }) { usleep(1000) }
    }

    /// A frame that fails after the client changed its preview (the function a new library
    /// lacks, asked for before the client's `preview.update` named the new one) reports
    /// nothing and stops nothing: the next frame, with the new settings, is sent. (Once a
    /// real race: a paused page kept the previous shader's picture.)
    @Test func aFailureOfReplacedSettingsNeitherStopsNorReports() throws {
        let (service, renderer) = Self.service()
        defer { service.stop() }
        let (session, sink, gate, _) = Self.holdAFailingFrame(service, renderer, failure: "no function 'old'")
        // That frame is rendering (and will fail); the client's next settings arrive now.
        service.receive(text: #"{"type":"preview.update","args":{"level":0.5}}"#, session: session)
        renderer.lock.lock(); renderer.gate = nil; renderer.failWith = nil; renderer.lock.unlock()
        gate.signal()
        #expect(sink.wait { _ in sink.frames.contains { $0.1.first == 127 } })
        #expect(sink.messages.allSatisfy { $0.object["type"] as? String != "error" }, "\(sink.messages.map(\.object))")
    }

    /// A replaced frame that failed slowly (over its work budget) still marks the session
    /// heavy: a client re-sending `preview.start` while every frame runs into its budget
    /// must not get its frames into the normal queue, where they took both workers from
    /// everyone else (`tools/server_load.py attack`: a bystander fell to 2 fps).
    @Test func aSlowFailureOfReplacedSettingsStillMarksTheSessionHeavy() throws {
        let (service, renderer) = Self.service { $0.heavyFrameSeconds = 0.05 }
        defer { service.stop() }
        let (session, sink, gate, before) = Self.holdAFailingFrame(service, renderer, failure: "over the work budget")
        service.receive(text: #"{"type":"preview.start","id":3,"size":[8,4],"fps":60}"#, session: session)
        usleep(150_000)                                   // the failing frame has run for 0.15 s
        let next = DispatchSemaphore(value: 0)            // and holds the next one in the renderer
        renderer.lock.lock(); renderer.gate = next; renderer.failWith = nil; renderer.lock.unlock()
        gate.signal()
        Self.waitForRenders(renderer, moreThan: before + 1)
        let live = try #require(service.sessionsLock.withLock { service.sessions[session] })
        #expect(live.lock.withLock { live.lastFrameSeconds } >= 0.15)
        next.signal()
        #expect(sink.messages.allSatisfy { $0.object["type"] as? String != "error" })
    }

    /// Every refusal has its code, names the request, and leaves the session working.
    @Test func refusalsAreScopedErrors() throws {
        let (service, _) = Self.service()
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        let cases: [(String, ErrorCode)] = [
            ("{oops", .badJSON), (#"{"id":4}"#, .badRequest), (#"{"type":"nope","id":5}"#, .unknownType),
            (#"{"type":"preview.start","size":[9000,9000]}"#, .tooLarge), (#"{"type":"preview.update","fps":3}"#, .noPreview),
            (#"{"type":"compile","id":6}"#, .badRequest), (#"{"type":"clock","action":"rewind"}"#, .badRequest),
            (#"{"type":"preview.start","fps":-1}"#, .badRequest), (#"{"type":"content.upload","slot":"content3"}"#, .badRequest),
            (#"{"type":"layer.add","layer":{"id":"x"},"slot":"side"}"#, .badScene),
            // Wrong types are refused, naming the field, never silently ignored.
            (#"{"type":"preview.start","function":5}"#, .badRequest), (#"{"type":"preview.start","format":true}"#, .badRequest),
            (#"{"type":"preview.start","content":["rainbow"]}"#, .badRequest),
            (#"{"type":"preview.start","size":[18446744073709551617,1]}"#, .badRequest),
            (#"{"type":"preview.start","size":[1.5,2]}"#, .badRequest), (#"{"type":"content.upload","slot":1}"#, .badRequest),
            (#"{"type":"content.upload","png":7}"#, .badRequest), (#"{"type":"compile","source":"x","name":3}"#, .badRequest),
            (#"{"type":"compile","source":42}"#, .badRequest),
            (#"{"type":"debug","pixel":[true,1]}"#, .badRequest), (#"{"type":"debug","pixel":[1]}"#, .badRequest),
            (#"{"type":"debug","pixel":[-1,2]}"#, .badRequest), (#"{"type":"debug","pixel":[1,1],"time":"now"}"#, .badRequest),
            (#"{"type":"debug","pixel":[1,1]}"#, .noPreview),
            (#"{"type":"share"}"#, .badRequest), (#"{"type":"share","state":{"source":"x"}}"#, .unavailable), (#"{"type":"scene.set","scene":{},"format":5}"#, .badRequest),
        ]
        for (index, (message, code)) in cases.enumerated() {
            service.receive(text: message, session: session)
            let error = try #require(sink.message("error", index: index), "\(message)")
            #expect(error["code"] as? String == code.rawValue, "\(message)")
        }
        service.receive(binary: [1, 2, 3], session: session)
        #expect(sink.message("error", index: cases.count)?["code"] as? String == ErrorCode.badRequest.rawValue)
        service.receive(text: #"{"type":"ping","id":"alive"}"#, session: session)
        #expect(sink.message("pong")?["id"] as? String == "alive")
    }

    /// A client that sends on every keystroke: 200 edits back to back. Over the compile
    /// budget, waiting edits are coalesced: each is answered exactly once (`compiled` or
    /// `superseded`), and the last one is compiled within 1/rate seconds of arriving.
    @Test func aBurstOfEditsEndsWithTheLastOneCompiled() throws {
        let rate = 20.0
        let (service, _) = Self.service { $0.compilesPerSecond = rate }
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        let count = 200
        func source(_ index: Int) -> String {
            waveSource.replacingOccurrences(of: "return position;", with: "return position + float2(\(index), 0);")
        }
        for index in 0..<count { service.receive(text: Self.compileMessage(id: index, source: source(index)), session: session) }
        let lastSent = monotonicSeconds()
        #expect(sink.wait(timeout: 10) { _ in
            sink.messages.contains { $0.object["type"] as? String == "compiled" && $0.object["id"] as? Int == count - 1 }
        })
        let messages = sink.messages
        let last = try #require(messages.first { $0.object["type"] as? String == "compiled" && $0.object["id"] as? Int == count - 1 })
        // Compile start is bounded by 1/rate; allow for the compile itself in a debug build
        // beside the other suites. Without coalescing it would wait for all 200 (≈ 10 s).
        let latency = last.at - lastSent
        #expect(latency < 1 / rate + 2, "last edit compiled \(latency) s after it arrived")
        // Compiles run side by side, so an earlier edit's `superseded` may come after the last
        // edit's `compiled`: wait for an answer to every edit, then a moment for any second one.
        func answers() -> [Int] {
            var answers = [Int](repeating: 0, count: count)
            for (object, _) in sink.messages {
                guard let id = object["id"] as? Int, ["compiled", "superseded"].contains(object["type"] as? String) else { continue }
                answers[id] += 1
            }
            return answers
        }
        _ = sink.wait(timeout: 10) { _ in answers().allSatisfy { $0 > 0 } }
        Thread.sleep(forTimeInterval: 0.1)
        let answered = answers()
        #expect(answered.allSatisfy { $0 == 1 }, "each edit answered once: \(answered.enumerated().filter { $0.element != 1 }.map(\.offset))")
        let superseded = sink.messages.filter { $0.object["type"] as? String == "superseded" }.count
        #expect(superseded >= count - Int(rate) - 2)
        #expect(!messages.contains { $0.object["type"] as? String == "error" })
        // The library that streams is the last edit's.
        let expected = try #require(Compiler.compile([SourceFile(name: "wave.metal", text: source(count - 1))]).library)
        #expect(sink.wait { _ in sink.libraries.last.map { (try? LibraryReader.decode($0)) == expected } ?? false })
    }

    /// A compile request carries a folder's worth of files named by relative paths; includes
    /// resolve among them as on disk, and diagnostics name the paths.
    @Test func compileRequestsCarryFoldersOfFiles() throws {
        let (service, _) = Self.service()
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        func request(_ id: Int, header: String) -> String {
            let files: [[String: String]] = [
                ["name": "Effects/ripple.metal", "text": "#include \"../Headers/Types.h\"\n#include <Uniforms.h>\n[[ stitchable ]] float2 ripple(float2 p, float time) { return p + offset(time) * kGain; }\n"],
                ["name": "Headers/Types.h", "text": header],
                ["name": "Shared/Uniforms.h", "text": "constant float kGain = 2.0;\n"],
            ]
            let object: [String: Any] = ["type": "compile", "id": id, "files": files, "searchPaths": ["Shared"]]
            return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        service.receive(text: request(1, header: "static inline float offset(float t) { return sin(t); }\n"), session: session)
        let good = try #require(sink.message("compiled"))
        #expect(good["ok"] as? Bool == true, "\(good)")
        service.receive(text: request(2, header: "static inline float offset(float t) { return sin(tt); }\n"), session: session)
        let bad = try #require(sink.message("compiled", index: 1))
        let diagnostics = try #require(bad["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.first?["file"] as? String == "Headers/Types.h")
        service.receive(text: #"{"type":"compile","id":3,"source":"x","searchPaths":"Shared"}"#, session: session)
        #expect(sink.message("error")?["code"] as? String == "bad_request")
    }

    /// A compile of an older edit that finishes after a newer one never replaces it, and is
    /// answered `superseded` (not with its library), so the last library a client gets is
    /// its newest edit's.
    @Test func olderCompilesNeverReplaceNewerLibraries() throws {
        let (service, _) = Self.service { $0.compilesPerSecond = 1000 }
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        // A slow source first, a fast one second: with two workers they finish out of order.
        let slow = waveSource + (0..<300).map { "float f\($0)(float x) { return sin(x) * \($0).0; }\n" }.joined()
        service.receive(text: Self.compileMessage(id: 1, source: slow), session: session)
        service.receive(text: Self.compileMessage(id: 2, source: waveSource), session: session)
        #expect(sink.wait { _ in
            [1, 2].allSatisfy { id in sink.messages.contains { ["compiled", "superseded"].contains($0.object["type"] as? String) && $0.object["id"] as? Int == id } }
        })
        let expected = try #require(Compiler.compile([SourceFile(name: "wave.metal", text: waveSource)]).library)
        #expect(sink.libraries.last.flatMap { try? LibraryReader.decode($0) } == expected)
        service.receive(text: #"{"type":"preview.start","id":3,"size":[2,2]}"#, session: session)
        #expect(sink.message("preview.started")?["function"] as? String == "wave")
        let state = try #require(service.session(session))
        state.lock.lock()
        let installed = state.installedCompileSequence
        let functions = state.shader?.result.library?.functions.count
        state.lock.unlock()
        #expect(installed == 2)
        #expect(functions == 1)
    }

    /// Issue 14: `scene.set` compiled every new library source at once (961/s measured).
    /// Now each new source spends a compile token, a burst is coalesced (edits before a
    /// later `scene.set` are `superseded`), every message gets one answer, and the last
    /// document is the one drawn.
    @Test func sceneLibrariesSpendTheCompileBudget() throws {
        let rate = 5.0
        let (service, _) = Self.service { $0.compilesPerSecond = rate }
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        let count = 50
        let started = monotonicSeconds()
        for index in 0..<count {
            Thread.sleep(forTimeInterval: 0.02)     // spaced out, so coalescing alone cannot absorb them
            let library = "[[ stitchable ]] half4 tint(float2 position, half4 color) { return color * \(index).0h / \(count).0h; }"
            let scene: [String: Any] = [
                "width": 8, "height": 8, "libraries": ["fx": ["source": library]],
                "layers": [["id": "bg", "type": "background", "paint": ["background-color": "#ffffff"]],
                           ["id": "fx", "type": "effect", "library": "fx", "function": "tint"]],
            ]
            let message: [String: Any] = ["type": "scene.set", "id": index, "scene": scene]
            service.receive(text: String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self), session: session)
        }
        func answered(_ id: Int) -> Bool {
            sink.messages.contains { ["scene.rendered", "superseded"].contains($0.object["type"] as? String) && $0.object["id"] as? Int == id }
        }
        #expect(sink.wait(timeout: 20) { _ in (0..<count).allSatisfy(answered) })
        let rendered = sink.messages.filter { $0.object["type"] as? String == "scene.rendered" }.compactMap { $0.object["id"] as? Int }
        #expect(rendered.last == count - 1)
        // A burst of 1/rate plus what the rate allows while the test ran; not one per message.
        let elapsed = monotonicSeconds() - started
        #expect(Double(rendered.count) <= rate + elapsed * rate + 1, "\(rendered.count) compiled in \(elapsed) s")
        #expect(rendered.count < count / 2)
        #expect(!sink.messages.contains { $0.object["type"] as? String == "error" })
    }

    /// Scene edits faster than frames: one render of the session's scene is queued or
    /// running at a time, the newest document is drawn last, and every edit gets one answer
    /// (`scene.rendered`, or `superseded` when a later edit's frame replaced its own). A
    /// render per edit used to be queued; the later ones waited on the first's lock holding
    /// workers, and the skipped ones were never answered.
    @Test func aBurstOfSceneEditsIsOneRenderAtATime() throws {
        let (service, _) = Self.service()
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        let scene: [String: Any] = [
            "width": 64, "height": 64,
            "layers": [["id": "bg", "type": "background", "paint": ["background-color": "#ffffff"]]],
        ]
        func send(_ message: [String: Any]) throws {
            service.receive(text: String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self), session: session)
        }
        try send(["type": "scene.set", "id": 0, "scene": scene, "format": "rgba8"])
        let count = 40
        for index in 1...count {
            let colour = String(format: "#%02x0000", index * 6)
            try send(["type": "layer.update", "id": index, "layer": "bg", "format": "rgba8",
                      "properties": ["paint": ["background-color": colour]]])
        }
        func answer(_ id: Int) -> String? {
            sink.messages.first { ["scene.rendered", "superseded"].contains($0.object["type"] as? String) && $0.object["id"] as? Int == id }?
                .object["type"] as? String
        }
        #expect(sink.wait(timeout: 20) { _ in (0...count).allSatisfy { answer($0) != nil } })
        #expect(answer(count) == "scene.rendered")
        let rendered = sink.messages.filter { $0.object["type"] as? String == "scene.rendered" }.compactMap { $0.object["id"] as? Int }
        #expect(rendered == rendered.sorted() && rendered.last == count)
        // The last frame is the last document's: red 240 (6 × 40), opaque.
        let (_, payload) = try #require(sink.frames.last)
        #expect(Array(payload.prefix(4)) == [240, 0, 0, 255])
        #expect(!sink.messages.contains { $0.object["type"] as? String == "error" }, "\(sink.messages.map(\.object))")
    }

    /// Issue 14: content images were unbounded (7 connections uploading 4096² content used
    /// 7.4 GB). They are accounted server-wide against `maxContentBytes`: past it a new
    /// image is refused with an error naming the setting, and a closed session gives its
    /// share back.
    @Test func contentImagesShareOneMemoryBudget() throws {
        // Room for two 128×128 contents (256 KiB each), so exactly one session's preview.
        let (service, _) = Self.service { $0.maxContentBytes = 2 * 128 * 128 * 16 }
        defer { service.stop() }
        func previewer() -> (Int, RecordingSink) {
            let sink = RecordingSink()
            let session = service.openSession(sink)
            service.receive(text: Self.compileMessage(id: 1, source: waveSource), session: session)
            _ = sink.message("compiled")
            service.receive(text: #"{"type":"preview.start","id":2,"size":[128,128],"content2":"checker"}"#, session: session)
            return (session, sink)
        }
        let (first, firstSink) = previewer()
        #expect(firstSink.wait { _ in firstSink.frames.count >= 1 })
        #expect(service.contentMemory.inUse == 2 * 128 * 128 * 16)
        let (second, secondSink) = previewer()
        let refused = try #require(secondSink.message("error"))
        #expect(refused["code"] as? String == "render_failed")
        #expect((refused["message"] as? String)?.contains("--max-content-bytes") == true, "\(refused)")
        #expect(secondSink.frames.isEmpty)
        #expect(service.contentMemory.inUse == 2 * 128 * 128 * 16)
        // The first goes away: its share comes back and the second previews.
        service.closeSession(first)
        #expect(service.contentMemory.inUse == 0)
        service.receive(text: #"{"type":"preview.update","size":[128,128]}"#, session: second)
        #expect(secondSink.wait { _ in secondSink.frames.count >= 1 })
        service.closeSession(second)
        #expect(service.contentMemory.inUse == 0)
    }

    @Test func closingASessionDropsItsPendingCompile() throws {
        let (service, _) = Self.service { $0.compilesPerSecond = 1 }
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        service.receive(text: Self.compileMessage(id: 1, source: waveSource), session: session)
        service.receive(text: Self.compileMessage(id: 2, source: waveSource + "\n"), session: session)
        #expect(sink.message("compiled") != nil)
        sink.close()
        service.closeSession(session)
        Thread.sleep(forTimeInterval: 1.3)
        #expect(service.metrics.prometheusText().contains("kiln_compiles_total 1\n"))
    }
}
