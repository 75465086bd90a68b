import Foundation
import KilnBytecode
import KilnCompiler
import KilnJSON
import KilnLanguage
import KilnRender

/// The live protocol's session logic (docs/protocol.md): one decoded `ClientMessage` in,
/// session state updated, work enqueued, replies out through the session's sink. Runs on
/// the service thread (or a test's), so nothing here compiles or renders.
extension KilnService {
    func handle(_ decoded: Result<ClientRequest, RequestFailure>, session: LiveSession) {
        let request: ClientRequest
        switch decoded {
        case .success(let value): request = value
        case .failure(let failure):
            sendError(session, id: failure.id, failure.error)
            return
        }
        let id = request.id
        session.lock.lock()
        let spectator = session.isSpectator
        session.lock.unlock()
        if spectator {
            switch request.message {
            case .ping, .spectate: break
            default:
                sendError(session, id: id, ProtocolError(.readOnly, "this connection watches a live session and cannot change it; open the page without /w/ to edit a copy"))
                return
            }
        }
        switch request.message {
        case .compile(let files, let searchPaths, let client):
            noteEditorSource(files, session: session)
            requestCompile(PendingCompile(files: files, searchPaths: searchPaths, id: id, seed: false, client: client), session: session)
        case .seedCompile(let file): requestCompile(PendingCompile(files: [file], id: nil, seed: true), session: session)
        case .previewStart(let change): changePreview(change, session: session, id: id, start: true)
        case .previewUpdate(let change): changePreview(change, session: session, id: id, start: false)
        case .previewStop:
            session.lock.lock()
            session.preview = nil
            session.builtinCache.removeAll()        // regenerated on the next preview
            _ = contentMemory.set(session, bytes: session.contentBytes())
            session.lock.unlock()
            send(session, .previewStopped(id: id))
        case .clock(let action): changeClock(action, session: session, id: id)
        case .contentUpload(let slot, let png):
            session.lock.lock()
            session.pendingUploadSlot = slot
            session.pendingUploadID = id
            session.lock.unlock()
            if let png { upload(png, session: session) }
        case .uploadBytes(let png): upload(png, session: session)
        case .ping: send(session, .pong(id: id))
        case .debug(let x, let y, let time): requestInspection(Inspection(kind: .debug(x: x, y: y), time: time, id: id), session: session)
        case .heatmap(let time): requestInspection(Inspection(kind: .heatmap, time: time, id: id), session: session)
        case .share(let state):
            workers.submit(.urgent) { [self] in
                switch storeShare(state, client: session.address) {
                case .success(let shareID): send(session, .shared(id: id, shareID: shareID))
                case .failure(let error): sendError(session, id: id, error)
                }
            }
        case .scene(let edit): enqueueSceneEdit(edit, session: session, id: id)
        case .watch: startWatch(session, id: id)
        case .spectate(let token): spectate(session, token: token, id: id)
        case .cursor(let line): noteCursor(line, session: session)
        }
    }

    // MARK: compile

    /// Compiles now when the session's budget (`compilesPerSecond`) allows; otherwise the
    /// request waits as the session's pending compile, replacing (and answering
    /// `superseded` to) any older one, and is compiled as soon as a token is available.
    /// A burst of edits therefore always ends with the last edit compiled, at most
    /// 1/rate seconds after it arrived.
    func requestCompile(_ request: PendingCompile, session: LiveSession) {
        let rate = settings.compilesPerSecond
        session.lock.lock()
        let wait = session.refillCompileTokens(rate: rate, now: monotonicSeconds())
        if wait == 0, session.pendingCompile == nil {
            let sequence = session.spendCompileToken()
            session.lock.unlock()
            submitCompile(request, sequence: sequence, session: session)
            return
        }
        let replaced = session.pendingCompile
        session.pendingCompile = request
        let arm = !session.compileTimerArmed
        session.compileTimerArmed = true
        session.lock.unlock()
        if let replaced {
            metrics.increment("kiln_compiles_superseded_total")
            send(session, .superseded(id: replaced.id))
        }
        if arm { schedulePendingCompile(session, after: wait) }
    }

