import Foundation

/// A message received from or sent to a WebSocket client.
public enum WebSocketMessage: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
}

/// One WebSocket client. `send` and `close` may be called from any thread: messages are
/// queued and written by the service thread when the socket is writable.
public final class WebSocketConnection: @unchecked Sendable {
    /// Unique within a server run.
    public let id: Int
    /// The request path of the handshake (`/`, `/live`) and its query arguments.
    public let path: String
    public let query: [String: String]
    /// The IP address the handshake came from, and its `X-Forwarded-For` header when a
    /// proxy added one (trusted only when the server is told to).
    public let remoteAddress: String
    public let forwardedFor: String?

    let lock = NSLock()
    var wsi: OpaquePointer?
    /// Outgoing messages; each stores LWS_PRE bytes of headroom before the payload.
    var outbox: [(isBinary: Bool, droppable: Bool, storage: [UInt8])] = []
    /// Payload bytes in `outbox`, and how many of its messages are droppable (frames).
    var queuedBytes = 0
    var queuedDroppable = 0
    var sentOfCurrent = 0
    var closeRequest: (code: UInt16, reason: String)?
    weak var server: WebSocketServer?

    // Receive state (service thread only).
    var receiveBuffer: [UInt8] = []
    var receiveIsBinary = false

    /// Number of live connection objects in this process (tests check it returns to 0).
    public static var liveObjects: Int { counterLock.lock(); defer { counterLock.unlock() }; return live }
    nonisolated(unsafe) static var live = 0
    static let counterLock = NSLock()

    init(id: Int, path: String, query: [String: String], remoteAddress: String = "", forwardedFor: String? = nil) {
        self.remoteAddress = remoteAddress
        self.forwardedFor = forwardedFor
        self.id = id
        self.path = path
        self.query = query
        Self.counterLock.lock(); Self.live += 1; Self.counterLock.unlock()
    }

    deinit {
        Self.counterLock.lock(); Self.live -= 1; Self.counterLock.unlock()
    }

    /// Messages queued and not yet fully written.
    public var queuedMessageCount: Int {
        lock.lock(); defer { lock.unlock() }
        return outbox.count
    }

    /// Droppable messages (frames) queued and not yet fully written.
    public var queuedDroppableCount: Int {
        lock.lock(); defer { lock.unlock() }
        return queuedDroppable
    }

    /// Payload bytes queued and not yet fully written.
    public var queuedByteCount: Int {
        lock.lock(); defer { lock.unlock() }
        return queuedBytes
    }

    /// True until the connection closed.
    public var isOpen: Bool {
        lock.lock(); defer { lock.unlock() }
        return wsi != nil
    }

    /// Queues a message. Returns false (and drops it) when the connection is closed, or when
    /// the queue would exceed `ServerConfiguration.maxQueuedBytes`. What happens then depends
    /// on what the message is: a `droppable` one (a preview frame, which the next frame
    /// replaces) is simply not sent; any other (a reply the client asked for) means the
    /// client has stopped reading, and the connection is closed with 1008. A client that
    /// reads is never closed for the number of replies it asked for: the bound is bytes.
    @discardableResult
    public func send(_ message: WebSocketMessage, droppable: Bool = false) -> Bool {
        let pre = WebSocketServer.preamble
        var storage = [UInt8](repeating: 0, count: pre)
        let isBinary: Bool
        switch message {
        case .text(let text): storage.append(contentsOf: text.utf8); isBinary = false
        case .binary(let bytes): storage.append(contentsOf: bytes); isBinary = true
        }
        lock.lock()
        guard wsi != nil, closeRequest == nil, let server else { lock.unlock(); return false }
        let size = storage.count - pre
        if queuedBytes + size > server.configuration.maxQueuedBytes, !outbox.isEmpty {
            if droppable { lock.unlock(); return false }
            closeRequest = (1008, "send queue full")
            lock.unlock()
            server.wake(.webSocket(self))
            return false
        }
        outbox.append((isBinary, droppable, storage))
        queuedBytes += size
        if droppable { queuedDroppable += 1 }
        lock.unlock()
        server.wake(.webSocket(self))
        return true
    }

    /// Closes the connection with a status code (1000 normal, 1001 going away, 1008 policy…).
    public func close(code: UInt16 = 1000, reason: String = "") {
        lock.lock()
        guard wsi != nil, closeRequest == nil, let server else { lock.unlock(); return }
        closeRequest = (code, reason)
        lock.unlock()
        server.wake(.webSocket(self))
    }
}
