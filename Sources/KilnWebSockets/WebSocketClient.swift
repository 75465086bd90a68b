import CKiln.WebSockets
import Foundation

/// A WebSocket client on libwebsockets' client API, for `kiln live` and tests: connect,
/// `send`, and pull received messages with `receive(timeout:)`. Its own context and
/// service thread; messages are queued both ways, so any thread may use it.
public final class WebSocketClient: @unchecked Sendable {
    /// A parsed `ws://` / `wss://` URL.
    public struct Endpoint: Sendable, Equatable {
        public var secure: Bool
        public var host: String
        public var port: Int
        public var path: String

        /// Parses `ws://host[:port][/path]` (default port 80 / 443, path `/`).
        public init?(_ url: String) {
            let lower = url.lowercased()
            let rest: Substring
            if lower.hasPrefix("ws://") { secure = false; rest = url.dropFirst(5) } else if lower.hasPrefix("wss://") { secure = true; rest = url.dropFirst(6) } else { return nil }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let authority = rest[..<slash]
            path = slash == rest.endIndex ? "/" : String(rest[slash...])
            if let colon = authority.lastIndex(of: ":"), let value = Int(authority[authority.index(after: colon)...]) {
                host = String(authority[..<colon])
                port = value
            } else {
                host = String(authority)
                port = secure ? 443 : 80
            }
            guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        }
    }

    /// Why the connection ended or never started.
    public enum Event: Sendable, Equatable {
        case message(WebSocketMessage)
        case closed(String)
    }

    public let endpoint: Endpoint
    private let lock = NSCondition()
    private var inbox: [Event] = []
    private var outbox: [(isBinary: Bool, storage: [UInt8])] = []
    private var open = false
    private var finished = false
    private var stopRequested = false
    private var context: OpaquePointer?
    private var wsi: OpaquePointer?
    private var receiveBuffer: [UInt8] = []
    private var receiveIsBinary = false
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let maxMessageBytes: Int
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// Starts connecting to `url`; throws on a malformed URL. `headers` may carry an
    /// `Authorization` value (sent as `?token=` is simpler for lws 4.1 clients).
    public init(url: String, allowSelfSigned: Bool = false, maxMessageBytes: Int = 64 << 20) throws {
        guard let endpoint = Endpoint(url) else { throw ServerError(description: "not a ws:// or wss:// URL: \(url)") }
        self.endpoint = endpoint
        self.maxMessageBytes = maxMessageBytes
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(keep("kiln-client"))
        protocols[0].callback = clientCallback
        protocols[0].rx_buffer_size = 65536

        var info = lws_context_creation_info()
        info.port = -1 // CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        if endpoint.secure { info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        lws_set_log_level(0, nil)
        guard let context = lws_create_context(&info) else {
            protocols.deallocate()
            throw ServerError(description: "libwebsockets could not create a client context")
        }
        self.context = context

        var connect = lws_client_connect_info()
        connect.context = context
        connect.address = UnsafePointer(keep(endpoint.host))
        connect.port = Int32(endpoint.port)
        connect.path = UnsafePointer(keep(endpoint.path))
        connect.host = UnsafePointer(keep(endpoint.host))
        connect.origin = UnsafePointer(keep(endpoint.host))
        connect.protocol = nil
        connect.ietf_version_or_minus_one = -1
        connect.local_protocol_name = UnsafePointer(keep("kiln-client"))
        if endpoint.secure {
            connect.ssl_connection = Int32(LCCSCF_USE_SSL.rawValue)
            if allowSelfSigned {
                connect.ssl_connection |= Int32(LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue)
            }
        }
        if lws_client_connect_via_info(&connect) == nil {
            finish("could not connect to \(url)")
        }
        let handle = ClientContext(pointer: context)
        let thread = Thread { [self] in serviceLoop(handle.pointer) }
        thread.name = "kiln-client"
        self.thread = thread
        thread.start()
    }

    deinit {
        close()
        for pointer in cStrings { free(pointer) }
        protocols.deallocate()
    }

    private func keep(_ text: String) -> UnsafeMutablePointer<CChar> {
        let pointer = strdup(text)!
        cStrings.append(pointer)
        return pointer
    }

    /// Waits until the handshake completed; false if the connection failed or timed out.
    public func waitUntilOpen(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while !open && !finished { if !lock.wait(until: deadline) { break } }
        return open
    }

