import Foundation
import KilnCompiler
import KilnJSON
import KilnRender
import KilnScene
import KilnWebSockets

/// Scene messages of the live protocol (docs/scenes.md, docs/protocol.md "Scenes"):
/// `scene.set`, `layer.add`, `layer.update`, `layer.remove`, and `POST /render` with a
/// scene document. Edits are decoded, checked and applied on a worker, in order;
/// the frame is drawn on a worker by the session's `SceneRenderer`, which redraws only the
/// layers whose inputs changed, and sent as a binary frame followed by `scene.rendered`
/// (`drawn`: the layer ids drawn for it, `renderMicroseconds`).
extension KilnService {
    /// Queues a scene edit. Decoding and checking a document (up to `maxMessageBytes` of
    /// JSON) happens on a worker, not the service thread; a session's edits are applied
    /// one at a time, in the order they arrived.
    func enqueueSceneEdit(_ edit: SceneEdit, session: LiveSession, id: RequestID?) {
        let state = sceneState(of: session)
        state.lock.lock()
        state.pendingEdits.append((edit, id))
        let startWorker = !state.applyingEdits
        state.applyingEdits = true
        state.lock.unlock()
        if startWorker {
            workers.submit(.urgent) { [self] in applyPendingEdits(state, session: session) }
        }
    }

