import Foundation
import KilnBytecode
import KilnVM

/// A look inside the current preview: a pixel's trace (`debug`) or the frame's cost
/// heatmap (`heatmap`), at `time` or the clock's now.
struct Inspection {
    enum Kind: Hashable {
        case debug(x: Int, y: Int)
        case heatmap
    }
    var kind: Kind
    var time: Double?
    var id: RequestID?

    /// Requests of one family replace each other (a newer pixel replaces an older one).
    var family: String {
        switch kind {
        case .debug: "debug"
        case .heatmap: "heatmap"
        }
    }
}

/// The pixel debugger and the cost heatmap over the live protocol (docs/protocol.md):
/// the session's current library, function, arguments and content, on a worker. One
/// request of each family runs per session; one that arrives meanwhile waits, and a newer
/// one replaces it (the replaced one is answered `superseded`), so a client clicking or
/// toggling fast always ends on its last request and never queues work.
extension KilnService {
    func requestInspection(_ request: Inspection, session: LiveSession) {
        session.lock.lock()
        guard session.inspectionsInFlight.contains(request.family) else {
            session.inspectionsInFlight.insert(request.family)
            session.lock.unlock()
            submitInspection(request, session: session)
            return
        }
        let replaced = session.pendingInspections[request.family]
        session.pendingInspections[request.family] = request
        session.lock.unlock()
        if let replaced { send(session, .superseded(id: replaced.id)) }
    }

    private func submitInspection(_ request: Inspection, session: LiveSession) {
        session.lock.lock()
        let heavy = session.lastFrameSeconds > settings.heavyFrameSeconds
        session.lock.unlock()
        // A heatmap is a whole frame (a trace is one batch): it queues like the session's frames.
        workers.submit(request.kind == .heatmap && heavy ? .heavy : .normal) { [self] in
            runInspection(request, session: session)
            session.lock.lock()
            let next = session.pendingInspections.removeValue(forKey: request.family)
            if next == nil || !session.sink.isOpen { session.inspectionsInFlight.remove(request.family) }
            session.lock.unlock()
            if let next, session.sink.isOpen { submitInspection(next, session: session) }
        }
    }

    private func runInspection(_ request: Inspection, session: LiveSession) {
        guard session.sink.isOpen else { return }
        session.lock.lock()
        let preview = session.preview
        let library = session.shader?.result.library
        let preparedFunctions = session.shader?.preparedFunctions
        let time = request.time ?? session.clock.time(at: monotonicSeconds())
        session.lock.unlock()
        guard let preview, !preview.function.isEmpty else {
            sendError(session, id: request.id, ProtocolError(.noPreview, "\(request.family) needs a running preview (preview.start)"))
            return
        }
        guard let library else {
            sendError(session, id: request.id, ProtocolError(.noPreview, "\(request.family) needs a compiled library"))
            return
        }
        do {
            // The frame the preview draws, so the trace and the heatmap are of its pixels.
            let frame = try frameRequest(session, preview: preview, library: library, time: time, threads: 1,
                                         preparedFunctions: preparedFunctions)
            let started = monotonicSeconds()
            var report: [String: Any]
            switch request.kind {
            case .debug(let x, let y):
                report = try renderer.debug(frame, x: x, y: y, maxSteps: settings.maxTraceSteps)
                report["traceMicroseconds"] = Int((monotonicSeconds() - started) * 1e6)
                metrics.increment("kiln_debug_traces_total")
            case .heatmap:
                report = try renderer.heatmap(frame)
                report["renderMicroseconds"] = Int((monotonicSeconds() - started) * 1e6)
                metrics.increment("kiln_heatmaps_total")
            }
            report["time"] = time
            send(session, request.kind == .heatmap ? .heatmap(id: request.id, report: report)
                                                   : .debugTrace(id: request.id, report: report))
        } catch {
            sendError(session, id: request.id, ProtocolError(.renderFailed, "\(error)"))
        }
    }
}
