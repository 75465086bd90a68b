import Foundation
import KilnBytecode
import KilnRender
import KilnVM
import KilnWebSockets

/// Frame scheduling: one thread decides which session gets a frame next (an edit's compile
/// job starts its own session's first frame, `submitCompile`); workers render.
///
/// Fairness and back-pressure come from three rules: sessions are visited round-robin, a
/// session renders one frame at a time (so its frames arrive in order), and it never has
/// more than `maxFramesInFlight` frames rendering or waiting in its socket queue. A slow reader therefore gets fewer frames (the skipped ones are counted
/// as dropped) and never a growing queue; a 4096² session occupies at most one or two
/// workers while every other session keeps its turn in the FIFO render queue.
struct ContentError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension KilnService {
    func wakeScheduler() {
        schedulerWake.lock()
        schedulerWake.signal()
        schedulerWake.unlock()
    }

    func schedulerLoop() {
        var rotation = 0
        while true {
            schedulerWake.lock()
            let stop = stopping
            schedulerWake.unlock()
            if stop { return }

            let now = monotonicSeconds()
            var nextWake = now + 0.25
            sessionsLock.lock()
            let start = scheduleOrder.isEmpty ? 0 : rotation % scheduleOrder.count
            let order = Array(scheduleOrder[start...]) + Array(scheduleOrder[..<start])
            let snapshot = order.compactMap { sessions[$0] }
            sessionsLock.unlock()
            rotation &+= 1

            for session in snapshot {
                if let due = scheduleFrame(session, now: now) { nextWake = min(nextWake, due) }
            }
            schedulerWake.lock()
            if !stopping, nextWake > monotonicSeconds() {
                _ = schedulerWake.wait(until: Date(timeIntervalSinceNow: max(0, nextWake - monotonicSeconds())))
            }
            schedulerWake.unlock()
        }
    }

    /// Starts a frame for `session` if one is due and allowed; returns when it next wants
    /// attention. The scheduler thread calls it for every session in turn; an edit's compile
    /// job calls it once for its own session as its answer goes out (`submitCompile`).
    @discardableResult
    func scheduleFrame(_ session: LiveSession, now: Double) -> Double? {
        session.lock.lock()
        guard var preview = session.preview, let shader = session.shader, let library = shader.result.library,
              !session.renderFailed else {
            session.lock.unlock()
            return nil
        }
        guard now >= session.nextFrameDue else {
            let due = session.nextFrameDue
            session.lock.unlock()
            return due
        }
        // An edit is compiling: a slow session's next frame waits for it (`submitCompile`).
        guard session.compilesInFlight == 0 || !editPreemptsFrames(session) else {
            session.lock.unlock()
            return nil
        }
        let interval = 1 / max(1, preview.fps)
        // One frame renders at a time per session (so frames arrive in order) and at most
        // `maxFramesInFlight` are rendering or waiting on the socket.
        // A frame of a new edit does not wait for frames of the old library: those are
        // dropped when they finish, so order is kept.
        let staleOnly = session.renderingGeneration != session.generation
        let inFlight = session.rendering + session.sink.queuedFrames
        guard session.rendering == 0 || staleOnly, inFlight < settings.maxFramesInFlight || staleOnly else {
            // A coarse frame is rendering: the full frame it promises starts as soon as it is
            // done (its render wakes the scheduler), not a frame interval later.
            if session.fullFrameOwed {
                session.lock.unlock()
                return nil
            }
            metrics.increment("kiln_frames_dropped_total")
            session.nextFrameDue = max(session.nextFrameDue + interval, now)
            let due = session.nextFrameDue
            session.lock.unlock()
            return due
        }
        // A preview started before the first compile names no function yet: take the
        // library's first function that draws on its own.
        if preview.function.isEmpty, let first = library.functions.first(where: { $0.kind != .vertex }) {
            preview.function = first.name
            session.preview?.function = first.name
        }
        session.rendering += 1
        session.renderingGeneration = session.generation
        session.sequence &+= 1
        let sequence = session.sequence
        let generation = session.generation
        let revision = session.previewRevision
        let cancellation = session.frameCancellation
        let heavy = session.lastFrameSeconds > settings.heavyFrameSeconds
        let time = session.clock.time(at: now)
        // The first frame of an edit is coarse when a full one would be slow; the full
        // frame is due right after it.
        var stride = 1
        if session.coarseGeneration != generation {
            session.coarseGeneration = generation
            stride = editFrameStride(session, preview: preview)
        }
        // A paused clock renders one frame per change, not the same frame at the frame rate.
        session.fullFrameOwed = stride > 1
        if stride > 1 {
            session.nextFrameDue = now
        } else {
            session.nextFrameDue = session.clock.playing ? max(session.nextFrameDue + interval, now) : .infinity
        }
        let due = session.nextFrameDue
        session.lock.unlock()

        workers.submit(stride > 1 || staleOnly ? .urgent : heavy ? .heavy : .normal) { [self] in
            renderFrame(session, library: library, preparedFunctions: shader.preparedFunctions, preview: preview, time: time,
                        sequence: sequence, generation: generation, revision: revision, cancellation: cancellation, stride: stride)
        }
        return due
    }