    /// Applies the session's queued edits in order, then asks for a frame of the result.
    /// Edits before a later `scene.set` are answered `superseded` (the document they change
    /// is replaced anyway), and an edit that brings new library sources spends compile
    /// tokens like a `compile` does: without one it waits, still first in line.
    private func applyPendingEdits(_ state: SceneSessionState, session: LiveSession) {
        while true {
            state.lock.lock()
            guard !state.pendingEdits.isEmpty else {
                state.applyingEdits = false
                state.lock.unlock()
                return
            }
            if let lastSet = state.pendingEdits.lastIndex(where: { if case .set = $0.edit.kind { true } else { false } }),
               lastSet > 0 {
                let replaced = state.pendingEdits.prefix(lastSet)
                state.pendingEdits.removeFirst(lastSet)
                state.lock.unlock()
                for (_, id) in replaced { send(session, .superseded(id: id)) }
                continue
            }
            let (edit, id) = state.pendingEdits.removeFirst()
            let current = state.document
            state.lock.unlock()
            let next: SceneDocument
            do {
                next = try Self.apply(edit, to: current)
            } catch let error as SceneError {
                sendError(session, id: id, ProtocolError(error))
                continue
            } catch {
                sendError(session, id: id, ProtocolError(.badRequest, "\(error)"))
                continue
            }
            guard next.width <= settings.maxPreviewSide, next.height <= settings.maxPreviewSide else {
                sendError(session, id: id, ProtocolError(.tooLarge, "scene size \(next.width)x\(next.height) exceeds maxPreviewSide = \(settings.maxPreviewSide)"))
                continue
            }
            let compiles = Self.newLibrarySources(in: next, comparedWith: current)
            if compiles > 0 {
                session.lock.lock()
                let wait = session.refillCompileTokens(rate: settings.compilesPerSecond, now: monotonicSeconds())
                if wait == 0 { session.compileTokens -= Double(compiles) }
                session.lock.unlock()
                if wait > 0 {
                    state.lock.lock()
                    state.pendingEdits.insert((edit, id), at: 0)
                    state.lock.unlock()
                    DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [weak self, weak session] in
                        guard let self, let session, session.sink.isOpen else { return }
                        workers.submit(.urgent) { self.applyPendingEdits(state, session: session) }
                    }
                    return
                }
            }
            state.lock.lock()
            state.document = next
            state.lock.unlock()
            noteEditorScene(next.json, session: session)
            requestSceneRender(state, session: session, id: id, format: edit.format)
        }
    }

    /// Asks for a frame of the session's current scene. At most one render of a session's
    /// scene is queued or running: an edit that arrives meanwhile leaves a frame owed,
    /// drawn from the newest document when the running one ends, answering the newest edit
    /// (an owed edit displaced by a newer one is answered `superseded`). (A render per edit used to
    /// be queued, and the second waited on the first's lock while holding a worker: a
    /// client's burst of scene edits could hold every worker, and everyone's compiles and
    /// frames waited.) A scene whose last render took longer than `heavyFrameSeconds` goes
    /// to the heavy queue, as a heavy preview does.
    func requestSceneRender(_ state: SceneSessionState, session: LiveSession, id: RequestID?, format: FrameHeader.Format) {
        state.lock.lock()
        guard !state.renderScheduled else {
            let displaced = state.owedRender
            state.owedRender = (id, format)
            state.lock.unlock()
            // Every edit gets one answer: one whose frame a later edit's replaces is superseded.
            if let displaced, displaced.id != nil { send(session, .superseded(id: displaced.id)) }
            return
        }
        state.renderScheduled = true
        let heavy = state.lastRenderSeconds > settings.heavyFrameSeconds
        state.lock.unlock()
        workers.submit(heavy ? .heavy : .normal) { [self] in
            renderScene(state, session: session, id: id, format: format)
            state.lock.lock()
            state.renderScheduled = false
            let owed = state.owedRender
            state.owedRender = nil
            state.lock.unlock()
            if let owed { requestSceneRender(state, session: session, id: owed.id, format: owed.format) }
        }
    }

    /// Library sources `next` has that `current` did not: each is a compile.
    static func newLibrarySources(in next: SceneDocument, comparedWith current: SceneDocument?) -> Int {
        func sources(_ document: SceneDocument?) -> Set<String> {
            Set((document?.libraries.values ?? [:].values).compactMap { if case .source(let text) = $0 { text } else { nil } })
        }
        return sources(next).subtracting(sources(current)).count
    }

    /// The document after one edit.
    static func apply(_ edit: SceneEdit, to current: SceneDocument?) throws -> SceneDocument {
        func bytes(_ value: Any?, _ name: String) throws -> [UInt8] {
            guard let value, JSONSerialization.isValidJSONObject(value) else {
                throw SceneError(path: name, "expected an object")
            }
            return Array(try JSONSerialization.data(withJSONObject: value))
        }
        func existing() throws -> SceneDocument {
            guard let current else { throw SceneError(path: "", "no scene yet: send scene.set first") }
            return current
        }
        switch edit.kind {
        case .set: return try SceneDocument.decode(try bytes(edit.document, "scene"))
        case .addLayer(let placement): return try existing().addingLayer(try bytes(edit.document, "layer"), placement: placement)
        case .updateLayer(let layer): return try existing().updatingLayer(layer, properties: try bytes(edit.document, "properties"))
        case .removeLayer(let layer): return try existing().removingLayer(layer)
        }
    }

    /// Draws the session's current scene and sends the frame and `scene.rendered` (only
    /// `requestSceneRender` calls it, so one runs at a time per session: the renderer and
    /// its layer cache are not thread-safe).
    private func renderScene(_ state: SceneSessionState, session: LiveSession, id: RequestID?, format: FrameHeader.Format) {
        state.lock.lock()
        let document = state.document
        state.lock.unlock()
        guard let document, session.sink.isOpen else { return }
        let started = monotonicSeconds()
        defer {
            // Failed renders count too: one that ran into its work budget was slow.
            state.lock.lock()
            state.lastRenderSeconds = monotonicSeconds() - started
            state.lock.unlock()
        }
        do {
            let image = try state.renderer.render(document)
            let seconds = monotonicSeconds() - started
            metrics.observeRender(seconds: seconds)
            let payload = format == .png ? try PNG.encode(image.unpremultiplied()) : image.bytes
            session.lock.lock()
            session.sequence &+= 1
            let sequence = session.sequence
            session.lock.unlock()
            let header = FrameHeader(format: format, sequence: sequence, time: 0, width: UInt32(image.width),
                                     height: UInt32(image.height), renderMicroseconds: UInt32(min(seconds * 1e6, 4e9)))
            if session.sink.send(.frame(header, payload, droppable: false)) { metrics.increment("kiln_frames_sent_total") }
            session.lock.lock()
            session.lastSceneFrame = (header, payload)
            session.lock.unlock()
            sendFrameToSpectators(of: session, header, payload)
            send(session, .sceneRendered(id: id, sequence: sequence, drawn: state.renderer.lastDrawn,
                                         renderMicroseconds: Int(seconds * 1e6)))
        } catch let error as SceneError {
            metrics.increment("kiln_renders_failed_total")
            sendError(session, id: id, ProtocolError(error))
        } catch {
            metrics.increment("kiln_renders_failed_total")
            sendError(session, id: id, ProtocolError(.renderFailed, "\(error)"))
        }
    }

    /// `POST /render` with a scene document as the body: the PNG, or 422 with the error
    /// and its JSON path.
    func sceneRenderResponse(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let document = try SceneDocument.decode(request.body)
            guard document.width <= settings.maxPreviewSide, document.height <= settings.maxPreviewSide else {
                return .text(413, "scene size \(document.width)x\(document.height) exceeds maxPreviewSide = \(settings.maxPreviewSide)\n")
            }
            let renderer = Self.makeSceneRenderer(shaders: settings.shadersDirectory, maxFrameWork: settings.maxFrameWork)
            let started = monotonicSeconds()
            let image = try renderer.render(document)
            metrics.observeRender(seconds: monotonicSeconds() - started)
            return HTTPResponse(status: 200, contentType: "image/png", body: try PNG.encode(image.unpremultiplied()))
        } catch let error as SceneError {
            let body = JSONText.serialize(["error": error.description, "path": error.path])
            return .text(422, body + "\n", contentType: "application/json")
        } catch {
            metrics.increment("kiln_renders_failed_total")
            return .text(422, "render failed: \(error)\n")
        }
    }
}

