/// Settings of a `WebSocketServer`. Every limit is a named setting with a safe default;
/// `kiln serve` exposes each as a flag.
public struct ServerConfiguration: Sendable {
    /// Interface to bind. `127.0.0.1` by default; `0.0.0.0` exposes the server.
    /// (libwebsockets 4.1 binds *all* interfaces for `127.0.0.1` unless IPv6 is disabled,
    /// so the server disables IPv6 for IPv4 literals; see docs/server.md.)
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free port (read it back from `WebSocketServer.port`).
    public var port: Int = 8080
    /// Directory served at `/` (index.html by default); nil serves no static files.
    public var staticDirectory: String?
    /// Path prefixes handled by the delegate's `handle(_:)` (e.g. `/compile`, `/render`).
    public var httpRoutes: [String] = []
    /// PEM certificate and key: when both are set the port speaks TLS (https/wss).
    public var tlsCertificatePath: String?
    public var tlsPrivateKeyPath: String?
    /// Largest WebSocket message or HTTP request body accepted, in bytes. Larger WebSocket
    /// messages close the connection with 1009; larger bodies get HTTP 413.
    public var maxMessageBytes: Int = 1 << 20
    /// Most simultaneous WebSocket connections; more are refused at the handshake (HTTP 503).
    public var maxConnections: Int = 1024
    /// Longest request target (path and query) answered; a longer one gets 414.
    public var maxURLBytes: Int = 8192
    /// Most bytes of request header fields (after the request line); more gets 431.
    public var maxHeaderBytes: Int = 16384
    /// Most request header fields; more gets 431.
    public var maxHeaderFields: Int = 100
    /// Seconds a new connection may take to send its request head; then 408 (or, if it
    /// sent nothing, a plain close).
    public var headerTimeoutSeconds: Double = 10
    /// Most connections still sending their request head at once; more get 503 at once.
    /// Bounds what silent and dribbling clients hold (a descriptor and its socket buffer
    /// each: the front door peeks at the head and leaves it in the kernel until judged).
    public var maxWaitingConnections: Int = 256
    /// Seconds of silence before the server pings a WebSocket client, and before it hangs up.
    public var pingIntervalSeconds: Int = 30
    public var idleTimeoutSeconds: Int = 60
    /// Most payload bytes queued for one connection. A droppable message (a preview frame)
    /// that would go past it is not sent; a reply that would is taken as a client that has
    /// stopped reading, which is closed with 1008. One message is always accepted into an
    /// empty queue, whatever its size (the largest frame is bounded by the preview size).
    public var maxQueuedBytes: Int = 64 << 20
    /// Bytes written per WebSocket write (one frame fragment).
    public var writeChunkBytes: Int = 65536
    /// Upper bound on file descriptors libwebsockets preallocates tables for.
    public var fileDescriptorLimit: Int = 4096
    /// Print libwebsockets' errors and warnings to stderr.
    public var libraryLogging: Bool = false

    public init() {}

    /// True when both TLS files are set.
    public var usesTLS: Bool { tlsCertificatePath != nil && tlsPrivateKeyPath != nil }
}
