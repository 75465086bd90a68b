import ArgumentParser
import Dispatch
import Foundation
import KilnCompileTool
import KilnServer
import KilnStorage
import KilnWebSockets

/// `kiln serve`: the WebSocket + HTTP server (docs/server.md, docs/protocol.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve live compiles, preview frames, the HTTP API and the browser page.",
        discussion: """
            One port for HTTP and WebSocket (TLS with --tls-cert/--tls-key). Binds \
            127.0.0.1 unless --host says otherwise. SIGINT/SIGTERM close every client with \
            1001 and exit within 3 seconds.
            """)

    @Option(help: "Interface to bind (0.0.0.0 exposes the server).") var host = "127.0.0.1"
    @Option(help: "TCP port (0 picks a free one).") var port = 8080
    @Option(help: "Directory of the browser page.") var publicDirectory = "public"
    @Option(help: "Directory of the example shaders served at /shaders.") var shadersDirectory = "shaders"
    @Option(help: "Directory of the example scenes served at /scenes.") var scenesDirectory = "scenes"
    @Option(help: "PEM certificate for https/wss.") var tlsCert: String?
    @Option(help: "PEM private key for https/wss.") var tlsKey: String?
    @Option(help: "Require this bearer token (Authorization header or ?token=).") var token: String?
    @Option(help: "Allowed browser Origin (repeat for several; default: any).") var allowOrigin: [String] = []
    @Option(help: "Largest WebSocket message or HTTP body, in bytes.") var maxMessageBytes = 1 << 20
    @Option(help: "Most simultaneous WebSocket connections.") var maxConnections = 1024
    @Option(help: "Longest request target (path and query) answered; longer gets 414.") var maxUrlBytes = 8192
    @Option(help: "Most bytes of request header fields; more gets 431.") var maxHeaderBytes = 16384
    @Option(help: "Most request header fields; more gets 431.") var maxHeaderFields = 100
    @Option(help: "Seconds a new connection may take to send its request head (then 408).") var headerTimeout = 10.0
    @Option(help: "Most connections still sending their request head; more get 503.") var maxWaitingConnections = 256
    @Option(help: "Preview side used when a client names no size.") var defaultSize = 512
    @Option(help: "Largest preview side a client may ask for (at most 4096).") var maxPreviewSide = 2048
    @Option(help: "Frame rate used when a client names none.") var defaultFps = 30.0
    @Option(help: "Highest frame rate a client may ask for.") var maxFps = 60.0
    @Option(help: "Compiles per second per connection; edits beyond it are coalesced (the newest waits, older ones are superseded).") var compilesPerSecond = 20.0
    @Option(help: "Bytes queued for one connection: frames past it are skipped, a reply past it closes a client that stopped reading (1008).") var maxQueuedBytes = 64 << 20
    @Option(help: "Compiled libraries kept in the cache.") var cacheEntries = 256
    @Option(help: "Frames per session rendering or queued before frames are skipped.") var maxFramesInFlight = 2
    @Option(help: "Most spectators watching one live session (its read-only /w/ link).") var maxSpectators = 100
    @Option(help: "Seconds of silence before a client is pinged.") var pingInterval = 30
    @Option(help: "Seconds of silence before a client is dropped.") var idleTimeout = 60
    @Option(help: "Worker threads (0 = one per core).") var workers = 0
    @Option(help: "Tile threads per frame (0 = the cores shared among previewing sessions).") var renderThreads = 0
    @Option(help: "Nice value (0-19) of the threads that compile and render: they give way to the network thread and to whatever else wakes up on the machine; 0 keeps the server's priority.") var workerNiceness: Int32 = ServerSettings().workerNiceness
    @Option(help: "Most work one frame may do, in weighted lane-instructions (10^10 is about a second of one core).") var maxFrameWork = 10_000_000_000
    @Option(help: "A session whose last frame took longer than this many seconds renders on at most all workers but one.") var heavyFrameSeconds = 0.05
    @Option(help: "Most instructions one pixel-debugger trace records (the run completes past it).") var maxTraceSteps = 50_000
    @Option(help: "After an edit of a slow shader, first send a coarse frame (every k-th pixel) estimated to take at most this many seconds; 0 turns coarse frames off.") var coarseFrameSeconds = 0.001
    @Option(help: "Bytes all sessions together may keep in content images (uploads, built-in content); past it new images are refused.") var maxContentBytes = 8 << 30
    @Option(help: "Seconds SIGTERM/SIGINT waits for running compiles and renders before exiting anyway (a second signal exits at once).") var shutdownGrace = 2.0
    @Option(help: "Seconds between SIGTERM/SIGINT and closing the connections, while /healthz answers 503 and new connections are refused (for a load balancer to move traffic away).") var drainSeconds = 0.0
    @Option(help: "Folder of the permalink database (kiln.sqlite, created on first run); \"none\" turns sharing off.") var dataDirectory = "kiln-data"
    @Option(help: "PostgreSQL for permalinks and history instead of --data-directory, for several instances sharing one database: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&schema=…] (docs/deploy.md).") var database: String?
    @Option(help: "Seconds one permalink or history call may wait for the PostgreSQL database before the request is refused as unavailable.") var databaseTimeout = 5.0
    @Option(help: "This instance's name behind a load balancer (lowercase letters, digits, -): watch links start with it, so the balancer can send spectators to the instance holding the session (docs/deploy.md).") var instanceName: String?
    @Option(help: "Bytes one client address may store per UTC day through shares and history versions; past it sharing answers quota_exceeded (429).") var shareQuotaBytes = ServerSettings().shareQuotaBytes
    @Flag(help: "Take the client's address for quotas from the last X-Forwarded-For entry (only behind a proxy that sets it, like docker/haproxy.cfg).") var trustForwardedFor = false
    @Option(help: "Largest shared state (sources and settings) in bytes.") var maxShareBytes = StorageLimits().maxStateBytes
    @Option(help: "Largest shared content image in bytes.") var maxShareContentBytes = StorageLimits().maxContentBytes
    @Option(help: "Most versions one page's history keeps; older ones are forgotten.") var maxHistoryVersions = StorageLimits().maxVersionsPerClient
    @Flag(help: "Print libwebsockets' errors and warnings.") var verbose = false

    func validate() throws {
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard (1...ServerSettings.absoluteMaxPreviewSide).contains(maxPreviewSide) else {
            throw ValidationError("--max-preview-side must be 1...\(ServerSettings.absoluteMaxPreviewSide)")
        }
        guard (0...19).contains(workerNiceness) else { throw ValidationError("--worker-niceness must be 0...19") }
        guard shutdownGrace >= 0, shutdownGrace.isFinite else { throw ValidationError("--shutdown-grace must be a number of seconds ≥ 0") }
        if let instanceName {
            guard (1...32).contains(instanceName.count),
                  instanceName.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
                throw ValidationError("--instance-name must be 1 to 32 lowercase letters, digits and -")
            }
        }
        guard databaseTimeout > 0, databaseTimeout.isFinite, databaseTimeout <= 600 else {
            throw ValidationError("--database-timeout must be a number of seconds, above 0 and at most 600")
        }
        guard drainSeconds >= 0, drainSeconds.isFinite, drainSeconds <= 3600 else {
            throw ValidationError("--drain-seconds must be a number of seconds, 0…3600")
        }
        guard headerTimeout > 0, headerTimeout.isFinite, headerTimeout <= 3600 else {
            throw ValidationError("--header-timeout must be a number of seconds, above 0 and at most 3600")
        }
        guard maxUrlBytes + maxHeaderBytes <= 60000 else {
            throw ValidationError("--max-url-bytes + --max-header-bytes must be at most 60000 (libwebsockets' header buffer)")
        }
        guard maxMessageBytes > 0, maxConnections > 0, maxHeaderBytes > 0, maxHeaderFields > 0, maxWaitingConnections > 0, maxUrlBytes > 0, maxFramesInFlight > 0, maxSpectators > 0, maxHistoryVersions > 0, shareQuotaBytes > 0, cacheEntries > 0, maxQueuedBytes > 0,
              compilesPerSecond > 0, compilesPerSecond.isFinite, maxTraceSteps > 0 else {
            throw ValidationError("limits must be positive")
        }
    }

    var settings: ServerSettings {
        var settings = ServerSettings()
        settings.transport.host = host
        settings.transport.port = port
        settings.transport.tlsCertificatePath = tlsCert
        settings.transport.tlsPrivateKeyPath = tlsKey
        settings.transport.maxMessageBytes = maxMessageBytes
        settings.transport.maxConnections = maxConnections
        settings.transport.maxURLBytes = maxUrlBytes
        settings.transport.maxHeaderBytes = maxHeaderBytes
        settings.transport.maxHeaderFields = maxHeaderFields
        settings.transport.headerTimeoutSeconds = headerTimeout
        settings.transport.maxWaitingConnections = maxWaitingConnections
        settings.transport.maxQueuedBytes = maxQueuedBytes
        settings.transport.pingIntervalSeconds = pingInterval
        settings.transport.idleTimeoutSeconds = idleTimeout
        settings.transport.libraryLogging = verbose
        settings.publicDirectory = FileManager.default.fileExists(atPath: publicDirectory) ? publicDirectory : nil
        settings.shadersDirectory = shadersDirectory
        settings.scenesDirectory = scenesDirectory
        settings.token = token
        settings.allowedOrigins = allowOrigin
        settings.defaultPreviewSize = min(defaultSize, maxPreviewSide)
        settings.maxPreviewSide = maxPreviewSide
        settings.defaultFPS = defaultFps
        settings.maxFPS = maxFps
        settings.compilesPerSecond = compilesPerSecond
        settings.compileCacheEntries = cacheEntries
        settings.maxFramesInFlight = maxFramesInFlight
        settings.maxSpectators = maxSpectators
        settings.workerThreads = workers
        settings.workerNiceness = workerNiceness
        settings.renderThreadsPerFrame = renderThreads
        settings.maxFrameWork = maxFrameWork
        settings.heavyFrameSeconds = heavyFrameSeconds
        settings.maxTraceSteps = maxTraceSteps
        settings.coarseFrameSeconds = coarseFrameSeconds
        settings.maxContentBytes = maxContentBytes
        settings.instanceName = instanceName
        settings.shareQuotaBytes = shareQuotaBytes
        settings.trustForwardedFor = trustForwardedFor
        return settings
    }

    /// The permalink and history store: PostgreSQL with `--database`, else SQLite in
    /// `--data-directory` (nil with `--data-directory none`).
    func openStore() throws -> ShareStore? {
        var limits = StorageLimits()
        limits.maxStateBytes = maxShareBytes
        limits.maxContentBytes = maxShareContentBytes
        limits.maxVersionsPerClient = maxHistoryVersions
        if let database {
            do {
                let store = try PostgresShareStore(url: database, limits: limits, timeout: databaseTimeout)
                Console.current.line("kiln serve: permalinks and history in \(store.location)")
                return store
            } catch {
                throw CommandFailure("cannot use the PostgreSQL database: \(error) (--database postgres://USER@HOST/DATABASE)")
            }
        }
        guard dataDirectory != "none" else { return nil }
        do { return try SQLiteShareStore(directory: dataDirectory, limits: limits) } catch {
            throw CommandFailure("cannot open the permalink database in \(dataDirectory): \(error) (--data-directory DIR, or none)")
        }
    }

    func run() throws {
        var settings = self.settings
        let (connections, note) = FileDescriptorLimit.fit(connections: settings.transport.maxConnections)
        settings.transport.maxConnections = connections
        if let note { Console.current.line(note) }
        let store = try openStore()
        if store != nil { settings.dataDirectory = database == nil ? dataDirectory : nil }
        let service = KilnService(settings: settings, renderer: RenderPreview(), store: store)
        do { try service.start() } catch { throw CommandFailure("\(error)") }
        let scheme = tlsCert == nil ? "http" : "https"
        Console.current.line("kiln serve: listening on \(scheme)://\(host):\(service.port)/ (WebSocket on the same port)")
        ShutdownSignals.wait(grace: drainSeconds + shutdownGrace)
        if drainSeconds > 0 {
            service.beginDraining()
            Console.current.line("kiln serve: draining for \(drainSeconds) s (/healthz answers 503; a second signal exits now)")
            let end = Date().addingTimeInterval(drainSeconds)
            while Date() < end && service.sessionCount > 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        Console.current.line("kiln serve: shutting down")
        service.stop()
        Console.current.line("kiln serve: stopped; live sessions: \(WebSocketConnection.liveObjects)")
    }
}

