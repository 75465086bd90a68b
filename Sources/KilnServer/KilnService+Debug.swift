import Foundation
import KilnBytecode

/// A `debug` request: pixel (`x`, `y`) of the preview, at `time` or the clock's now.
struct DebugRequest {
    var x: Int
    var y: Int
    var time: Double?
    var id: RequestID?
}

/// The pixel debugger over the live protocol (docs/protocol.md, `debug`): the session's
/// current library, function, arguments and content, traced on a worker. One trace runs
/// per session; a request that arrives meanwhile waits, and a newer one replaces it (the
/// replaced one is answered `superseded`), so a client dragging over the picture always
/// ends on its last pixel and never queues work.
extension KilnService {
    func requestDebug(_ request: DebugRequest, session: LiveSession) {
        session.lock.lock()
        guard session.debugInFlight else {
            session.debugInFlight = true
            session.lock.unlock()
            submitDebug(request, session: session)
            return
        }
        let replaced = session.pendingDebug
        session.pendingDebug = request
        session.lock.unlock()
        if let replaced { send(session, .superseded(id: replaced.id)) }
    }

    private func submitDebug(_ request: DebugRequest, session: LiveSession) {
        workers.submit(.normal) { [self] in
            runDebug(request, session: session)
            session.lock.lock()
            let next = session.pendingDebug
            session.pendingDebug = nil
            session.debugInFlight = next != nil && session.sink.isOpen
            session.lock.unlock()
            if let next, session.sink.isOpen { submitDebug(next, session: session) }
        }
    }

    private func runDebug(_ request: DebugRequest, session: LiveSession) {
        guard session.sink.isOpen else { return }
        session.lock.lock()
        let preview = session.preview
        let library = session.shader?.result.library
        let time = request.time ?? session.clock.time(at: monotonicSeconds())
        session.lock.unlock()
        guard let preview, !preview.function.isEmpty else {
            sendError(session, id: request.id, ProtocolError(.noPreview, "debug needs a running preview (preview.start)"))
            return
        }
        guard let library else {
            sendError(session, id: request.id, ProtocolError(.noPreview, "debug needs a compiled library"))
            return
        }
        do {
            let content = try resolveContent(preview.contentName, slot: .content, session: session, preview: preview)
            let content2 = try preview.content2Name.map { try resolveContent($0, slot: .content2, session: session, preview: preview) }
            let frame = PreviewRequest(library: library, function: preview.function, width: preview.width,
                                       height: preview.height, content: content, content2: content2,
                                       arguments: preview.arguments, time: Float(time), threads: 1,
                                       maxFrameWork: settings.maxFrameWork)
            let started = monotonicSeconds()
            var report = try renderer.debug(frame, x: request.x, y: request.y, maxSteps: settings.maxTraceSteps)
            report["time"] = time
            report["traceMicroseconds"] = Int((monotonicSeconds() - started) * 1e6)
            metrics.increment("kiln_debug_traces_total")
            send(session, .debugTrace(id: request.id, report: report))
        } catch {
            sendError(session, id: request.id, ProtocolError(.renderFailed, "\(error)"))
        }
    }
}
