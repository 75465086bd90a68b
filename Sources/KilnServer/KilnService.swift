import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnWebSockets

/// The Kiln server: the WebSocket live protocol (docs/protocol.md), the seed client, and
/// the HTTP API, over a `WebSocketServer`. Delegate callbacks arrive on the service
/// thread and only parse and enqueue; compiles and renders run on `workers`.
public final class KilnService: WebSocketServerDelegate, @unchecked Sendable {
    public let settings: ServerSettings
    public let metrics = Metrics()
    public let cache: CompileCache
    let renderer: PreviewRenderer
    let workers: WorkerPool
    private(set) var server: WebSocketServer?

    let sessionsLock = NSLock()
    var sessions: [Int: LiveSession] = [:]
    /// Round-robin order of sessions for frame scheduling.
    var scheduleOrder: [Int] = []
    var schedulerThread: Thread?
    let schedulerWake = NSCondition()
    var stopping = false

    public init(settings: ServerSettings, renderer: PreviewRenderer) {
        var settings = settings
        settings.maxPreviewSide = min(settings.maxPreviewSide, ServerSettings.absoluteMaxPreviewSide)
        self.settings = settings
        self.renderer = renderer
        self.cache = CompileCache(capacity: settings.compileCacheEntries)
        self.workers = WorkerPool(threads: settings.workerThreads)
    }

    /// Binds the port and starts serving; returns once listening.
    public func start() throws {
        var transport = settings.transport
        transport.staticDirectory = settings.publicDirectory
        transport.httpRoutes = ["/compile", "/render", "/shaders", "/scenes", "/healthz", "/metrics"]
        let server = WebSocketServer(configuration: transport, delegate: self)
        try server.start()
        self.server = server
        let thread = Thread { [self] in schedulerLoop() }
        thread.name = "kiln-frames"
        schedulerThread = thread
        thread.start()
    }

    /// The bound port.
    public var port: Int { server?.port ?? 0 }

    /// Graceful stop: close 1001 to every client, finish, join the threads.
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
        sessionsLock.unlock()
    }

    /// Live session objects (tests check this returns to 0).
    public var sessionCount: Int {
        sessionsLock.lock(); defer { sessionsLock.unlock() }
        return sessions.count
    }

    // MARK: - WebSocketServerDelegate

    public func shouldAcceptWebSocket(path: String, query: [String: String], headers: [String: String]) -> Int? {
        guard path == "/" || path == "/live" else { return 404 }
        if !authorized(query: query, headers: headers) { return 401 }
        if let origin = headers["origin"], !settings.allowedOrigins.isEmpty, !settings.allowedOrigins.contains(origin) {
            return 403
        }
        return nil
    }

    func authorized(query: [String: String], headers: [String: String]) -> Bool {
        guard let token = settings.token else { return true }
        if query["token"] == token { return true }
        if let value = headers["authorization"], value == "Bearer \(token)" { return true }
        return false
    }

    public func webSocketOpened(_ connection: WebSocketConnection) {
        let session = LiveSession(connection: connection, compilesPerSecond: settings.compilesPerSecond, now: monotonicSeconds())
        sessionsLock.lock()
        sessions[connection.id] = session
        scheduleOrder.append(connection.id)
        let count = sessions.count
        sessionsLock.unlock()
        metrics.increment("kiln_connections_total")
        metrics.set("kiln_connections", Double(count))
    }

    public func webSocketClosed(_ connection: WebSocketConnection) {
        sessionsLock.lock()
        sessions[connection.id] = nil
        scheduleOrder.removeAll { $0 == connection.id }
        let count = sessions.count
        sessionsLock.unlock()
        metrics.set("kiln_connections", Double(count))
    }

    public func webSocket(_ connection: WebSocketConnection, received message: WebSocketMessage) {
        sessionsLock.lock()
        let session = sessions[connection.id]
        sessionsLock.unlock()
        guard let session else { return }
        switch message {
        case .text(let text): handleText(text, session: session)
        case .binary(let bytes): handleBinary(bytes, session: session)
        }
    }

    // MARK: - Replies

    func send(_ session: LiveSession, _ object: [String: Any]) {
        session.connection.send(.text(JSONText.serialize(object)))
    }

    /// An error scoped to one request; the connection stays open.
    func sendError(_ session: LiveSession, id: Any?, code: String, _ message: String) {
        metrics.increment("kiln_protocol_errors_total")
        var object: [String: Any] = ["type": "error", "code": code, "message": message]
        if let id { object["id"] = id }
        send(session, object)
    }
}
