import Foundation
import KilnBytecode
import KilnRender

/// Two compile tiers for an edit's first pixels (docs/server.md, "Two compile tiers").
///
/// Shader art's loops are unrolled (docs/compiler.md), and lowering the copies is about
/// half of its compile: raymarch, fbm, sdf2d and starfield compile in 13, 11, 12 and 27
/// million instructions, and in 7, 5, 5 and 11 without unrolling. The library with its loops
/// kept draws the same bytes (`LoopUnrollingTests`), only slower — and an edit's first
/// frame is a coarse one of a few hundred pixels, where slower code costs a fraction of a
/// millisecond. So when an edit's first frame will be coarse, the server compiles it
/// without unrolling first and renders that coarse frame from the quick library,
/// *provisional* (frame header bit 8) — on another core when a worker is idle, else on
/// this one before it goes on — while this worker compiles again with unrolling;
/// `compiled`, the library and the frames after it are the full compile's, as before.
/// When nothing would be unrolled the quick library is the full one, and it is answered at
/// once.
extension KilnService {
    /// What the quick tier left for the full compile: the edit's final library when the
    /// quick compile made it (nothing to unroll), or the ticket of a provisional frame that
    /// the full compile settles before it answers.
    struct QuickTierOutcome {
        var final: CompiledShader?
        var provisional: ProvisionalFrameTicket?
    }

    /// Runs the quick tier of `request` when it pays: the session previews a library whose
    /// frames are slow enough that the edit's first frame will be coarse, and the edit is
    /// not cached. A provisional frame is rendered when the quick library compiled and has
    /// the previewed function.
    func quickTier(_ request: PendingCompile, sequence: Int, session: LiveSession) -> QuickTierOutcome {
        session.lock.lock()
        let preview = session.preview
        let stride = preview.map { editFrameStride(session, preview: $0) } ?? 1
        // Only a session already streaming frames has a frame time to go by and a function
        // to draw; a scene draws no shader preview.
        let wanted = session.shader != nil && session.scene == nil && !session.renderFailed && stride > 1
        session.lock.unlock()
        guard wanted, let preview, !preview.function.isEmpty,
              let (quick, final) = cache.compileQuickly(request.files, searchPaths: request.searchPaths) else {
            return QuickTierOutcome()
        }
        if final { return QuickTierOutcome(final: quick) }
        guard let library = quick.result.library,
              library.functions.contains(where: { $0.name == preview.function && $0.kind != .vertex }) else {
            return QuickTierOutcome()
        }

        session.lock.lock()
        // Counted as a frame rendering, so a newer edit's compile cancels it like any frame.
        session.rendering += 1
        let cancellation = session.frameCancellation
        let time = session.clock.time(at: monotonicSeconds())
        let revision = session.previewRevision
        session.lock.unlock()
        let ticket = ProvisionalFrameTicket()
        let render = { [self] in
            renderProvisionalFrame(session, shader: quick, library: library, preview: preview, time: time, stride: stride,
                                   compileSequence: sequence, revision: revision, cancellation: cancellation, ticket: ticket)
        }
        // On another core, the full compile goes on beside it; with none idle (the other
        // worker finishing a cancelled frame, another session's work) it would start only
        // after the full compile, too late to be sent — so it is drawn here first: a
        // millisecond more before `compiled`, first pixels sooner all the same.
        if !workers.submitIfIdle(render) {
            metrics.increment("kiln_provisional_frames_inline_total")
            render()
        }
        return QuickTierOutcome(provisional: ticket)
    }

    /// Renders the quick library's coarse frame and sends it flagged provisional — only
    /// while its edit is the session's newest and not answered yet, so it always comes
    /// before that edit's `compiled` and never after a newer edit's. The full compile
    /// settles `ticket` before it answers: a render not started by then is skipped (late),
    /// one under way is waited for. Any failure (cancelled by a newer edit, over budget,
    /// content) just sends nothing: the full compile's frames follow as they would without it.
    private func renderProvisionalFrame(_ session: LiveSession, shader: CompiledShader, library: Library,
                                        preview: PreviewSettings, time: Double, stride: Int, compileSequence: Int,
                                        revision: Int, cancellation: RenderCancellation, ticket: ProvisionalFrameTicket) {
        let started = ticket.start()
        defer {
            if started { ticket.finish() }
            session.lock.lock()
            session.rendering -= 1
            session.lock.unlock()
            wakeScheduler()
        }
        // The full library came first, or a newer edit cancelled the frames: too late.
        guard started, !cancellation.isCancelled else {
            metrics.increment("kiln_provisional_frames_late_total")
            return
        }
        let frame: (header: FrameHeader, payload: [UInt8])
        // One tile thread: the full compile runs on the other core meanwhile, and a coarse
        // frame is a batch or two (starfield's 512² provisional frame: 0.42–0.57 ms on one
        // thread against 0.57–0.69 on two, whose second thread waited for the compile's core).
        do {
            let request = try frameRequest(session, preview: preview, library: library, time: time, threads: 1,
                                           cancellation: cancellation, preparedFunctions: shader.preparedFunctions)
            let started = monotonicSeconds()
            guard let coarse = try renderer.renderCoarse(request, stride: stride) else { return }
            let seconds = monotonicSeconds() - started
            let payload = try framePayload(coarse.pixels, width: coarse.width, height: coarse.height, format: preview.format)
            frame = (FrameHeader(format: preview.format, sequence: 0, time: time, width: UInt32(coarse.width),
                                 height: UInt32(coarse.height), renderMicroseconds: UInt32(min(seconds * 1e6, 4e9)),
                                 coarseStride: UInt8(coarse.stride), provisional: true), payload)
        } catch {
            metrics.increment("kiln_provisional_frames_failed_total")
            return
        }
        var header = frame.header
        // The answer lock orders this frame against the edit's `compiled` (`answer`).
        session.answerLock.lock()
        session.lock.lock()
        let current = session.compileSequence == compileSequence && session.answeredCompileSequence < compileSequence
            && session.pendingCompile == nil && session.previewRevision == revision && !cancellation.isCancelled
        if current {
            session.sequence &+= 1
            header.sequence = session.sequence
        }
        session.lock.unlock()
        let sent = current && session.sink.send(.frame(header, frame.payload, droppable: true))
        session.answerLock.unlock()
        guard current else {
            metrics.increment("kiln_provisional_frames_late_total")
            return
        }
        metrics.increment(sent ? "kiln_provisional_frames_total" : "kiln_frames_dropped_total")
        if sent { sendFrameToSpectators(of: session, header, frame.payload) }
    }
}
