import Foundation
import KilnLanguage
import KilnWebSockets

/// Watching a live session (docs/protocol.md "Watching a live session"): an editor asks
/// for a link (`watch`), other connections join it read-only (`spectate`) and see the
/// editor's text, cursor line, function, arguments and the same frames, live.
///
/// A spectator costs the editor nothing it can feel: frames are rendered once, for the
/// editor, and the same bytes are queued to each spectator only while that spectator has
/// fewer than `maxFramesInFlight` frames waiting on its socket — a slow one misses frames
/// (`kiln_spectator_frames_skipped_total`), it never delays the editor's or holds memory.
extension KilnService {
    /// 128 random bits as 22 URL-safe characters (the shape of a share id, but never
    /// derived from content: a watch link must not be guessable from the source), after
    /// `instance.` when the server has an `--instance-name`: a session lives on one
    /// instance, and the name in its links lets a load balancer send spectators there
    /// (docker/haproxy.cfg routes `/w/NAME.…` and `?watch=NAME.…`; docs/deploy.md).
    static func newWatchToken(instance: String? = nil) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let random = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return instance.map { "\($0).\(random)" } ?? random
    }

    /// `GET /w/<token>`: the page, which joins the session as a spectator; 404 once the
    /// session ended (or for a token that never was).
    func watchPageResponse(token: String) -> HTTPResponse {
        sessionsLock.lock()
        let live = watchTokens[token] != nil
        sessionsLock.unlock()
        guard live else { return .text(404, "no live session to watch at /w/\(token): it ended, or the link is wrong\n") }
        return pageResponse()
    }

    /// `watch`: the session's token (made once) and how many watch it.
    func startWatch(_ session: LiveSession, id: RequestID?) {
        session.lock.lock()
        if session.isSpectator {
            session.lock.unlock()
            sendError(session, id: id, ProtocolError(.readOnly, "a spectator cannot share the session it watches"))
            return
        }
        let token = session.watchToken ?? Self.newWatchToken(instance: settings.instanceName)
        let fresh = session.watchToken == nil
        session.watchToken = token
        let count = session.spectators.count
        session.lock.unlock()
        if fresh {
            sessionsLock.lock()
            watchTokens[token] = session
            sessionsLock.unlock()
        }
        send(session, .watching(id: id, token: token, spectators: count))
    }

    /// `spectate`: `session` becomes a read-only viewer of the session holding `token`.
    func spectate(_ session: LiveSession, token: String, id: RequestID?) {
        sessionsLock.lock()
        let editor = watchTokens[token]
        sessionsLock.unlock()
        guard let editor, editor !== session else {
            sendError(session, id: id, ProtocolError(.notFound, "no live session to watch at this link (it ended, or the link is wrong)"))
            return
        }
        session.lock.lock()
        let alreadyEditing = session.shader != nil || session.preview != nil || session.scene != nil || session.watchToken != nil
        let previous = session.watched
        session.lock.unlock()
        guard !alreadyEditing else {
            sendError(session, id: id, ProtocolError(.readOnly, "this connection edits a session of its own; watch from a new connection"))
            return
        }
        if let previous, previous !== editor { leaveWatch(spectator: session, editor: previous) }

        editor.lock.lock()
        guard !editor.closed else {
            editor.lock.unlock()
            sendError(session, id: id, ProtocolError(.notFound, "no live session to watch at this link (it ended, or the link is wrong)"))
            return
        }
        let joined = !editor.spectators.contains { $0 === session }
        guard !joined || editor.spectators.count < settings.maxSpectators else {
            let limit = settings.maxSpectators
            editor.lock.unlock()
            sendError(session, id: id, ProtocolError(.unavailable, "this session already has \(limit) spectators (--max-spectators)"))
            return
        }
        if joined { editor.spectators.append(session) }
        let state = watchState(of: editor, now: monotonicSeconds())
        let count = editor.spectators.count
        let sceneFrame = editor.watchScene == nil ? nil : editor.lastSceneFrame
        editor.lock.unlock()

        session.lock.lock()
        session.isSpectator = true
        session.watched = editor
        session.lock.unlock()
        metrics.set("kiln_spectators", Double(spectatorCount()))
        send(session, .spectating(id: id, state: state))
        if let sceneFrame { session.sink.send(.frame(sceneFrame.header, sceneFrame.payload, droppable: true)) }
        if joined { send(editor, .spectators(count: count)) }
    }

    /// Everything a joining spectator is shown (call with `editor.lock` held).
    private func watchState(of editor: LiveSession, now: Double) -> [String: Any] {
        var state: [String: Any] = ["files": editor.watchFiles.map { ["name": $0.name, "text": $0.text] },
                                    "line": editor.cursorLine.map { $0 as Any } ?? NSNull(),
                                    "time": editor.clock.time(at: now), "playing": editor.clock.playing]
        if let preview = editor.preview { state.merge(Self.previewState(preview)) { $1 } }
        if let scene = editor.watchScene { state["scene"] = scene }
        return state
    }

    static func previewState(_ preview: PreviewSettings) -> [String: Any] {
        ["function": preview.function, "size": [preview.width, preview.height],
         "arguments": preview.arguments.mapValues { $0.map(Double.init) }]
    }

    /// Sends `state` (the fields that changed) to the editor's spectators, if any.
    func tellSpectators(of editor: LiveSession, _ state: [String: Any]) {
        editor.lock.lock()
        let spectators = editor.spectators
        editor.lock.unlock()
        for spectator in spectators { send(spectator, .watchState(state)) }
    }

    /// The editor's source changed (a `compile` arrived): keep it for joiners, show watchers.
    func noteEditorSource(_ files: [SourceFile], session: LiveSession) {
        session.lock.lock()
        session.watchFiles = files
        session.watchScene = nil
        session.lastSceneFrame = nil
        let watched = !session.spectators.isEmpty
        session.lock.unlock()
        if watched { tellSpectators(of: session, ["files": files.map { ["name": $0.name, "text": $0.text] }]) }
    }

    /// The editor's scene changed (an edit was applied): its JSON for joiners and watchers.
    func noteEditorScene(_ json: String, session: LiveSession) {
        session.lock.lock()
        session.watchScene = json
        let watched = !session.spectators.isEmpty
        session.lock.unlock()
        if watched { tellSpectators(of: session, ["scene": json]) }
    }

    /// `cursor`: the editor's cursor line.
    func noteCursor(_ line: Int, session: LiveSession) {
        session.lock.lock()
        session.cursorLine = line
        session.lock.unlock()
        tellSpectators(of: session, ["line": line])
    }

    /// Queues a frame the editor just got to each spectator that is keeping up.
    func sendFrameToSpectators(of editor: LiveSession, _ header: FrameHeader, _ payload: [UInt8]) {
        editor.lock.lock()
        let spectators = editor.spectators
        editor.lock.unlock()
        for spectator in spectators {
            if spectator.sink.queuedFrames < settings.maxFramesInFlight, spectator.sink.send(.frame(header, payload, droppable: true)) {
                metrics.increment("kiln_spectator_frames_sent_total")
            } else {
                metrics.increment("kiln_spectator_frames_skipped_total")
            }
        }
    }

    /// A closing session: an editor's spectators are told it ended and its link stops
    /// working; a spectator leaves the session it watched.
    func endWatching(_ closing: LiveSession) {
        closing.lock.lock()
        let token = closing.watchToken
        let spectators = closing.spectators
        closing.spectators = []
        closing.watchToken = nil
        let editor = closing.watched
        closing.watched = nil
        closing.lock.unlock()
        if let token {
            sessionsLock.lock()
            watchTokens[token] = nil
            sessionsLock.unlock()
        }
        for spectator in spectators {
            spectator.lock.lock()
            spectator.watched = nil
            spectator.lock.unlock()
            send(spectator, .watchEnded)
        }
        if let editor { leaveWatch(spectator: closing, editor: editor) }
        metrics.set("kiln_spectators", Double(spectatorCount()))
    }

    private func leaveWatch(spectator: LiveSession, editor: LiveSession) {
        editor.lock.lock()
        let before = editor.spectators.count
        editor.spectators.removeAll { $0 === spectator }
        let count = editor.spectators.count
        editor.lock.unlock()
        if count != before { send(editor, .spectators(count: count)) }
    }

    private func spectatorCount() -> Int {
        sessionsLock.lock()
        let editors = Array(watchTokens.values)
        sessionsLock.unlock()
        return editors.reduce(0) { total, editor in
            editor.lock.lock()
            defer { editor.lock.unlock() }
            return total + editor.spectators.count
        }
    }
}
