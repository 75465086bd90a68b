import KilnWebSockets

/// Every setting of `kiln serve`, each a named flag with a safe default (docs/server.md).
public struct ServerSettings: Sendable {
    /// Transport settings: host, port, TLS, message size, connections, ping/idle timeouts.
    public var transport = ServerConfiguration()
    /// Directory of the browser page (`public/`) and of the example shaders (`shaders/`).
    public var publicDirectory: String? = "public"
    public var shadersDirectory: String? = "shaders"
    /// Directory of the example scene documents served at `/scenes`.
    public var scenesDirectory: String? = "scenes"
    /// Preview size used when a client names none, and the largest it may ask for.
    public var defaultPreviewSize = 512
    public var maxPreviewSide = 2048
    /// Hard ceiling for `maxPreviewSide` (4096²).
    public static let absoluteMaxPreviewSide = 4096
    /// Frame rate used when a client names none, and the highest it may ask for.
    public var defaultFPS = 30.0
    public var maxFPS = 60.0
    /// Compiles per second per connection (a token bucket with this rate and burst). An
    /// edit over the budget waits as the session's pending compile (only the newest waits;
    /// the one it replaces is answered `superseded`). Must be positive.
    public var compilesPerSecond = 20.0
    /// Compiled libraries kept (LRU, keyed by SHA-256 of the sources).
    public var compileCacheEntries = 256
    /// Frames in flight per session: rendering or queued, not yet written to the socket.
    public var maxFramesInFlight = 2
    /// Most spectators one live session may have (`--max-spectators`).
    public var maxSpectators = 100
    /// Worker threads for compiles and renders (0 = one per core).
    public var workerThreads = 0
    /// The nice value (0…19) of the workers and of the threads rendering a frame's tiles
    /// (`--worker-niceness`): they give way at once to the network thread and to anything
    /// else on the machine that wakes up to answer someone (`ThreadNiceness`), and still
    /// get every idle cycle. 0 leaves them at the server's priority.
    public var workerNiceness: Int32 = 10
    /// Most work one frame (a preview frame, a `/render`, one scene layer) may do, in
    /// weighted lane-instructions (`RenderLimits.maxFrameWork`); 10¹⁰ is about a second of
    /// one core, so no client holds a worker much longer than that per frame.
    public var maxFrameWork = 10_000_000_000
    /// A session whose last frame took longer than this is "heavy": its frames wait in the
    /// pool's heavy queue, which never occupies every worker (`WorkerPool`), so cheap
    /// previews keep their frame rate beside expensive ones.
    public var heavyFrameSeconds = 0.05
    /// After an edit, when the last full frame took longer than twice this (or there is
    /// none yet), the first frame is coarse — every k-th pixel of every k-th row, k the
    /// smallest power of two that brings the estimate under this many seconds (at most 16)
    /// — and the full frame follows at once. 0 turns coarse frames off.
    public var coarseFrameSeconds = 0.001
    /// Render threads per frame (tiles); 0 shares the cores among the previewing sessions
    /// (all of them for one session, one each when many preview at once).
    public var renderThreadsPerFrame = 0
    /// Required bearer token (`Authorization: Bearer …` or `?token=`), if set.
    public var token: String?
    /// Allowed `Origin` values for browser connections; empty allows any.
    public var allowedOrigins: [String] = []
    /// Memory all sessions together may keep in content images (uploads and built-in content
    /// at the preview size, 16 bytes a pixel); past it a new image is refused with a clear
    /// error. 8 GiB is 128 sessions previewing 2048² with two generated contents each.
    public var maxContentBytes = 8 << 30
    /// Largest uploaded content image, in pixels per side (never more than `maxPreviewSide`:
    /// content is drawn at the preview's size at most).
    public var maxUploadSide = 4096
    /// Most instructions one `debug` trace records (`PixelDebugger.Limits.maxSteps`); the
    /// traced batch still completes past it, so the colour stays exact.
    public var maxTraceSteps = 50_000
    /// Bytes one client address may store per UTC day through shares and history versions
    /// (`--share-quota-bytes`); past it `share` is refused with `quota_exceeded` (HTTP 429)
    /// and history stops keeping versions until the next day.
    public var shareQuotaBytes = 256 << 20
    /// Whether the client's address is the last entry of `X-Forwarded-For` (behind a proxy
    /// that adds it) rather than the connection's peer (`--trust-forwarded-for`).
    public var trustForwardedFor = false
    /// This instance's name among several behind one load balancer (`--instance-name`):
    /// the prefix of its watch links, so the balancer can route spectators to the instance
    /// holding the session. Lowercase letters, digits and `-`, at most 32; nil alone.
    public var instanceName: String?
    /// Where shared states (permalinks) and their content are kept (`kiln.sqlite` inside);
    /// nil turns sharing off. `kiln serve` defaults to `kiln-data`.
    public var dataDirectory: String?

    public init() {}
}