/// One session's scene: the current document and the renderer holding its layer cache.
/// Lives on the session (`LiveSession.scene`), so it goes away with the connection.
final class SceneSessionState: @unchecked Sendable {
    let lock = NSLock()
    var document: SceneDocument?
    /// A render of this scene is queued or running (`requestSceneRender`): one at a time.
    var renderScheduled = false
    /// An edit arrived while a render was scheduled: draw again when it ends, answering this.
    var owedRender: (id: RequestID?, format: FrameHeader.Format)?
    /// How long the last render took: a slow scene renders on the heavy queue.
    var lastRenderSeconds = 0.0
    /// Edits waiting to be applied, in arrival order, and whether a worker is applying them.
    var pendingEdits: [(edit: SceneEdit, id: RequestID?)] = []
    var applyingEdits = false
    let renderer: SceneRenderer

    init(renderer: SceneRenderer) {
        self.renderer = renderer
    }
}

extension KilnService {
    /// The session's scene state, made on its first scene message.
    func sceneState(of session: LiveSession) -> SceneSessionState {
        session.lock.lock(); defer { session.lock.unlock() }
        if let state = session.scene { return state }
        let state = SceneSessionState(renderer: Self.makeSceneRenderer(shaders: settings.shadersDirectory, maxFrameWork: settings.maxFrameWork))
        session.scene = state
        return state
    }

    /// A renderer for scenes from the network: libraries and PNGs only by plain file name
    /// from the shaders folder; one render thread per frame (workers run frames side by side).
    static func makeSceneRenderer(shaders: String?, maxFrameWork: Int = ServerSettings().maxFrameWork) -> SceneRenderer {
        var limits = RenderLimits.default
        limits.maxFrameWork = maxFrameWork      // per layer draw
        let renderer = SceneRenderer(libraries: CompilingLibraryProvider(),
                                     baseDirectory: URL(fileURLWithPath: shaders ?? "shaders", isDirectory: true), threads: 1,
                                     renderLimits: limits)
        renderer.allowsSubpaths = false
        return renderer
    }
}
