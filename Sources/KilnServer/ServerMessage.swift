import Foundation
import KilnCompiler
import KilnJSON

/// A JSON message from the server to a live client (docs/protocol.md, "Messages from the
/// server"). `json` is the only place replies are spelled.
public enum ServerMessage: @unchecked Sendable {
    /// The outcome of a compile: `CompileReport.object`'s fields (`ok`, `diagnostics`,
    /// `functions`, `library`) plus `cached` (nil for the seed client, which never had it).
    case compiled(id: RequestID?, report: [String: Any], cached: Bool?)
    /// A compile request that was not compiled because a newer one from the same client
    /// replaced it while it waited for the compile budget.
    case superseded(id: RequestID?)
    case previewStarted(id: RequestID?, function: String, width: Int, height: Int, fps: Double)
    case previewStopped(id: RequestID?)
    case clock(id: RequestID?, time: Double, playing: Bool)
    case contentUploaded(id: RequestID?, slot: ContentSlot, width: Int, height: Int)
    case pong(id: RequestID?)
    /// The answer to `debug`: `PixelDebugReport`'s fields (docs/cli.md, `kiln debug --json`).
    case debugTrace(id: RequestID?, report: [String: Any])
    /// The answer to `heatmap`: per-pixel counts (base64 little-endian u32) and per-line totals.
    case heatmap(id: RequestID?, report: [String: Any])
    /// The answer to `share`: the permalink's id and path (`/s/<id>`).
    case shared(id: RequestID?, shareID: String)
    /// After a scene frame: its sequence number and the layer ids drawn for it.
    case sceneRendered(id: RequestID?, sequence: UInt32, drawn: [String], renderMicroseconds: Int)
    /// The answer to `watch`: the token, the spectators' link (`/w/<token>`) and how many watch.
    case watching(id: RequestID?, token: String, spectators: Int)
    /// To the editor whenever a spectator joins or leaves.
    case spectators(count: Int)
    /// The answer to `spectate`: what the editor shows now (`WatchState`).
    case spectating(id: RequestID?, state: [String: Any])
    /// To spectators when the editor's source, preview settings or cursor line change: the
    /// fields that changed.
    case watchState([String: Any])
    /// To spectators when the session they watch ended.
    case watchEnded
    case error(id: RequestID?, ProtocolError)

    /// The message's `type` field.
    public var type: String {
        switch self {
        case .compiled: "compiled"
        case .superseded: "superseded"
        case .previewStarted: "preview.started"
        case .previewStopped: "preview.stopped"
        case .clock: "clock"
        case .contentUploaded: "content.uploaded"
        case .pong: "pong"
        case .debugTrace: "debug.trace"
        case .heatmap: "heatmap"
        case .shared: "shared"
        case .sceneRendered: "scene.rendered"
        case .watching: "watching"
        case .spectators: "spectators"
        case .spectating: "spectating"
        case .watchState: "watch.state"
        case .watchEnded: "watch.ended"
        case .error: "error"
        }
    }

    /// The message as a JSON object. Replies to a request always carry `id` (null when the
    /// request had none); `compiled` and `error` carry it only when there was one, as the
    /// seed client and unsolicited errors have no request to name.
    public var object: [String: Any] {
        var object: [String: Any]
        switch self {
        case .compiled(let id, let report, let cached):
            object = report
            if let cached { object["cached"] = cached }
            if let id { object["id"] = id.json }
        case .superseded(let id):
            object = ["id": Self.echo(id)]
        case .previewStarted(let id, let function, let width, let height, let fps):
            object = ["id": Self.echo(id), "function": function, "size": [width, height], "fps": fps]
        case .previewStopped(let id), .pong(let id):
            object = ["id": Self.echo(id)]
        case .shared(let id, let shareID):
            object = ["id": Self.echo(id), "share": shareID, "url": "/s/\(shareID)"]
        case .debugTrace(let id, let report), .heatmap(let id, let report):
            object = report
            object["id"] = Self.echo(id)
        case .clock(let id, let time, let playing):
            object = ["id": Self.echo(id), "time": time, "playing": playing]
        case .contentUploaded(let id, let slot, let width, let height):
            object = ["id": Self.echo(id), "slot": slot.rawValue, "width": width, "height": height]
        case .sceneRendered(let id, let sequence, let drawn, let renderMicroseconds):
            object = ["id": Self.echo(id), "sequence": Int(sequence), "drawn": drawn, "renderMicroseconds": renderMicroseconds]
        case .watching(let id, let token, let spectators):
            object = ["id": Self.echo(id), "token": token, "url": "/w/\(token)", "spectators": spectators]
        case .spectators(let count):
            object = ["count": count]
        case .spectating(let id, let state):
            object = state
            object["id"] = Self.echo(id)
        case .watchState(let state):
            object = state
        case .watchEnded:
            object = [:]
        case .error(let id, let error):
            object = ["code": error.code.rawValue, "message": error.message]
            if let path = error.path { object["path"] = path }
            if let id { object["id"] = id.json }
        }
        object["type"] = type
        return object
    }

    /// The message as JSON text (`CompactJSON`; Foundation only for what it cannot write).
    public var json: String { CompactJSON.serialize(object) ?? JSONText.serialize(object) }

    private static func echo(_ id: RequestID?) -> Any { id?.json ?? NSNull() }
}

/// Everything the server sends a live client.
public enum Reply: Sendable {
    case message(ServerMessage)
    /// A compiled library (binary, starts with `KILNLIB\0`).
    case library([UInt8])
    /// A frame: the 32-byte header and the payload. A `droppable` frame (a preview's
    /// animation frame, which the next one replaces) may be dropped when the client reads
    /// slower than frames are made; a scene's frame answers an edit and is not droppable.
    case frame(FrameHeader, [UInt8], droppable: Bool)
}

/// Where a session's replies go: a WebSocket connection in the server, a recorder in tests.
/// Sessions never see sockets, so the protocol's logic runs without any.
public protocol ReplySink: AnyObject, Sendable {
    /// Sends or queues a reply; false when it was not sent (closed, or a frame dropped).
    @discardableResult func send(_ reply: Reply) -> Bool
    /// False once the client went away.
    var isOpen: Bool { get }
    /// Frames queued and not yet written (frame back-pressure counts these, not replies).
    var queuedFrames: Int { get }
}