/// SIGINT/SIGTERM through Dispatch sources: a plain C handler may run on any thread and
/// would not wake the service thread's poll. Kept out of `main.swift` so the handlers are
/// not inferred to be main-actor isolated (which traps when they run on the queue).
///
/// A graceful stop (after the drain, if any) closes every client and joins the workers,
/// which finish the job they are running. A compile or frame can take long (a heavy shader
/// at 2048²), so the stop is bounded: `grace` seconds after the signal (the drain included)
/// the process exits regardless, and a second signal exits at once.
enum ShutdownSignals {
    static func wait(grace: Double) {
        let queue = DispatchQueue(label: "kiln.signals")
        let received = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        let signals = SignalCount()
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if signals.increment() == 1 {
                    received.signal()
                    queue.asyncAfter(deadline: .now() + grace) {
                        Console.current.line("kiln serve: work still running \(grace) s after the signal; exiting without it")
                        exit(0)
                    }
                } else {
                    Console.current.line("kiln serve: second signal; exiting now")
                    exit(0)
                }
            }
            source.resume()
            sources.append(source)
        }
        received.wait()
    }

    /// Signals seen so far (only touched on the signal queue; a class so the handler can count).
    final class SignalCount: @unchecked Sendable {
        private var count = 0
        func increment() -> Int { count += 1; return count }
    }
}