    public var isOpen: Bool { lock.lock(); defer { lock.unlock() }; return open }

    /// Queues a message for sending.
    public func send(_ message: WebSocketMessage) {
        var storage = [UInt8](repeating: 0, count: WebSocketServer.preamble)
        let isBinary: Bool
        switch message {
        case .text(let text): storage.append(contentsOf: text.utf8); isBinary = false
        case .binary(let bytes): storage.append(contentsOf: bytes); isBinary = true
        }
        lock.lock()
        guard !finished else { lock.unlock(); return }
        outbox.append((isBinary, storage))
        lock.unlock()
        wake()
    }

    /// The next message or close event, or nil after `timeout` seconds.
    public func receive(timeout: TimeInterval) -> Event? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while inbox.isEmpty { if !lock.wait(until: deadline) { return nil } }
        return inbox.removeFirst()
    }

    /// Closes the connection and stops the service thread.
    public func close() {
        lock.lock()
        let alreadyStopped = stopRequested
        stopRequested = true
        lock.unlock()
        guard !alreadyStopped, thread != nil else { return }
        wake()
        done.wait()
    }

    private func wake() {
        lock.lock(); defer { lock.unlock() }
        if let context { lws_cancel_service(context) }
    }

    private func finish(_ reason: String) {
        lock.lock()
        // The wsi is gone (or about to be) once the connection ended.
        wsi = nil
        if !finished {
            finished = true
            open = false
            inbox.append(.closed(reason))
        }
        lock.broadcast()
        lock.unlock()
    }

    private func serviceLoop(_ context: OpaquePointer) {
        while true {
            lock.lock()
            let stop = stopRequested
            lock.unlock()
            if stop { break }
            lws_service(context, 0)
        }
        lock.lock()
        self.context = nil
        lock.unlock()
        lws_context_destroy(context)
        finish("closed")
        done.signal()
    }

    fileprivate func event(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            lock.lock()
            self.wsi = wsi
            open = true
            let pending = !outbox.isEmpty
            lock.broadcast()
            lock.unlock()
            if pending, let wsi { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            finish(text)
        case LWS_CALLBACK_CLIENT_CLOSED:
            finish("server closed the connection")
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard let wsi else { return -1 }
            if lws_is_first_fragment(wsi) != 0 {
                receiveBuffer.removeAll(keepingCapacity: true)
                receiveIsBinary = lws_frame_is_binary(wsi) != 0
            }
            if receiveBuffer.count + length > maxMessageBytes { return -1 }
            if let input, length > 0 { receiveBuffer.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length)) }
            if lws_is_final_fragment(wsi) != 0 {
                let message: WebSocketMessage = receiveIsBinary ? .binary(receiveBuffer) : .text(String(decoding: receiveBuffer, as: UTF8.self))
                lock.lock()
                inbox.append(.message(message))
                lock.broadcast()
                lock.unlock()
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard let wsi else { return -1 }
            lock.lock()
            guard !outbox.isEmpty else { lock.unlock(); return 0 }
            var message = outbox.removeFirst()
            let more = !outbox.isEmpty
            lock.unlock()
            let count = message.storage.count - WebSocketServer.preamble
            let kind = message.isBinary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT
            let written = message.storage.withUnsafeMutableBufferPointer {
                lws_write(wsi, $0.baseAddress! + WebSocketServer.preamble, count, kind)
            }
            if written < count { return -1 }
            if more { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            lock.lock()
            let target = open && !outbox.isEmpty ? self.wsi : nil
            let stop = stopRequested
            let current = self.wsi
            lock.unlock()
            if stop, let current { lws_set_timeout(current, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC) }
            if let target { lws_callback_on_writable(target) }
        default:
            break
        }
        return 0
    }

    static func from(_ wsi: OpaquePointer?) -> WebSocketClient? {
        guard let wsi, let context = lws_get_context(wsi), let user = lws_context_user(context) else { return nil }
        return Unmanaged<WebSocketClient>.fromOpaque(user).takeUnretainedValue()
    }
}

private struct ClientContext: @unchecked Sendable { let pointer: OpaquePointer }

private func clientCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                            _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let client = WebSocketClient.from(wsi) else { return 0 }
    return client.event(wsi, reason, input, length)
}