    /// The stride of an edit's first frame for `session` (1: a full frame), from what its
    /// frames cost so far. Called with `session.lock` held.
    func editFrameStride(_ session: LiveSession, preview: PreviewSettings) -> Int {
        Self.coarseStride(lastFrameSeconds: session.lastFrameSeconds, deliverySeconds: session.lastDeliverySeconds,
                          coarsePixelCost: session.coarsePixelCost, target: settings.coarseFrameSeconds,
                          maxStride: Self.maxCoarseStride(width: preview.width, height: preview.height))
    }

    /// Whether an edit's compile cancels the session's frame in progress and holds back new
    /// ones until it is done: when the edit's first frame will be coarse (a full frame is
    /// slow enough that first pixels are worth a coarse one) or the session is heavy.
    /// Called with `session.lock` held.
    func editPreemptsFrames(_ session: LiveSession) -> Bool {
        Self.editPreemptsFrames(lastFrameSeconds: session.lastFrameSeconds, deliverySeconds: session.lastDeliverySeconds,
                                heavyFrameSeconds: settings.heavyFrameSeconds, coarseFrameSeconds: settings.coarseFrameSeconds)
    }

    static func editPreemptsFrames(lastFrameSeconds: Double, deliverySeconds: Double = 0, heavyFrameSeconds: Double,
                                   coarseFrameSeconds: Double) -> Bool {
        lastFrameSeconds > heavyFrameSeconds
            || coarseStride(lastFrameSeconds: lastFrameSeconds, deliverySeconds: deliverySeconds, target: coarseFrameSeconds) > 1
    }

    /// How fast a frame's bytes are assumed to reach the client's hands: written through
    /// the socket and read, a WebSocket message taken apart, by the client. An estimate,
    /// not a limit: on loopback a Python `websockets` client took about 1 ms more for a
    /// full 512² RGBA frame (1 MiB) than for a coarse one (docs/benchmarks.md, "an edit's
    /// first frame and its bytes"); a page on another machine takes longer, so this errs
    /// towards full frames.
    static let frameDeliveryBytesPerSecond = 1.0e9

    /// What a frame of `bytes` costs the client's first pixels beyond its render.
    static func deliverySeconds(bytes: Int) -> Double { Double(bytes) / frameDeliveryBytesPerSecond }

