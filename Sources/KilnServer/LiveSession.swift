import Foundation
import KilnLanguage
import KilnRender

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
    var requestID: RequestID?
}

/// A compile waiting for the session's compile budget: only the newest is kept.
struct PendingCompile {
    var files: [SourceFile]
    var searchPaths: [String] = []
    var id: RequestID?
    var seed: Bool
    /// The page's client id: the version goes into its history when it compiles.
    var client: String? = nil
}

/// One live client's state. Everything is guarded by `lock`; workers and the scheduler
/// read snapshots. Replies go to `sink`; the session never sees a socket.
final class LiveSession: @unchecked Sendable {
    let sink: ReplySink
    /// Who the client is for quotas: its IP address (or what a trusted proxy says it is).
    let address: String
    let lock = NSLock()

    /// The last library that compiled; frames keep coming from it while edits fail.
    var shader: CompiledShader?
    /// Increases with every successful compile; renders of older generations are dropped.
    var generation = 0
    /// Cancels the frames of the current generation: replaced on every new library, and
    /// cancelled for good when the session closes, so no worker renders for nobody.
    var frameCancellation = RenderCancellation()
    /// Set when the session closes: work still running for it must not take memory again.
    var closed = false
    /// How long the session's last frame took to render (it decides the frames' queue), or
    /// what a full frame is estimated to take after a coarse one.
    var lastFrameSeconds = 0.0
    /// What a full frame costs an edit's first pixels beyond its render: its PNG encoding,
    /// if any, and its bytes through the socket (`KilnService.deliverySeconds`).
    var lastDeliverySeconds = 0.0
    /// The generation whose first frame was decided coarse or not (one per edit).
    var coarseGeneration = -1
    /// What coarse pixels cost relative to full ones, learnt from the last edit's coarse
    /// frame and the full frame after it (`KilnService.coarsePixelCost`).
    var coarsePixelCost = 1.0
    /// The last coarse frame, until the full frame of its generation has rendered.
    var lastCoarseFrame: (generation: Int, seconds: Double, stride: Int)?
    /// A coarse frame was scheduled and its full frame has not started yet.
    var fullFrameOwed = false
    /// Compiles submitted and not yet finished. While one runs, a heavy session starts no
    /// frame, so the compile (and the new library's first frame) has the cores.
    var compilesInFlight = 0
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
    /// Increases whenever the preview's settings or content change. A frame that fails
    /// after its settings were replaced (a function the new library lacks, asked for just
    /// before the client's `preview.update` named the new one) is not an error of the
    /// preview the client now has: it must neither stop the stream nor reach the client.
    var previewRevision = 0
    /// Uploaded content images by slot (`content`, `content2`).
    var uploads: [ContentSlot: PreviewContent] = [:]
    var pendingUploadSlot = ContentSlot.content
    var pendingUploadID: RequestID?
    /// Built-in content cached at the preview size.
    var builtinCache: [String: PreviewContent] = [:]
    /// The session's scene (docs/scenes.md), once it sent a scene message.
    var scene: SceneSessionState?
    /// Compile budget: a token bucket of `compilesPerSecond` tokens refilled at that rate.
    var compileTokens: Double
    var lastRefill: Double
    /// The newest compile that arrived while the budget was spent; older waiting ones are
    /// answered `superseded`. `compileTimerArmed` is true while a wake-up for it is set.
    var pendingCompile: PendingCompile?
    /// Families of `Inspection` running (a debug trace, a heatmap); the newest request of a
    /// family that arrived meanwhile waits in `pendingInspections`.
    var inspectionsInFlight: Set<String> = []
    var pendingInspections: [String: Inspection] = [:]
    var compileTimerArmed = false
    /// Numbers compiles in arrival order, so a slower older compile finishing after a newer
    /// one never replaces the newer library.
    var compileSequence = 0
    var installedCompileSequence = 0
    /// The newest compile answered (library or diagnostics): an older one finishing after it
    /// is answered `superseded`, so the last library a client receives is its newest edit's.
    /// Guarded by `answerLock`, which is held while the answer is queued so two compiles
    /// finishing at once cannot interleave their answers.
    var answeredCompileSequence = 0
    let answerLock = NSLock()

    // Watching (docs/protocol.md "Watching a live session").
    /// The editor's side: the token spectators join with (`watch`), the sessions watching,
    /// the newest source it sent (shown to a spectator who joins) and its cursor line.
    var watchToken: String?
    var spectators: [LiveSession] = []
    var watchFiles: [SourceFile] = []
    /// The scene document's JSON when the editor's latest work is a scene (`scene.set` and
    /// the layer edits), nil after a `compile`: what a spectator is shown instead of files.
    var watchScene: String?
    /// The last scene frame: a scene renders only when edited, so a spectator that joins
    /// between edits is sent this one instead of waiting for the next.
    var lastSceneFrame: (header: FrameHeader, payload: [UInt8])?
    var cursorLine: Int?
    /// The spectator's side: the session it watches. A spectator cannot edit.
    weak var watched: LiveSession?
    var isSpectator = false

    init(sink: ReplySink, address: String = "local", compilesPerSecond: Double, now: Double) {
        self.sink = sink
        self.address = address
        self.compileTokens = max(1, compilesPerSecond)
        self.lastRefill = now
    }

    /// Spends a token on a compile about to be submitted and numbers it (call with `lock`
    /// held, after `refillCompileTokens` said one is available).
    func spendCompileToken() -> Int {
        compileTokens -= 1
        compileSequence += 1
        return compileSequence
    }

    /// Refills the bucket to `now` (call with `lock` held); returns the seconds until a
    /// token is available (0 when one is).
    func refillCompileTokens(rate: Double, now: Double) -> Double {
        compileTokens = min(max(1, rate), compileTokens + (now - lastRefill) * rate)
        lastRefill = now
        return compileTokens >= 1 ? 0 : (1 - compileTokens) / rate
    }
}

/// Monotonic seconds.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
