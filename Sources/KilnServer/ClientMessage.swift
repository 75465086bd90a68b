import Foundation
import KilnLanguage
import KilnScene

/// A message from a live client, decoded and validated (docs/protocol.md, "Messages from
/// the client"). Everything the server accepts is one of these cases; `ClientRequest.decode`
/// is the only place that reads client JSON.
public enum ClientMessage: Sendable {
    /// `compile`: the files to compile (named by relative paths; `#include` resolves among
    /// them as clang does on disk) and the folders `#include` also searches.
    /// `client`, when given, keeps each version that compiles in that client's history.
    case compile([SourceFile], searchPaths: [String], client: String?)
    /// A text message that is not JSON: the seed client's raw source, answered with the
    /// library alone (or the diagnostics).
    case seedCompile(SourceFile)
    /// `preview.start` and `preview.update`: the fields present change the preview.
    case previewStart(PreviewChange)
    case previewUpdate(PreviewChange)
    case previewStop
    case clock(ClockAction)
    /// `content.upload`: the slot, and the PNG when it came inline (base64); otherwise the
    /// next binary message is the PNG.
    case contentUpload(slot: ContentSlot, png: [UInt8]?)
    /// A binary message: a PNG for the pending upload slot.
    case uploadBytes([UInt8])
    case ping
    /// `debug`: trace pixel (`x`, `y`) of the current preview, at `time` (the frame's,
    /// from its header) or the clock's now.
    case debug(x: Int, y: Int, time: Double?)
    /// `heatmap`: count the current preview's frame at `time` (or now), per pixel and line.
    case heatmap(time: Double?)
    /// `share`: store this state (the message's `state` object, as JSON) as a permalink.
    case share(state: Data)
    /// `watch`: make (or repeat) this session's read-only link for spectators.
    case watch
    /// `spectate`: turn this connection into a spectator of the session with `token`.
    case spectate(token: String)
    /// `cursor`: the editor's cursor line, shown to spectators.
    case cursor(line: Int)
    /// `scene.set`, `layer.add`, `layer.update`, `layer.remove`.
    case scene(SceneEdit)
}

/// The content slots a preview samples from.
public enum ContentSlot: String, Sendable {
    case content, content2
}

/// The fields of a `preview.start` / `preview.update`; nil means "leave as it is".
public struct PreviewChange: Sendable {
    public var function: String?
    public var size: (width: Int, height: Int)?
    public var content: String?
    public var content2: String?
    public var fps: Double?
    public var format: FrameHeader.Format?
    /// Argument values by name; a nil value removes the argument (JSON `null`).
    public var arguments: [String: [Float]?] = [:]

    public init() {}
}

/// What a `clock` message does.
public enum ClockAction: Sendable, Equatable {
    case play, pause
    case seek(Double)
    case speed(Double)
}

/// One scene message. The scene and layer documents stay JSON until a worker decodes them
/// (they may be up to `maxMessageBytes` long, and the service thread must stay quick).
public struct SceneEdit: @unchecked Sendable {
    public enum Kind: Sendable {
        case set
        case addLayer(SceneDocument.Placement)
        case updateLayer(id: String)
        case removeLayer(id: String)
    }
    public var kind: Kind
    /// `scene` of `scene.set`, `layer` of `layer.add`, `properties` of `layer.update`
    /// (Foundation JSON values, immutable once decoded).
    public var document: Any?
    /// Frames as PNG unless the client asked for `rgba8`.
    public var format: FrameHeader.Format
}

/// A decoded client message with the request id its replies carry.
public struct ClientRequest: Sendable {
    public var id: RequestID?
    public var message: ClientMessage

    /// What decoding checks against (the settings of `kiln serve`).
    public struct Limits: Sendable {
        public var maxPreviewSide: Int
        public var maxFPS: Double
        public init(maxPreviewSide: Int, maxFPS: Double) {
            self.maxPreviewSide = maxPreviewSide
            self.maxFPS = maxFPS
        }
    }

    /// Decodes a text message: a JSON protocol message when its first non-blank character
    /// is `{`, otherwise the seed client's shader source. A refusal carries the request id
    /// when the message got far enough to have one.
    public static func decode(text: String, limits: Limits) -> Result<ClientRequest, RequestFailure> {
        guard text.first(where: { !$0.isWhitespace }) == "{" else {
            return .success(ClientRequest(id: nil, message: .seedCompile(SourceFile(name: "shader.metal", text: text))))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            return .failure(RequestFailure(id: nil, error: ProtocolError(.badJSON, "message is not a JSON object")))
        }
        let id = object["id"].map(RequestID.init(json:))
        do {
            return .success(ClientRequest(id: id, message: try MessageDecoder(object: object, limits: limits).decode()))
        } catch let error as ProtocolError {
            return .failure(RequestFailure(id: id, error: error))
        } catch {
            return .failure(RequestFailure(id: id, error: ProtocolError(.badRequest, "\(error)")))
        }
    }

