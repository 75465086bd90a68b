import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnWebSockets

/// The live protocol's client messages (docs/protocol.md). Everything here runs on the
/// service thread: parse, validate, update session state, enqueue work.
extension KilnService {
    func handleText(_ text: String, session: LiveSession) {
        guard text.first(where: { !$0.isWhitespace }) == "{" else {
            // The seed client: raw shader source in, library (or diagnostics) out.
            compile([SourceFile(name: "shader.metal", text: text)], session: session, id: nil, seed: true)
            return
        }
        guard let message = JSON.object(text) else {
            sendError(session, id: nil, code: "bad_json", "message is not a JSON object")
            return
        }
        let id = message["id"]
        guard let type = message["type"] as? String else {
            sendError(session, id: id, code: "bad_request", "message has no \"type\"")
            return
        }
        switch type {
        case "compile": handleCompile(message, session: session, id: id)
        case "preview.start": handlePreview(message, session: session, id: id, start: true)
        case "preview.update": handlePreview(message, session: session, id: id, start: false)
        case "preview.stop": handleStop(session: session, id: id)
        case "clock": handleClock(message, session: session, id: id)
        case "content.upload": handleUploadRequest(message, session: session, id: id)
        case "ping": send(session, ["type": "pong", "id": id ?? NSNull()])
        case "scene.set", "layer.add", "layer.update", "layer.remove": _ = handleSceneMessage(type, message, session: session, id: id)
        default: sendError(session, id: id, code: "unknown_type", "unknown message type \"\(type)\"")
        }
    }

