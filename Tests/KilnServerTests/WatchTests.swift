import Foundation
import KilnWebSockets
import Testing
@testable import KilnServer

/// Watching a live session (docs/protocol.md "Watching a live session") without sockets:
/// an editor and its spectators on recording sinks.
@Suite(.serialized) struct WatchTests {
    /// A sink whose socket never drains: every frame offered to it counts as queued.
    final class StalledSink: ReplySink, @unchecked Sendable {
        let inner = RecordingSink()
        func send(_ reply: Reply) -> Bool { inner.send(reply) }
        var isOpen: Bool { inner.isOpen }
        var queuedFrames: Int { 1_000 }
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// An editor that compiled the wave shader, previews it and asked for a watch link.
    static func watchedEditor(_ service: KilnService) throws -> (sink: RecordingSink, session: Int, token: String) {
        let sink = RecordingSink()
        let session = service.openSession(sink)
        service.receive(text: SessionResponderTests.compileMessage(id: 1, source: waveSource), session: session)
        #expect(sink.message("compiled")?["ok"] as? Bool == true)
        service.receive(text: #"{"type":"preview.start","size":[8,4],"fps":60,"args":{"level":0.5}}"#, session: session)
        #expect(sink.message("preview.started") != nil)
        service.receive(text: #"{"type":"watch","id":"w"}"#, session: session)
        let watching = try #require(sink.message("watching"))
        let token = try #require(watching["token"] as? String)
        #expect(watching["id"] as? String == "w" && watching["url"] as? String == "/w/\(token)" && watching["spectators"] as? Int == 0)
        #expect(token.count == 22 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        return (sink, session, token)
    }

    @Test func aSpectatorSeesTheEditorsTextArgumentsCursorAndFrames() throws {
        let (service, _) = SessionResponderTests.service()
        defer { service.stop() }
        let editor = try Self.watchedEditor(service)
        service.receive(text: #"{"type":"cursor","line":3}"#, session: editor.session)

        let viewer = RecordingSink()
        let viewerSession = service.openSession(viewer)
        service.receive(text: Self.json(["type": "spectate", "id": 7, "token": editor.token]), session: viewerSession)
        let state = try #require(viewer.message("spectating"))
        #expect(state["id"] as? Int == 7 && state["function"] as? String == "wave" && state["line"] as? Int == 3)
        #expect((state["files"] as? [[String: Any]])?.first?["text"] as? String == waveSource)
        #expect(state["size"] as? [Int] == [8, 4])
        #expect((state["arguments"] as? [String: [Double]])?["level"] == [0.5])
        #expect(editor.sink.message("spectators")?["count"] as? Int == 1)
        // The editor's frames reach the spectator too.
        #expect(viewer.wait { _ in viewer.frames.count >= 2 })

        // Edits, argument changes and the cursor follow, live.
        let edited = waveSource.replacingOccurrences(of: "amplitude", with: "height")
        service.receive(text: SessionResponderTests.compileMessage(id: 2, source: edited), session: editor.session)
        let files = try #require(viewer.message("watch.state"))
        #expect((files["files"] as? [[String: Any]])?.first?["text"] as? String == edited)
        service.receive(text: #"{"type":"preview.update","args":{"level":1}}"#, session: editor.session)
        // Told before `receive` returns, in order (it once hopped to a global queue, which a
        // loaded machine left waiting past the test's patience).
        #expect(viewer.messages.contains { ($0.object["arguments"] as? [String: [Double]])?["level"] == [1] })
        service.receive(text: #"{"type":"cursor","line":9}"#, session: editor.session)
        #expect(viewer.wait { _ in viewer.messages.contains { $0.object["type"] as? String == "watch.state" && $0.object["line"] as? Int == 9 } })

        // A spectator cannot edit, and the editor's session is untouched by its attempts.
        service.receive(text: SessionResponderTests.compileMessage(id: 3, source: waveSource), session: viewerSession)
        #expect(viewer.message("error")?["code"] as? String == "read_only")
        service.receive(text: #"{"type":"cursor","line":1}"#, session: viewerSession)
        #expect(viewer.message("error", index: 1)?["code"] as? String == "read_only")
        service.receive(text: #"{"type":"ping","id":4}"#, session: viewerSession)
        #expect(viewer.message("pong")?["id"] as? Int == 4)

        // Leaving updates the editor's count; the editor leaving ends the watch.
        service.closeSession(viewerSession)
        #expect(editor.sink.message("spectators", index: 1)?["count"] as? Int == 0)
        let second = RecordingSink()
        let secondSession = service.openSession(second)
        service.receive(text: Self.json(["type": "spectate", "token": editor.token]), session: secondSession)
        #expect(second.message("spectating") != nil)
        service.closeSession(editor.session)
        #expect(second.message("watch.ended") != nil)
        let late = RecordingSink()
        let lateSession = service.openSession(late)
        service.receive(text: Self.json(["type": "spectate", "id": 1, "token": editor.token]), session: lateSession)
        #expect(late.message("error")?["code"] as? String == "not_found")
        #expect(service.watchPageResponse(token: editor.token).status == 404)
    }

    @Test func aStalledSpectatorNeverHoldsBackTheEditor() throws {
        let (service, _) = SessionResponderTests.service()
        defer { service.stop() }
        let editor = try Self.watchedEditor(service)
        let stalled = StalledSink()
        let stalledSession = service.openSession(stalled)
        service.receive(text: Self.json(["type": "spectate", "token": editor.token]), session: stalledSession)
        #expect(stalled.inner.message("spectating") != nil)
        let before = editor.sink.frames.count
        // The editor keeps getting frames while every one offered to the stalled spectator
        // is skipped (a frame already rendering when it joined may not count: wait for 10).
        #expect(editor.sink.wait { _ in editor.sink.frames.count >= before + 10 })
        #expect(editor.sink.wait { _ in service.metrics.counter("kiln_spectator_frames_skipped_total") >= 10 })
        #expect(stalled.inner.frames.isEmpty)
    }

    @Test func spectatorsAreLimitedAndLinksAreChecked() throws {
        let (service, _) = SessionResponderTests.service { $0.maxSpectators = 1 }
        defer { service.stop() }
        let editor = try Self.watchedEditor(service)
        let first = RecordingSink(), second = RecordingSink()
        let a = service.openSession(first), b = service.openSession(second)
        service.receive(text: Self.json(["type": "spectate", "token": editor.token]), session: a)
        #expect(first.message("spectating") != nil)
        service.receive(text: Self.json(["type": "spectate", "token": editor.token]), session: b)
        let refusal = try #require(second.message("error"))
        #expect(refusal["code"] as? String == "unavailable" && (refusal["message"] as? String)?.contains("--max-spectators") == true)
        // Asking again is idempotent: the same token.
        service.receive(text: #"{"type":"watch"}"#, session: editor.session)
        #expect(editor.sink.message("watching", index: 1)?["token"] as? String == editor.token)
        // Wrong shapes are bad requests naming the field; a spectator cannot hand out links.
        service.receive(text: #"{"type":"spectate"}"#, session: b)
        #expect(second.message("error", index: 1)?["code"] as? String == "bad_request")
        service.receive(text: #"{"type":"cursor","line":true}"#, session: editor.session)
        #expect((editor.sink.message("error")?["message"] as? String)?.contains("line") == true)
        service.receive(text: #"{"type":"watch"}"#, session: a)
        #expect(first.message("error")?["code"] as? String == "read_only")
        #expect(service.watchPageResponse(token: "nope").status == 404)
    }

    /// An editor in scene mode: the spectator is shown the scene document and its frames,
    /// and each applied edit; a `compile` afterwards switches it back to files.
    @Test func aSpectatorFollowsAScene() throws {
        let (service, _) = SessionResponderTests.service()
        defer { service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        func scene(_ color: String) -> String {
            Self.json(["type": "scene.set", "scene": ["width": 8, "height": 8,
                       "layers": [["id": "bg", "type": "background", "paint": ["background-color": color]]]]])
        }
        service.receive(text: scene("#ff0000"), session: session)
        #expect(sink.wait { _ in sink.message("scene.rendered") != nil })
        service.receive(text: #"{"type":"watch"}"#, session: session)
        let token = try #require(sink.message("watching")?["token"] as? String)

        let viewer = RecordingSink()
        let viewerSession = service.openSession(viewer)
        service.receive(text: Self.json(["type": "spectate", "token": token]), session: viewerSession)
        let joined = try #require(viewer.message("spectating"))
        #expect((joined["scene"] as? String)?.contains("#ff0000") == true)
        #expect(viewer.frames.count == 1)                 // the scene's last frame, sent on joining
        service.receive(text: scene("#00ff00"), session: session)
        #expect(viewer.wait { _ in viewer.messages.contains { ($0.object["scene"] as? String)?.contains("#00ff00") == true } })
        #expect(viewer.wait { _ in viewer.frames.count >= 2 })
        // A spectator's scene edits are refused like its compiles.
        service.receive(text: scene("#0000ff"), session: viewerSession)
        #expect(viewer.message("error")?["code"] as? String == "read_only")

        // Back to a shader: a new joiner sees files, not the scene.
        service.receive(text: SessionResponderTests.compileMessage(id: 2, source: waveSource), session: session)
        #expect(sink.message("compiled")?["ok"] as? Bool == true)
        let late = RecordingSink()
        let lateSession = service.openSession(late)
        service.receive(text: Self.json(["type": "spectate", "token": token]), session: lateSession)
        let state = try #require(late.message("spectating"))
        #expect(state["scene"] == nil && (state["files"] as? [[String: Any]])?.first?["text"] as? String == waveSource)
    }
}