    /// Decodes a binary message: only PNG uploads are accepted.
    public static func decode(binary bytes: [UInt8]) -> Result<ClientRequest, RequestFailure> {
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            return .failure(RequestFailure(id: nil, error: ProtocolError(.badRequest, "binary messages must be PNG content uploads")))
        }
        return .success(ClientRequest(id: nil, message: .uploadBytes(bytes)))
    }
}

/// A message the server refused, and the id of its request (when it had one).
public struct RequestFailure: Error, Sendable {
    public var id: RequestID?
    public var error: ProtocolError
}

/// Reads one JSON protocol message field by field; every refusal names the field.
private struct MessageDecoder {
    let object: [String: Any]
    let limits: ClientRequest.Limits

    /// The string field `key`, nil when absent (or null); any other type is refused, naming
    /// the field, rather than silently ignored.
    func string(_ key: String) throws -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw ProtocolError(.badRequest, "\"\(key)\" must be a string") }
        return text
    }

    func decode() throws -> ClientMessage {
        guard let type = object["type"] as? String else { throw ProtocolError(.badRequest, "message has no \"type\"") }
        switch type {
        case "compile": return .compile(try files(), searchPaths: try searchPaths(), client: try string("client"))
        case "preview.start": return .previewStart(try previewChange())
        case "preview.update": return .previewUpdate(try previewChange())
        case "preview.stop": return .previewStop
        case "clock": return .clock(try clockAction())
        case "content.upload": return try contentUpload()
        case "ping": return .ping
        case "debug": return try debugRequest()
        case "heatmap": return .heatmap(time: try time())
        case "share":
            guard let state = object["state"] as? [String: Any], let data = try? JSONSerialization.data(withJSONObject: state) else {
                throw ProtocolError(.badRequest, "share needs \"state\": {\"source\" or \"files\", …}")
            }
            return .share(state: data)
        case "scene.set", "layer.add", "layer.update", "layer.remove": return .scene(try sceneEdit(type))
        case "watch": return .watch
        case "spectate":
            guard let token = try string("token"), !token.isEmpty else { throw ProtocolError(.badRequest, "spectate needs \"token\"") }
            return .spectate(token: token)
        case "cursor":
            guard let raw = object["line"], let line = raw as? Int, !JSON.isBoolean(raw), line >= 1 else {
                throw ProtocolError(.badRequest, "\"line\" must be a line number (1 or more)")
            }
            return .cursor(line: line)
        default: throw ProtocolError(.unknownType, "unknown message type \"\(type)\"")
        }
    }

    private func files() throws -> [SourceFile] {
        var files: [SourceFile] = []
        if let source = try string("source") {
            files.append(SourceFile(name: try string("name") ?? "shader.metal", text: source))
        }
        if let extra = object["files"] as? [[String: Any]] {
            for file in extra {
                guard let name = file["name"] as? String, let text = file["text"] as? String else {
                    throw ProtocolError(.badRequest, "each of \"files\" needs \"name\" and \"text\"")
                }
                files.append(SourceFile(name: name, text: text))
            }
        }
        guard !files.isEmpty else { throw ProtocolError(.badRequest, "compile needs \"source\" or \"files\"") }
        return files
    }

    private func searchPaths() throws -> [String] {
        guard let value = object["searchPaths"] else { return [] }
        guard let paths = value as? [String] else { throw ProtocolError(.badRequest, "searchPaths must be an array of folder names") }
        return paths
    }

    private func previewChange() throws -> PreviewChange {
        var change = PreviewChange()
        change.function = try string("function")
        if let size = object["size"] {
            guard let parsed = parsePreviewSize(size) else {
                throw ProtocolError(.badRequest, "size must be [width, height] or \"WxH\"")
            }
            guard parsed.width <= limits.maxPreviewSide, parsed.height <= limits.maxPreviewSide else {
                throw ProtocolError(.tooLarge, "preview \(parsed.width)x\(parsed.height) exceeds maxPreviewSide = \(limits.maxPreviewSide)")
            }
            change.size = parsed
        }
        change.content = try string("content")
        change.content2 = try string("content2")
        if let fps = object["fps"] {
            guard let value = (fps as? NSNumber)?.doubleValue, value > 0, value.isFinite else {
                throw ProtocolError(.badRequest, "fps must be a positive number")
            }
            change.fps = min(value, limits.maxFPS)
        }
        if object["format"] != nil {
            guard let format = try? string("format"), let parsed = ["rgba8": FrameHeader.Format.rgba8, "png": .png][format] else {
                throw ProtocolError(.badRequest, "format must be \"rgba8\" or \"png\"")
            }
            change.format = parsed
        }
        if let arguments = object["args"] {
            guard let dictionary = arguments as? [String: Any] else {
                throw ProtocolError(.badRequest, "args must be an object of name: value")
            }
            for (name, value) in dictionary {
                if value is NSNull { change.arguments[name] = .some(nil); continue }
                guard let floats = JSON.floats(value) else {
                    throw ProtocolError(.badRequest, "argument \"\(name)\" must be a number, an array of numbers or a color")
                }
                change.arguments[name] = floats
            }
        }
        return change
    }

    private func debugRequest() throws -> ClientMessage {
        // Whole, non-negative coordinates; the preview's size bounds them when it runs.
        func coordinate(_ value: Any) -> Int? {
            guard let number = value as? NSNumber, !JSON.isBoolean(value) else { return nil }
            let double = number.doubleValue
            guard double.rounded() == double, double >= 0, double <= Double(Int32.max) else { return nil }
            return Int(double)
        }
        guard let pair = object["pixel"] as? [Any], pair.count == 2, let x = coordinate(pair[0]), let y = coordinate(pair[1]) else {
            throw ProtocolError(.badRequest, "\"pixel\" must be [x, y], whole numbers from 0")
        }
        return .debug(x: x, y: y, time: try time())
    }

    /// The optional `time` of `debug` and `heatmap`: finite seconds.
    private func time() throws -> Double? {
        guard let value = object["time"], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, !JSON.isBoolean(value), number.doubleValue.isFinite else {
            throw ProtocolError(.badRequest, "\"time\" must be a finite number of seconds")
        }
        return number.doubleValue
    }

    private func clockAction() throws -> ClockAction {
        switch object["action"] as? String {
        case "play": return .play
        case "pause": return .pause
        case "seek":
            guard let time = (object["time"] as? NSNumber)?.doubleValue, time.isFinite else {
                throw ProtocolError(.badRequest, "seek needs a finite \"time\"")
            }
            return .seek(time)
        case "speed":
            guard let speed = (object["speed"] as? NSNumber)?.doubleValue, speed.isFinite, abs(speed) <= 100 else {
                throw ProtocolError(.badRequest, "speed must be a number in -100...100")
            }
            return .speed(speed)
        default: throw ProtocolError(.badRequest, "clock action must be play, pause, seek or speed")
        }
    }

    private func contentUpload() throws -> ClientMessage {
        let name = try string("slot") ?? "content"
        guard let slot = ContentSlot(rawValue: name) else {
            throw ProtocolError(.badRequest, "slot must be \"content\" or \"content2\"")
        }
        guard let base64 = try string("png") else { return .contentUpload(slot: slot, png: nil) }
        guard let data = Data(base64Encoded: base64) else { throw ProtocolError(.badRequest, "png must be base64") }
        let bytes = Array(data)
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw ProtocolError(.badRequest, "binary messages must be PNG content uploads")
        }
        return .contentUpload(slot: slot, png: bytes)
    }

    private func sceneEdit(_ type: String) throws -> SceneEdit {
        let format: FrameHeader.Format
        switch try string("format") {
        case nil, "png"?: format = .png
        case "rgba8"?: format = .rgba8
        default: throw ProtocolError(.badRequest, "format must be \"rgba8\" or \"png\"")
        }
        func layerID() throws -> String {
            guard let layer = object["layer"] as? String else { throw ProtocolError(SceneError(path: "layer", "expected the layer id")) }
            return layer
        }
        switch type {
        case "scene.set":
            return SceneEdit(kind: .set, document: object["scene"], format: format)
        case "layer.add":
            let placement: SceneDocument.Placement
            if let above = try string("above") {
                placement = .above(above)
            } else if let below = try string("below") {
                placement = .below(below)
            } else if let slotName = try string("slot") {
                guard let slot = SceneLayer.Slot(rawValue: slotName) else {
                    throw ProtocolError(SceneError(path: "slot", "expected \"bottom\", \"middle\" or \"top\", got \"\(slotName)\""))
                }
                placement = .slot(slot)
            } else {
                placement = .top
            }
            return SceneEdit(kind: .addLayer(placement), document: object["layer"], format: format)
        case "layer.update":
            return SceneEdit(kind: .updateLayer(id: try layerID()), document: object["properties"] ?? [String: Any](), format: format)
        default:
            return SceneEdit(kind: .removeLayer(id: try layerID()), document: nil, format: format)
        }
    }
}

/// `[width, height]` or `"WxH"`, both positive.
func parsePreviewSize(_ value: Any) -> (width: Int, height: Int)? {
    var width = 0, height = 0
    // Whole numbers in a sane range only: 1.5 or 2^64 + 1 must not become some other size.
    func side(_ value: Any) -> Int? {
        guard let number = value as? NSNumber, !JSON.isBoolean(value) else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, double >= 1, double <= Double(Int32.max) else { return nil }
        return Int(double)
    }
    if let pair = value as? [Any], pair.count == 2, let w = side(pair[0]), let h = side(pair[1]) {
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

extension ProtocolError {
    /// A scene error: `bad_scene`, with the JSON path of the offending value.
    init(_ error: SceneError) {
        self.init(.badScene, error.description, path: error.path)
    }
}