    func handleBinary(_ bytes: [UInt8], session: LiveSession) {
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            sendError(session, id: nil, code: "bad_request", "binary messages must be PNG content uploads")
            return
        }
        session.lock.lock()
        let slot = session.pendingUploadSlot
        let id = session.pendingUploadID
        session.pendingUploadSlot = "content"
        session.pendingUploadID = nil
        session.lock.unlock()
        let maxSide = settings.maxUploadSide
        workers.submit(.urgent) { [self] in
            do {
                let content = try renderer.decodeContent(png: bytes, maxSide: maxSide)
                session.lock.lock()
                session.uploads[slot] = content
                if slot == "content" { session.preview?.contentName = "upload" } else { session.preview?.content2Name = "upload" }
                session.renderFailed = false
                session.nextFrameDue = 0
                session.lock.unlock()
                wakeScheduler()
                send(session, ["type": "content.uploaded", "id": id ?? NSNull(), "slot": slot,
                               "width": content.width, "height": content.height])
            } catch {
                sendError(session, id: id, code: "bad_image", "\(error)")
            }
        }
    }

    // MARK: compile

    private func handleCompile(_ message: [String: Any], session: LiveSession, id: Any?) {
        var files: [SourceFile] = []
        if let source = message["source"] as? String {
            files.append(SourceFile(name: (message["name"] as? String) ?? "shader.metal", text: source))
        }
        if let extra = message["files"] as? [[String: Any]] {
            for file in extra {
                guard let name = file["name"] as? String, let text = file["text"] as? String else {
                    sendError(session, id: id, code: "bad_request", "each of \"files\" needs \"name\" and \"text\"")
                    return
                }
                files.append(SourceFile(name: name, text: text))
            }
        }
        guard !files.isEmpty else {
            sendError(session, id: id, code: "bad_request", "compile needs \"source\" or \"files\"")
            return
        }
        compile(files, session: session, id: id, seed: false)
    }

    func compile(_ files: [SourceFile], session: LiveSession, id: Any?, seed: Bool) {
        guard session.takeCompileToken(rate: settings.compilesPerSecond, now: monotonicSeconds()) else {
            sendError(session, id: id, code: "rate_limited",
                      "more than compilesPerSecond = \(settings.compilesPerSecond) compiles per second")
            return
        }
        workers.submit(.urgent) { [self] in
            let (shader, hit) = cache.compile(files)
            metrics.increment("kiln_compiles_total")
            if hit { metrics.increment("kiln_compile_cache_hits_total") }
            if !shader.succeeded { metrics.increment("kiln_compile_errors_total") }
            if shader.succeeded {
                session.lock.lock()
                session.shader = shader
                session.generation += 1
                session.renderFailed = false
                session.nextFrameDue = 0
                session.lock.unlock()
                wakeScheduler()
            }
            if seed {
                if let bytes = shader.libraryBytes {
                    session.connection.send(.binary(bytes))
                } else {
                    var object = CompileReport.object(result: shader.result, libraryBytes: shader.libraryBytes)
                    object["type"] = "compiled"
                    send(session, object)
                }
                return
            }
            var object = CompileReport.object(result: shader.result, libraryBytes: shader.libraryBytes)
            object["type"] = "compiled"
            object["cached"] = hit
            if let id { object["id"] = id }
            send(session, object)
            if let bytes = shader.libraryBytes { session.connection.send(.binary(bytes)) }
        }
    }

    // MARK: preview

    private func handlePreview(_ message: [String: Any], session: LiveSession, id: Any?, start: Bool) {
        session.lock.lock()
        defer { session.lock.unlock() }
        guard start || session.preview != nil else {
            sendError(session, id: id, code: "no_preview", "preview.update before preview.start")
            return
        }
        var preview = session.preview ?? PreviewSettings(
            function: "", width: settings.defaultPreviewSize, height: settings.defaultPreviewSize,
            contentName: session.uploads["content"] != nil ? "upload" : "rainbow",
            content2Name: session.uploads["content2"] != nil ? "upload" : "checker", arguments: [:], fps: settings.defaultFPS,
            format: .rgba8, requestID: id)
        if let function = message["function"] as? String { preview.function = function }
        if let size = message["size"] {
            guard let (width, height) = parseSize(size) else {
                sendError(session, id: id, code: "bad_request", "size must be [width, height] or \"WxH\"")
                return
            }
            guard width <= settings.maxPreviewSide, height <= settings.maxPreviewSide else {
                sendError(session, id: id, code: "too_large",
                          "preview \(width)x\(height) exceeds maxPreviewSide = \(settings.maxPreviewSide)")
                return
            }
            preview.width = width
            preview.height = height
        }
        if let content = message["content"] as? String { preview.contentName = content }
        if let content2 = message["content2"] as? String { preview.content2Name = content2 }
        if let fps = message["fps"] {
            guard let value = (fps as? NSNumber)?.doubleValue, value > 0, value.isFinite else {
                sendError(session, id: id, code: "bad_request", "fps must be a positive number")
                return
            }
            preview.fps = min(value, settings.maxFPS)
        }
        if let format = message["format"] as? String {
            guard let parsed = ["rgba8": FrameHeader.Format.rgba8, "png": .png][format] else {
                sendError(session, id: id, code: "bad_request", "format must be \"rgba8\" or \"png\"")
                return
            }
            preview.format = parsed
        }
        if let arguments = message["args"] {
            guard let dictionary = arguments as? [String: Any] else {
                sendError(session, id: id, code: "bad_request", "args must be an object of name: value")
                return
            }
            for (name, value) in dictionary {
                if value is NSNull { preview.arguments[name] = nil; continue }
                guard let floats = JSON.floats(value) else {
                    sendError(session, id: id, code: "bad_request", "argument \"\(name)\" must be a number, an array of numbers or a color")
                    return
                }
                preview.arguments[name] = floats
            }
        }
        if start { preview.requestID = id }
        if preview.function.isEmpty, let first = session.shader?.result.library?.functions.first(where: { $0.kind != .vertex }) {
            preview.function = first.name
        }
        if start { session.clock = PreviewClock(playing: true, speed: session.clock.speed, base: 0, anchor: monotonicSeconds()) }
        session.preview = preview
        session.renderFailed = false
        session.nextFrameDue = 0
        if start { send(session, ["type": "preview.started", "id": id ?? NSNull(), "function": preview.function,
                                  "size": [preview.width, preview.height], "fps": preview.fps]) }
        wakeScheduler()
    }

    private func handleStop(session: LiveSession, id: Any?) {
        session.lock.lock()
        session.preview = nil
        session.lock.unlock()
        send(session, ["type": "preview.stopped", "id": id ?? NSNull()])
    }

    private func handleClock(_ message: [String: Any], session: LiveSession, id: Any?) {
        let now = monotonicSeconds()
        session.lock.lock()
        session.clock.rebase(at: now)
        var problem: String?
        switch message["action"] as? String {
        case "play": session.clock.playing = true
        case "pause": session.clock.playing = false
        case "seek":
            if let time = (message["time"] as? NSNumber)?.doubleValue, time.isFinite { session.clock.base = time } else { problem = "seek needs a finite \"time\"" }
        case "speed":
            if let speed = (message["speed"] as? NSNumber)?.doubleValue, speed.isFinite, abs(speed) <= 100 { session.clock.speed = speed } else { problem = "speed must be a number in -100...100" }
        default: problem = "clock action must be play, pause, seek or speed"
        }
        let time = session.clock.time(at: now)
        let playing = session.clock.playing
        session.nextFrameDue = 0
        session.lock.unlock()
        if let problem { sendError(session, id: id, code: "bad_request", problem); return }
        send(session, ["type": "clock", "id": id ?? NSNull(), "time": time, "playing": playing])
        wakeScheduler()
    }

    private func handleUploadRequest(_ message: [String: Any], session: LiveSession, id: Any?) {
        let slot = (message["slot"] as? String) ?? "content"
        guard slot == "content" || slot == "content2" else {
            sendError(session, id: id, code: "bad_request", "slot must be \"content\" or \"content2\"")
            return
        }
        if let base64 = message["png"] as? String {
            guard let data = Data(base64Encoded: base64) else {
                sendError(session, id: id, code: "bad_request", "png must be base64")
                return
            }
            session.lock.lock()
            session.pendingUploadSlot = slot
            session.pendingUploadID = id
            session.lock.unlock()
            handleBinary(Array(data), session: session)
            return
        }
        session.lock.lock()
        session.pendingUploadSlot = slot
        session.pendingUploadID = id
        session.lock.unlock()
    }

    func parseSize(_ value: Any) -> (Int, Int)? {
        var width = 0, height = 0
        if let pair = value as? [Any], pair.count == 2, let w = (pair[0] as? NSNumber)?.intValue, let h = (pair[1] as? NSNumber)?.intValue {
            width = w; height = h
        } else if let text = value as? String {
            let parts = text.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { return nil }
            width = w; height = h
        } else {
            return nil
        }
        return width > 0 && height > 0 ? (width, height) : nil
    }
}
