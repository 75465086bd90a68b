import Foundation
import KilnWebSockets

/// The preview clock of a session: play, pause, seek and speed, in seconds of shader time.
struct PreviewClock {
    var playing = true
    var speed = 1.0
    /// Shader time at `anchor` (monotonic seconds).
    var base = 0.0
    var anchor = 0.0

    func time(at now: Double) -> Double { playing ? base + (now - anchor) * speed : base }

    mutating func rebase(at now: Double) {
        base = time(at: now)
        anchor = now
    }
}

/// What a session previews.
struct PreviewSettings {
    var function: String
    var width: Int
    var height: Int
    var contentName: String
    var content2Name: String?
    var arguments: [String: [Float]]
    var fps: Double
    var format: FrameHeader.Format
    /// Request id of the `preview.start` that began it (errors are scoped to it).
    var requestID: Any?
}

/// One WebSocket client's state. Everything is guarded by `lock`; workers and the
/// scheduler read snapshots.
final class LiveSession: @unchecked Sendable {
    let connection: WebSocketConnection
    let lock = NSLock()

    /// The last library that compiled; frames keep coming from it while edits fail.
    var shader: CompiledShader?
    /// Increases with every successful compile; renders of older generations are dropped.
    var generation = 0
    var preview: PreviewSettings?
    var clock = PreviewClock()
    var nextFrameDue = 0.0
    /// Render jobs queued or running for this session.
    var rendering = 0
    /// Generation of the newest frame rendering; an edit may start its first frame while
    /// frames of the old library still render (they are dropped when they finish).
    var renderingGeneration = -1
    var sequence: UInt32 = 0
    /// A render error stops frames until the next compile or preview update.
    var renderFailed = false
    /// Uploaded content images by slot (`content`, `content2`).
    var uploads: [String: PreviewContent] = [:]
    var pendingUploadSlot = "content"
    var pendingUploadID: Any?
    /// Built-in content cached at the preview size.
    var builtinCache: [String: PreviewContent] = [:]
    /// The session's scene (docs/scenes.md), once it sent a scene message.
    var scene: SceneSessionState?
    /// Compile rate limit: a token bucket.
    var compileTokens: Double
    var lastRefill: Double

    init(connection: WebSocketConnection, compilesPerSecond: Double, now: Double) {
        self.connection = connection
        self.compileTokens = max(1, compilesPerSecond)
        self.lastRefill = now
    }

    /// Takes a compile token; false when the client exceeds the rate.
    func takeCompileToken(rate: Double, now: Double) -> Bool {
        lock.lock(); defer { lock.unlock() }
        compileTokens = min(max(1, rate), compileTokens + (now - lastRefill) * rate)
        lastRefill = now
        guard compileTokens >= 1 else { return false }
        compileTokens -= 1
        return true
    }
}

/// Monotonic seconds.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