    /// The sample stride of an edit's first frame, from what the last full frame cost the
    /// client — its render (`lastFrameSeconds`) and its delivery (`deliverySeconds`: PNG
    /// encoding and bytes, both shrinking with the pixels): 1 (a full frame) when that was
    /// at most twice `target` (a coarse frame would save little), else the smallest power
    /// of two k ≤ `maxStride` with (render + delivery) / k² ≤ target; 4 when there is no
    /// frame to go by yet. Twice the target, not the frame interval: a 10 ms frame fits
    /// 30 fps but is twice too slow for "first pixels within 5 ms of the edit". Why the
    /// delivery counts: a 512² frame that renders in 1.9 ms is 1 MiB, and its first pixels
    /// came 2–3 ms later than a coarse frame's (color, melt; docs/benchmarks.md).
    static func coarseStride(lastFrameSeconds: Double, deliverySeconds: Double = 0, target: Double,
                             maxStride: Int = 16) -> Int {
        guard target > 0 else { return 1 }
        guard lastFrameSeconds > 0 else { return 4 }
        let full = lastFrameSeconds + deliverySeconds
        guard full > 2 * target else { return 1 }
        var stride = 2
        while stride < maxStride && full / Double(stride * stride) > target { stride *= 2 }
        return stride
    }

    /// The stride when coarse pixels cost `coarsePixelCost` times what full ones do to
    /// render: coarser by that factor, but only when a coarse frame is due at all (a cost
    /// learnt from another shader of the session never turns a quick full frame into a
    /// coarse one). Delivery costs the same per pixel whatever the stride.
    static func coarseStride(lastFrameSeconds: Double, deliverySeconds: Double = 0, coarsePixelCost: Double,
                             target: Double, maxStride: Int = 16) -> Int {
        let plain = coarseStride(lastFrameSeconds: lastFrameSeconds, deliverySeconds: deliverySeconds, target: target,
                                 maxStride: maxStride)
        guard plain > 1, lastFrameSeconds > 0 else { return plain }
        return coarseStride(lastFrameSeconds: lastFrameSeconds * coarsePixelCost, deliverySeconds: deliverySeconds,
                            target: target, maxStride: maxStride)
    }

    /// Samples a coarse frame keeps across the preview's shorter side, at the least, when it
    /// may be coarser than stride 16.
    static let coarseSamplesAcross = 16

    /// The coarsest an edit's first frame may be: stride 16, or 32 for previews of at least
    /// 32 × `coarseSamplesAcross` (512) pixels on the shorter side. Why 32 there: a coarse
    /// frame's pixels are far apart, so each batch of lanes runs as long as its slowest
    /// pixel (a sphere tracer's miss: every step of the march). At 512², stride 16 is eight
    /// such batches and stride 32 two, one per core: raymarch's coarse frame 1.3–1.5 → 1.0 ms.
    static func maxCoarseStride(width: Int, height: Int) -> Int {
        min(width, height) >= 32 * coarseSamplesAcross ? 32 : 16
    }

    /// How much dearer an edit's coarse frame was per pixel than the full frame after it:
    /// coarse time × k² over full time, at least 1 and at most 16. The next edit chooses its
    /// stride for the full frame's time times this. Why coarse pixels cost more: every k-th
    /// pixel puts far-apart pixels in one batch of lanes, so loops diverge more (a
    /// ray-marched frame at stride 8 took 2.4 ms, not the 0.86 ms a 64th of its full frame
    /// predicts), and a small frame pays its fixed costs (preparing the function, waking the
    /// workers) over few pixels.
    static func coarsePixelCost(coarseSeconds: Double, stride: Int, fullSeconds: Double) -> Double {
        guard fullSeconds > 0, coarseSeconds.isFinite, stride > 1 else { return 1 }
        return min(16, max(1, coarseSeconds * Double(stride * stride) / fullSeconds))
    }