    /// Wakes after `seconds` to compile the session's pending request, or waits again if
    /// the budget still has no token (the rate may have been spent meanwhile).
    private func schedulePendingCompile(_ session: LiveSession, after seconds: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0.001, seconds)) { [weak self, weak session] in
            guard let self, let session else { return }
            session.lock.lock()
            let wait = session.refillCompileTokens(rate: settings.compilesPerSecond, now: monotonicSeconds())
            guard let request = session.pendingCompile, session.sink.isOpen else {
                session.pendingCompile = nil
                session.compileTimerArmed = false
                session.lock.unlock()
                return
            }
            guard wait == 0 else {
                session.lock.unlock()
                schedulePendingCompile(session, after: wait)
                return
            }
            session.pendingCompile = nil
            session.compileTimerArmed = false
            let sequence = session.spendCompileToken()
            session.lock.unlock()
            submitCompile(request, sequence: sequence, session: session)
        }
    }

    /// When the edit's first frame will be coarse (or the session is heavy), its frame in
    /// progress is cancelled as the compile starts, and no new frame starts until the
    /// compile is done (`editPreemptsFrames`): otherwise the compile and then the new
    /// library's first (coarse) frame share the cores with a frame of the old library that
    /// nobody will want (raymarch, 512²: 9 ms from edit to first pixels instead of 4; fbm
    /// and loop, whose 30-ms frames are not heavy: 10–14 ms instead of 3–4). A compile that
    /// fails loses that one frame; the last good library streams on.
    private func submitCompile(_ request: PendingCompile, sequence: Int, session: LiveSession) {
        session.lock.lock()
        session.compilesInFlight += 1
        if editPreemptsFrames(session) && session.rendering > 0 {
            session.frameCancellation.cancel()
            session.frameCancellation = RenderCancellation()
        }
        session.lock.unlock()
        workers.submit(.urgent) { [self] in
            // The history's time is taken before the answer goes out: the client's next edit
            // waits for that answer, so its version's time is later even when this worker's
            // history write, after the answer, runs after the next edit's.
            let compiledAt = Date().timeIntervalSince1970
            let quick = session.sink.isOpen && !request.seed ? quickTier(request, sequence: sequence, session: session)
                : QuickTierOutcome()
            let keep = session.sink.isOpen && compileAndAnswer(request, sequence: sequence, session: session, quick: quick)
            // The compile is done for the frames once its answer is out: the history write
            // after it must not hold back the new library's first frame (with a client id,
            // as the page sends, it held fbm's by 0.6 ms and raymarch's by 1.4 ms here; a
            // database across the network would hold it by a round trip or two).
            session.lock.lock()
            session.compilesInFlight -= 1
            session.lock.unlock()
            // The new library's first frame is queued from here rather than by the scheduler
            // thread: waking that thread took 0.5–0.9 ms of sdf2d's first pixels (server
            // timestamps, 2 cores busy with the reply and its reader). The scheduler is woken
            // all the same, for the session's next due time.
            if session.sink.isOpen { scheduleFrame(session, now: monotonicSeconds()) }
            wakeScheduler()
            if keep, let client = request.client {
                keepVersion(request.files, client: client, address: session.address, time: compiledAt)
            }
        }
    }

    /// Compiles an edit (unless the quick tier made its library already), installs its
    /// library unless a newer edit's came first, and answers — after the quick tier's
    /// provisional frame, if that started. Returns whether the edit compiled and was
    /// answered `compiled` (a version worth keeping).
    private func compileAndAnswer(_ request: PendingCompile, sequence: Int, session: LiveSession,
                                  quick: QuickTierOutcome) -> Bool {
        let (shader, hit) = quick.final.map { ($0, false) } ?? cache.compile(request.files, searchPaths: request.searchPaths)
        // Before the install, which cancels the frames of the library before it.
        quick.provisional?.settle()
        metrics.increment("kiln_compiles_total")
        if hit { metrics.increment("kiln_compile_cache_hits_total") }
        if !shader.succeeded { metrics.increment("kiln_compile_errors_total") }
        if shader.succeeded {
            session.lock.lock()
            // Compiles run side by side: an older one finishing late must not
            // replace the library of a newer one.
            if sequence > session.installedCompileSequence {
                session.installedCompileSequence = sequence
                session.shader = shader
                session.generation += 1
                session.frameCancellation.cancel()
                session.frameCancellation = RenderCancellation()
                session.renderFailed = false
                session.nextFrameDue = 0
            }
            session.lock.unlock()
            wakeScheduler()
        }
        return answer(request, sequence: sequence, shader: shader, cached: hit, session: session) && shader.succeeded
    }

    /// Sends a compile's answer — `compiled` and the library, `superseded` when a newer
    /// edit's answer went out first, the library alone to a seed client — in the order the
    /// edits came. Returns whether the answer was `compiled`.
    private func answer(_ request: PendingCompile, sequence: Int, shader: CompiledShader, cached: Bool,
                        session: LiveSession) -> Bool {
        session.answerLock.lock()
        defer { session.answerLock.unlock() }
        let overtaken = sequence < session.answeredCompileSequence
        if !overtaken { session.answeredCompileSequence = sequence }
        if overtaken && !request.seed {
            // A newer edit's answer went out first (compiles run side by side).
            metrics.increment("kiln_compiles_superseded_total")
            send(session, .superseded(id: request.id))
            return false
        }
        let report = CompileReport.object(result: shader.result, libraryBytes: shader.libraryBytes)
        if request.seed {
            // The seed client gets the library alone, or the diagnostics.
            if let bytes = shader.libraryBytes { session.sink.send(.library(bytes)) } else { send(session, .compiled(id: nil, report: report, cached: nil)) }
            return false
        }
        send(session, .compiled(id: request.id, report: report, cached: cached))
        if let bytes = shader.libraryBytes { session.sink.send(.library(bytes)) }
        return true
    }

    // MARK: preview

    private func changePreview(_ change: PreviewChange, session: LiveSession, id: RequestID?, start: Bool) {
        // Spectators are told after the session's lock is released (`tellSpectators` takes
        // it), on this thread: a hop to a global queue could wait behind blocked workers
        // and let the next change overtake this one.
        if let spectatorState = applyPreviewChange(change, session: session, id: id, start: start) {
            tellSpectators(of: session, spectatorState)
        }
    }

    /// Applies a `preview.start`/`preview.update` under the session's lock; returns the
    /// state to show spectators, nil when there are none (or the change was refused).
    private func applyPreviewChange(_ change: PreviewChange, session: LiveSession, id: RequestID?, start: Bool) -> [String: Any]? {
        session.lock.lock()
        defer { session.lock.unlock() }
        guard start || session.preview != nil else {
            sendError(session, id: id, ProtocolError(.noPreview, "preview.update before preview.start"))
            return nil
        }
        var preview = session.preview ?? PreviewSettings(
            function: "", width: settings.defaultPreviewSize, height: settings.defaultPreviewSize,
            contentName: session.uploads[.content] != nil ? "upload" : "rainbow",
            content2Name: session.uploads[.content2] != nil ? "upload" : "checker", arguments: [:], fps: settings.defaultFPS,
            format: .rgba8, requestID: id)
        if let function = change.function { preview.function = function }
        if let size = change.size { (preview.width, preview.height) = size }
        if let content = change.content { preview.contentName = content }
        if let content2 = change.content2 { preview.content2Name = content2 }
        if let fps = change.fps { preview.fps = fps }
        if let format = change.format { preview.format = format }
        for (name, value) in change.arguments { preview.arguments[name] = value }
        if start { preview.requestID = id }
        if preview.function.isEmpty, let first = session.shader?.result.library?.functions.first(where: { $0.kind != .vertex }) {
            preview.function = first.name
        }
        if start { session.clock = PreviewClock(playing: true, speed: session.clock.speed, base: 0, anchor: monotonicSeconds()) }
        session.preview = preview
        session.previewRevision &+= 1
        session.renderFailed = false
        session.nextFrameDue = 0
        if start {
            send(session, .previewStarted(id: id, function: preview.function, width: preview.width, height: preview.height, fps: preview.fps))
        }
        wakeScheduler()
        return session.spectators.isEmpty ? nil : Self.previewState(preview)
    }

    private func changeClock(_ action: ClockAction, session: LiveSession, id: RequestID?) {
        let now = monotonicSeconds()
        session.lock.lock()
        session.clock.rebase(at: now)
        switch action {
        case .play: session.clock.playing = true
        case .pause: session.clock.playing = false
        case .seek(let time): session.clock.base = time
        case .speed(let speed): session.clock.speed = speed
        }
        let time = session.clock.time(at: now)
        let playing = session.clock.playing
        session.nextFrameDue = 0
        session.lock.unlock()
        send(session, .clock(id: id, time: time, playing: playing))
        wakeScheduler()
    }

    // MARK: content

    /// Decodes an uploaded PNG on a worker into the pending slot and points the preview at it.
    private func upload(_ png: [UInt8], session: LiveSession) {
        session.lock.lock()
        let slot = session.pendingUploadSlot
        let id = session.pendingUploadID
        session.pendingUploadSlot = .content
        session.pendingUploadID = nil
        session.lock.unlock()
        let maxSide = settings.maxUploadSide
        workers.submit(.urgent) { [self] in
            do {
                let content = try renderer.decodeContent(png: png, maxSide: maxSide)
                session.lock.lock()
                var uploads = session.uploads
                uploads[slot] = content
                guard !session.closed else {
                    session.lock.unlock()
                    return
                }
                guard contentMemory.set(session, bytes: session.contentBytes(uploads: uploads)) else {
                    session.lock.unlock()
                    sendError(session, id: id, ProtocolError(.tooLarge, contentMemory.refusal("the \(content.width)x\(content.height) upload")))
                    return
                }
                session.uploads[slot] = content
                switch slot {
                case .content: session.preview?.contentName = "upload"
                case .content2: session.preview?.content2Name = "upload"
                }
                session.previewRevision &+= 1
                session.renderFailed = false
                session.nextFrameDue = 0
                session.lock.unlock()
                wakeScheduler()
                send(session, .contentUploaded(id: id, slot: slot, width: content.width, height: content.height))
            } catch {
                sendError(session, id: id, ProtocolError(.badImage, "\(error)"))
            }
        }
    }
}
