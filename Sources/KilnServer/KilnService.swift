import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnRender
import KilnStorage
import KilnWebSockets

/// The Kiln server: the live protocol (docs/protocol.md), the seed client, and the HTTP
/// API. The protocol's logic is socket-free: a session is opened with a `ReplySink`, fed
/// messages with `receive`, and answers through the sink (tests do exactly that); the
/// WebSocket transport is an adapter over it (`KilnService+WebSocket.swift`). Messages
/// arrive on the service thread and are only decoded and enqueued there; compiles and
/// renders run on `workers`.
public final class KilnService: @unchecked Sendable {
    public let settings: ServerSettings
    public let metrics = Metrics()
    public let cache: CompileCache
    let renderer: PreviewRenderer
    /// Shared states and content (permalinks); nil: sharing is off.
    let store: ShareStore?
    let workers: WorkerPool
    let contentMemory: ContentMemory
    private(set) var server: WebSocketServer?

    let sessionsLock = NSLock()
    var sessions: [Int: LiveSession] = [:]
    var nextSessionID = 1
    /// The session of each open WebSocket connection (by connection id).
    var connectionSessions: [Int: Int] = [:]
    /// Round-robin order of sessions for frame scheduling.
    var scheduleOrder: [Int] = []
    /// Live sessions by watch token (`KilnService+Watch.swift`), guarded by `sessionsLock`.
    var watchTokens: [String: LiveSession] = [:]
    var schedulerThread: Thread?
    let schedulerWake = NSCondition()
    var stopping = false
    /// Set by `beginDraining` (guarded by `sessionsLock`).
    var drainingFlag = false

    public init(settings: ServerSettings, renderer: PreviewRenderer, store: ShareStore? = nil) {
        self.store = store
        var settings = settings
        settings.maxPreviewSide = min(settings.maxPreviewSide, ServerSettings.absoluteMaxPreviewSide)
        // Content is drawn at the preview's size at most, so a larger upload only costs memory.
        settings.maxUploadSide = min(settings.maxUploadSide, settings.maxPreviewSide)
        settings.compilesPerSecond = settings.compilesPerSecond.isFinite ? max(0.01, settings.compilesPerSecond) : 20
        self.settings = settings
        self.renderer = renderer
        self.cache = CompileCache(capacity: settings.compileCacheEntries)
        self.workers = WorkerPool(threads: settings.workerThreads, niceness: settings.workerNiceness)
        TileScheduler.workerNiceness.store(settings.workerNiceness, ordering: .relaxed)
        self.contentMemory = ContentMemory(limit: settings.maxContentBytes)
    }

    /// Binds the port and starts serving; returns once listening.
    public func start() throws {
        var transport = settings.transport
        transport.staticDirectory = settings.publicDirectory
        transport.httpRoutes = ["/compile", "/render", "/check", "/share", "/s", "/w", "/content", "/history", "/shaders", "/scenes",
                                "/healthz", "/metrics"]
        let server = WebSocketServer(configuration: transport, delegate: self)
        try server.start()
        self.server = server
        startScheduling()
    }

    /// Starts the frame scheduler without any socket (`start` does this too): for driving
    /// sessions directly through `openSession` / `receive`.
    public func startScheduling() {
        guard schedulerThread == nil else { return }
        let thread = Thread { [self] in schedulerLoop() }
        thread.name = "kiln-frames"
        schedulerThread = thread
        thread.start()
    }

    /// The bound port.
    public var port: Int { server?.port ?? 0 }

    /// Graceful stop: close 1001 to every client, finish, join the threads.
    /// Starts draining before a stop: `/healthz` answers 503 `draining` (a load balancer's
    /// health check takes the instance out) and new WebSocket connections are refused with
    /// 503, while the sessions already open keep working until `stop` closes them with
    /// 1001 — after which the page reconnects, through the balancer, to another instance.
    public func beginDraining() {
        sessionsLock.lock()
        drainingFlag = true
        sessionsLock.unlock()
        metrics.set("kiln_draining", 1)
    }

    /// True once `beginDraining` was called.
    public var isDraining: Bool {
        sessionsLock.lock(); defer { sessionsLock.unlock() }
        return drainingFlag
    }

    public func stop() {
        schedulerWake.lock()
        stopping = true
        schedulerWake.broadcast()
        schedulerWake.unlock()
        server?.stop()
        workers.shutdown()
        sessionsLock.lock()
        sessions.removeAll()
        scheduleOrder.removeAll()
        connectionSessions.removeAll()
        sessionsLock.unlock()
    }

    /// Live session objects (tests check this returns to 0).
    public var sessionCount: Int {
        sessionsLock.lock(); defer { sessionsLock.unlock() }
        return sessions.count
    }

    // MARK: - Sessions, without sockets

    /// Opens a live session whose replies go to `sink`; returns its id for `receive`.
    public func openSession(_ sink: ReplySink, address: String = "local") -> Int {
        let session = LiveSession(sink: sink, address: address, compilesPerSecond: settings.compilesPerSecond, now: monotonicSeconds())
        sessionsLock.lock()
        let id = nextSessionID
        nextSessionID += 1
        sessions[id] = session
        scheduleOrder.append(id)
        let count = sessions.count
        sessionsLock.unlock()
        metrics.increment("kiln_connections_total")
        metrics.set("kiln_connections", Double(count))
        return id
    }

    /// Ends a session: its queued compiles and frames are dropped as they come up.
    public func closeSession(_ id: Int) {
        sessionsLock.lock()
        if let closing = sessions[id] {
            closing.lock.lock()
            closing.frameCancellation.cancel()
            closing.closed = true
            closing.uploads.removeAll()
            closing.builtinCache.removeAll()
            closing.lock.unlock()
            _ = contentMemory.set(closing, bytes: 0)
        }
        let closed = sessions.removeValue(forKey: id)
        scheduleOrder.removeAll { $0 == id }
        let count = sessions.count
        sessionsLock.unlock()
        if let closed { endWatching(closed) }
        metrics.set("kiln_connections", Double(count))
    }

    /// Handles one text message of a session (a JSON protocol message or seed source).
    public func receive(text: String, session id: Int) {
        guard let session = session(id) else { return }
        let limits = ClientRequest.Limits(maxPreviewSide: settings.maxPreviewSide, maxFPS: settings.maxFPS)
        handle(ClientRequest.decode(text: text, limits: limits), session: session)
    }

    /// Handles one binary message of a session (a PNG upload).
    public func receive(binary bytes: [UInt8], session id: Int) {
        guard let session = session(id) else { return }
        handle(ClientRequest.decode(binary: bytes), session: session)
    }

    func session(_ id: Int) -> LiveSession? {
        sessionsLock.lock(); defer { sessionsLock.unlock() }
        return sessions[id]
    }

    // MARK: - Replies

    func send(_ session: LiveSession, _ message: ServerMessage) {
        session.sink.send(.message(message))
    }

    /// An error scoped to one request; the connection stays open.
    func sendError(_ session: LiveSession, id: RequestID?, _ error: ProtocolError) {
        metrics.increment("kiln_protocol_errors_total")
        send(session, .error(id: id, error))
    }
}