    private func renderFrame(_ session: LiveSession, library: Library, preparedFunctions: PreparedFunctionCache?,
                             preview: PreviewSettings,
                             time: Double, sequence: UInt32, generation: Int, revision: Int, cancellation: RenderCancellation,
                             stride: Int = 1) {
        defer {
            session.lock.lock()
            session.rendering -= 1
            session.lock.unlock()
            wakeScheduler()
        }
        session.lock.lock()
        let current = session.generation == generation && session.sink.isOpen
        session.lock.unlock()
        guard current else { return }
        var started = monotonicSeconds()
        do {
            let request = try frameRequest(session, preview: preview, library: library, time: time, threads: renderThreads(),
                                           cancellation: cancellation, preparedFunctions: preparedFunctions)
            started = monotonicSeconds()
            let pixels: [UInt8], width: Int, height: Int, coarseStride: Int
            if stride > 1, let coarse = try renderer.renderCoarse(request, stride: stride) {
                (pixels, width, height, coarseStride) = (coarse.pixels, coarse.width, coarse.height, coarse.stride)
            } else {
                pixels = try renderer.render(request)
                // The output size follows the renderer (effects take their content's size).
                (width, height) = outputSize(pixels.count, preview: preview, content: request.content)
                coarseStride = 1
            }
            let rendered = monotonicSeconds()
            let seconds = rendered - started
            let payload = try framePayload(pixels, width: width, height: height, format: preview.format)
            // What a full frame's delivery costs: a coarse one's scaled up by its pixels.
            let delivery = (monotonicSeconds() - rendered + Self.deliverySeconds(bytes: payload.count))
                * Double(coarseStride * coarseStride)
            session.lock.lock()
            session.lastDeliverySeconds = delivery
            if coarseStride > 1 {
                // What a full one will take (for its queue), allowing for coarse pixels' cost.
                session.lastFrameSeconds = seconds * Double(coarseStride * coarseStride) / session.coarsePixelCost
                session.lastCoarseFrame = (generation, seconds, coarseStride)
            } else {
                session.lastFrameSeconds = seconds
                if let coarse = session.lastCoarseFrame, coarse.generation == generation {
                    session.coarsePixelCost = Self.coarsePixelCost(coarseSeconds: coarse.seconds, stride: coarse.stride,
                                                                   fullSeconds: seconds)
                    session.lastCoarseFrame = nil
                }
            }
            session.lock.unlock()
            if coarseStride > 1 {
                metrics.increment("kiln_coarse_frames_total")
            } else {
                metrics.observeRender(seconds: seconds)
            }
            let header = FrameHeader(format: preview.format, sequence: sequence, time: time, width: UInt32(width),
                                     height: UInt32(height), renderMicroseconds: UInt32(min(seconds * 1e6, 4e9)),
                                     coarseStride: coarseStride > 1 ? UInt8(coarseStride) : 0)
            session.lock.lock()
            let stillCurrent = session.generation == generation
            session.lock.unlock()
            guard stillCurrent else { return }
            if session.sink.send(.frame(header, payload, droppable: true)) {
                metrics.increment("kiln_frames_sent_total")
            } else {
                metrics.increment("kiln_frames_dropped_total")
            }
            sendFrameToSpectators(of: session, header, payload)
        } catch {
            // Cancelled while rendering, or while its content was made (a closed session
            // gets no new content): nobody is waiting for this frame or its error.
            if cancellation.isCancelled || (error as? RenderError)?.isCancellation == true {
                metrics.increment("kiln_renders_cancelled_total")
                return
            }
            session.lock.lock()
            // Settings or library replaced while it rendered: the next frame, with the new
            // ones, decides whether the preview fails. What this one cost still says how
            // heavy the session's frames are: a client that re-sends `preview.start` while
            // each frame runs into its work budget must stay in the heavy queue.
            guard session.previewRevision == revision, session.generation == generation else {
                session.lastFrameSeconds = max(session.lastFrameSeconds, monotonicSeconds() - started)
                session.lock.unlock()
                metrics.increment("kiln_renders_superseded_total")
                return
            }
            metrics.increment("kiln_renders_failed_total")
            // A frame that failed over its work budget was as expensive as frames get.
            session.lastFrameSeconds = .infinity
            session.renderFailed = true
            let id = preview.requestID
            session.lock.unlock()
            sendError(session, id: id, ProtocolError(.renderFailed, "\(error)"))
        }
    }

    /// Tile threads for one frame: the configured number, or with 0 (the default) the
    /// cores shared among the sessions that are previewing — one session gets every core,
    /// many get one each so they run side by side.
    func renderThreads() -> Int {
        guard settings.renderThreadsPerFrame == 0 else { return settings.renderThreadsPerFrame }
        sessionsLock.lock()
        let previewing = sessions.values.reduce(0) { count, session in
            session.lock.lock(); defer { session.lock.unlock() }
            return count + (session.preview != nil ? 1 : 0)
        }
        sessionsLock.unlock()
        return max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, previewing))
    }

    /// The request for a frame of `preview` drawn by `library`, with its contents resolved for
    /// `session` (built-in or uploaded images at the preview's size: the work of a frame
    /// before its render starts, so callers start its clock after this).
    func frameRequest(_ session: LiveSession, preview: PreviewSettings, library: Library, time: Double, threads: Int,
                      cancellation: RenderCancellation? = nil,
                      preparedFunctions: PreparedFunctionCache?) throws -> PreviewRequest {
        let content = try resolveContent(preview.contentName, slot: .content, session: session, preview: preview)
        let content2 = try preview.content2Name.map { try resolveContent($0, slot: .content2, session: session, preview: preview) }
        return PreviewRequest(library: library, function: preview.function, width: preview.width, height: preview.height,
                              content: content, content2: content2, arguments: preview.arguments, time: Float(time),
                              threads: threads, maxFrameWork: settings.maxFrameWork, cancellation: cancellation,
                              preparedFunctions: preparedFunctions)
    }

    /// A frame's premultiplied RGBA8 pixels as the preview asked for them: PNG or raw.
    func framePayload(_ pixels: [UInt8], width: Int, height: Int, format: FrameHeader.Format) throws -> [UInt8] {
        format == .png ? try renderer.encodePNG(premultiplied: pixels, width: width, height: height) : pixels
    }

    private func outputSize(_ byteCount: Int, preview: PreviewSettings, content: PreviewContent?) -> (Int, Int) {
        if byteCount == preview.width * preview.height * 4 { return (preview.width, preview.height) }
        if let content, byteCount == content.width * content.height * 4 { return (content.width, content.height) }
        return (preview.width, max(1, byteCount / 4 / max(1, preview.width)))
    }

    /// `upload` means the client's uploaded image for the slot; anything else is a built-in
    /// generated at the preview size (cached per session).
    func resolveContent(_ name: String, slot: ContentSlot, session: LiveSession, preview: PreviewSettings) throws -> PreviewContent {
        session.lock.lock()
        if name == "upload" {
            let upload = session.uploads[slot]
            session.lock.unlock()
            guard let upload else { throw ContentError(message: "no uploaded image for \(slot.rawValue) yet: send content.upload first") }
            return upload
        }
        let key = "\(name)@\(preview.width)x\(preview.height)"
        if let cached = session.builtinCache[key] {
            session.lock.unlock()
            return cached
        }
        // Only the current preview size is kept: a client cycling sizes near the maximum
        // would otherwise hold several full-size images per content name. The image is
        // accounted before it is made.
        let size = "@\(preview.width)x\(preview.height)"
        guard !session.closed else {
            session.lock.unlock()
            throw ContentError(message: "the session closed")
        }
        let kept = session.builtinCache.filter { $0.key.hasSuffix(size) }
        let needed = session.contentBytes(builtin: kept) + ContentMemory.bytes(width: preview.width, height: preview.height)
        guard contentMemory.set(session, bytes: needed) else {
            session.lock.unlock()
            throw ContentError(message: contentMemory.refusal("the \(name) content at \(preview.width)x\(preview.height)"))
        }
        session.builtinCache = kept
        session.lock.unlock()
        let content: PreviewContent
        do {
            content = try renderer.builtinContent(named: name, width: preview.width, height: preview.height)
        } catch {
            session.lock.lock()
            _ = contentMemory.set(session, bytes: session.contentBytes())     // give the reservation back
            session.lock.unlock()
            throw error
        }
        session.lock.lock()
        if !session.closed { session.builtinCache[key] = content }
        session.lock.unlock()
        return content
    }
}
