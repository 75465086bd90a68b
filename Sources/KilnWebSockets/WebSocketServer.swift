import CKiln.WebSockets
import Foundation

/// A context pointer handed to the service thread.
private struct ContextHandle: @unchecked Sendable { let pointer: OpaquePointer }

/// Errors starting a server.
public struct ServerError: Error, CustomStringConvertible {
    public var description: String
}

/// A libwebsockets server: one context, one vhost, one port for HTTP and WebSocket, TLS
/// when configured, static files through an lws mount, and the application's routes
/// through `WebSocketServerDelegate`. The service thread only moves bytes; everything
/// else happens on the application's threads, which talk back through thread-safe queues
/// and `lws_cancel_service` (the one libwebsockets call that is safe from other threads).
///
/// Field notes this design follows: `docs/libwebsockets-notes.md`,
/// summarised in docs/server.md.
public final class WebSocketServer: @unchecked Sendable {
    public let configuration: ServerConfiguration
    public weak var delegate: WebSocketServerDelegate?
    /// The port actually bound (differs from the configuration when it asked for 0).
    public private(set) var port: Int = 0

    /// Bytes libwebsockets needs in front of every WebSocket payload.
    static let preamble = Int(kiln_lws_pre())

    enum Wake {
        case webSocket(WebSocketConnection)
        case http(HTTPRequest)
        /// A connection the front door accepted, with the head to read first when the front
        /// door consumed it (nil: libwebsockets reads it from the socket).
        case adopt(Int32, [UInt8]?)
    }

    // Guarded by `contextLock`: the context pointer and the wake list. Calling
    // lws_cancel_service after lws_context_destroy is a use-after-free, hence the lock.
    private let contextLock = NSLock()
    private var context: OpaquePointer?
    private var vhost: OpaquePointer?
    private var wakeList: [Wake] = []
    /// Reads plain-HTTP request heads before libwebsockets does (nil with TLS).
    private var frontDoor: FrontDoor?
    /// Set before the service thread starts and never cleared: its callbacks read it.
    var hasFrontDoor: Bool { frontDoor != nil }

    // Service-thread state.
    var connections: [Int: WebSocketConnection] = [:]
    var nextConnectionID = 1
    private var stopRequested = false
    private var shutdownDeadline: Date?
    let stateLock = NSLock()
    private var serviceThread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    // C memory libwebsockets keeps pointers to for the context's lifetime.
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var mounts: [UnsafeMutablePointer<lws_http_mount>] = []
    private var pvo: [UnsafeMutablePointer<lws_protocol_vhost_options>] = []
    private var retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>?

    public init(configuration: ServerConfiguration, delegate: WebSocketServerDelegate) {
        self.configuration = configuration
        self.delegate = delegate
    }

    deinit {
        for pointer in cStrings { free(pointer) }
        protocols?.deallocate()
        for mount in mounts { mount.deallocate() }
        for option in pvo { option.deallocate() }
        retryPolicy?.deallocate()
    }

    private func persistent(_ text: String) -> UnsafeMutablePointer<CChar> {
        let pointer = strdup(text)!
        cStrings.append(pointer)
        return pointer
    }

    /// Number of open WebSocket connections (service-thread view).
    public var connectionCount: Int {
        stateLock.lock(); defer { stateLock.unlock() }
        return connections.count
    }

    // MARK: - Lifecycle

    /// Creates the context, binds the port and starts the service thread.
    public func start() throws {
        lws_set_log_level(configuration.libraryLogging ? LLL_ERR | LLL_WARN : 0, nil)

        var contextInfo = lws_context_creation_info()
        contextInfo.options = UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS) | commonOptions
        contextInfo.user = Unmanaged.passUnretained(self).toOpaque()
        contextInfo.fd_limit_per_thread = UInt32(configuration.fileDescriptorLimit)
        // Room for the largest head the front door lets through (request line + fields).
        contextInfo.max_http_header_data = UInt16(clamping: max(32768, configuration.maxURLBytes + configuration.maxHeaderBytes + 1024))
        guard let context = lws_create_context(&contextInfo) else {
            throw ServerError(description: "libwebsockets could not create a context")
        }

        // Plain HTTP: the front door binds and reads every request head first; libwebsockets
        // listens itself only for TLS, whose bytes the front door cannot read.
        var listener: ListeningSocket?
        if !configuration.usesTLS {
            do {
                listener = try ListeningSocket.open(host: configuration.host, port: configuration.port)
            } catch {
                lws_context_destroy(context)
                throw error
            }
        }
        var vhostInfo = lws_context_creation_info()
        vhostInfo.options = commonOptions
        vhostInfo.port = listener == nil ? Int32(configuration.port) : CONTEXT_PORT_NO_LISTEN_SERVER
        vhostInfo.vhost_name = UnsafePointer(persistent("kiln"))
        vhostInfo.protocols = UnsafePointer(makeProtocols())
        vhostInfo.mounts = UnsafePointer(makeMounts())
        vhostInfo.pvo = UnsafePointer(makeDefaultProtocolOption())
        vhostInfo.retry_and_idle_policy = UnsafePointer(makeRetryPolicy())
        vhostInfo.user = Unmanaged.passUnretained(self).toOpaque()
        vhostInfo.iface = interfaceName.map { UnsafePointer(persistent($0)) }
        if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath {
            vhostInfo.ssl_cert_filepath = UnsafePointer(persistent(certificate))
            vhostInfo.ssl_private_key_filepath = UnsafePointer(persistent(key))
        }
        guard let vhost = lws_create_vhost(context, &vhostInfo) else {
            lws_context_destroy(context)
            if let listener { close(listener.descriptor) }
            throw ServerError(description: "cannot listen on \(configuration.host):\(configuration.port) (port in use or bad TLS files?)")
        }
        port = listener?.port ?? Int(lws_get_vhost_listen_port(vhost))
        contextLock.lock()
        self.context = context
        self.vhost = vhost
        contextLock.unlock()
        if let listener {
            let limits = RequestHeadLimits(maxTargetBytes: configuration.maxURLBytes, maxFieldBytes: configuration.maxHeaderBytes,
                                           maxFields: configuration.maxHeaderFields, maxBodyBytes: configuration.maxMessageBytes)
            let settings = FrontDoor.Settings(limits: limits, headTimeout: configuration.headerTimeoutSeconds,
                                              maxWaiting: configuration.maxWaitingConnections)
            let door = FrontDoor(listener: listener, settings: settings) { [weak self] descriptor, bytes in
                if let self { self.wake(.adopt(descriptor, bytes)) } else { close(descriptor) }
            }
            try door.start()
            frontDoor = door
        }

        let contextHandle = ContextHandle(pointer: context)
        let thread = Thread { [self] in serviceLoop(contextHandle.pointer) }
        thread.name = "kiln-service"
        serviceThread = thread
        thread.start()
    }

    /// Options set on both the context and the vhost: libwebsockets 4.1 reads some
    /// vhost-documented options (UTF-8 validation) from the context and TLS init from the vhost.
    private var commonOptions: UInt64 {
        var options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        if configuration.usesTLS { options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        // "127.0.0.1" with IPv6 enabled silently listens on every interface.
        if configuration.host.contains(".") { options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
        return options
    }

    /// `nil` binds every interface (`0.0.0.0` / `::`).
    private var interfaceName: String? {
        configuration.host == "0.0.0.0" || configuration.host == "::" || configuration.host.isEmpty ? nil : configuration.host
    }

    /// Stops accepting, sends close 1001 to every client, waits for them (at most
    /// `timeout` seconds) and destroys the context. Safe from any thread; returns when done.
    public func stop(timeout: TimeInterval = 2) {
        stateLock.lock()
        let alreadyStopping = stopRequested
        stopRequested = true
        shutdownDeadline = Date().addingTimeInterval(timeout)
        stateLock.unlock()
        guard serviceThread != nil else { return }
        frontDoor?.stop()
        if !alreadyStopping { cancelService() }
        finished.wait()
        finished.signal()
    }

    private func serviceLoop(_ context: OpaquePointer) {
        var closingStarted = false
        while true {
            stateLock.lock()
            let stopping = stopRequested
            let deadline = shutdownDeadline
            let remaining = connections.count
            stateLock.unlock()
            if stopping {
                if !closingStarted {
                    closingStarted = true
                    stateLock.lock()
                    let open = Array(connections.values)
                    stateLock.unlock()
                    for connection in open { connection.close(code: 1001, reason: "server shutting down") }
                    drainWakeList()
                }
                if remaining == 0 || Date() >= (deadline ?? Date()) { break }
            }
            lws_service(context, 0)
        }
        contextLock.lock()
        self.context = nil
        self.vhost = nil
        for case .adopt(let descriptor, _) in wakeList { close(descriptor) }
        wakeList.removeAll()
        contextLock.unlock()
        lws_context_destroy(context)
        stateLock.lock()
        connections.removeAll()
        stateLock.unlock()
        finished.signal()
    }

    // MARK: - Cross-thread wake-ups

    /// Asks the service thread to write for `target` (any thread).
    func wake(_ target: Wake) {
        contextLock.lock()
        defer { contextLock.unlock() }
        guard let context else {
            if case .adopt(let descriptor, _) = target { close(descriptor) }
            return
        }
        wakeList.append(target)
        lws_cancel_service(context)
    }

    private func cancelService() {
        contextLock.lock()
        defer { contextLock.unlock() }
        if let context { lws_cancel_service(context) }
    }

    /// Service thread, on LWS_CALLBACK_EVENT_WAIT_CANCELLED: wake-ups coalesce, so drain all.
    func drainWakeList() {
        contextLock.lock()
        let targets = wakeList
        let vhost = self.vhost
        wakeList.removeAll(keepingCapacity: true)
        contextLock.unlock()
        for target in targets {
            switch target {
            case .webSocket(let connection):
                connection.lock.lock()
                let wsi = connection.wsi
                connection.lock.unlock()
                if let wsi { lws_callback_on_writable(wsi) }
            case .http(let request):
                request.lock.lock()
                let wsi = request.wsi
                request.lock.unlock()
                if let wsi { lws_callback_on_writable(wsi) }
            case .adopt(let descriptor, let bytes):
                guard let vhost else { close(descriptor); continue }
                // On failure libwebsockets has closed the descriptor already, or never took it
                // (allocation failure): not closing it here risks a leak, closing it risks
                // closing a descriptor reused meanwhile, so it is left.
                if let bytes {
                    _ = bytes.withUnsafeBufferPointer { buffer in
                        buffer.withMemoryRebound(to: CChar.self) { lws_adopt_socket_vhost_readbuf(vhost, descriptor, $0.baseAddress, $0.count) }
                    }
                } else {
                    _ = lws_adopt_socket_vhost(vhost, descriptor)
                }
            }
        }
    }

    // MARK: - C tables

    private func makeProtocols() -> UnsafeMutablePointer<lws_protocols> {
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 3)
        table.initialize(repeating: lws_protocols(), count: 3)
        table[0].name = UnsafePointer(persistent("http"))
        table[0].callback = httpCallback
        table[0].per_session_data_size = MemoryLayout<UnsafeMutableRawPointer?>.size
        table[1].name = UnsafePointer(persistent("kiln"))
        table[1].callback = webSocketCallback
        table[1].per_session_data_size = MemoryLayout<UnsafeMutableRawPointer?>.size
        table[1].rx_buffer_size = 65536
        table[1].tx_packet_size = configuration.writeChunkBytes
        protocols = table
        return table
    }

    private func makeMounts() -> UnsafeMutablePointer<lws_http_mount>? {
        var chain: [UnsafeMutablePointer<lws_http_mount>] = []
        for route in configuration.httpRoutes {
            let mount = UnsafeMutablePointer<lws_http_mount>.allocate(capacity: 1)
            mount.initialize(to: lws_http_mount())
            mount.pointee.mountpoint = UnsafePointer(persistent(route))
            mount.pointee.mountpoint_len = UInt8(route.utf8.count)
            mount.pointee.origin_protocol = UInt8(LWSMPRO_CALLBACK.rawValue)
            mount.pointee.protocol = UnsafePointer(persistent("http"))
            mount.pointee.origin = UnsafePointer(persistent("http"))
            chain.append(mount)
        }
        if let directory = configuration.staticDirectory {
            let mount = UnsafeMutablePointer<lws_http_mount>.allocate(capacity: 1)
            mount.initialize(to: lws_http_mount())
            mount.pointee.mountpoint = UnsafePointer(persistent("/"))
            mount.pointee.mountpoint_len = 1
            mount.pointee.origin = UnsafePointer(persistent(directory))
            mount.pointee.def = UnsafePointer(persistent("index.html"))
            mount.pointee.origin_protocol = UInt8(LWSMPRO_FILE.rawValue)
            // Bind static requests to "http", not to the default WebSocket protocol.
            mount.pointee.protocol = UnsafePointer(persistent("http"))
            mount.pointee.extra_mimetypes = UnsafePointer(makeMimeTypes())
            chain.append(mount)
        }
        for index in chain.indices.dropLast() {
            chain[index].pointee.mount_next = UnsafePointer(chain[index + 1])
        }
        mounts = chain
        return chain.first
    }

    private func makeMimeTypes() -> UnsafeMutablePointer<lws_protocol_vhost_options>? {
        let types = [(".mjs", "text/javascript"), (".js", "text/javascript"), (".metal", "text/plain; charset=utf-8"),
                     (".json", "application/json"), (".svg", "image/svg+xml"), (".wasm", "application/wasm"),
                     (".h", "text/plain; charset=utf-8")]
        var next: UnsafeMutablePointer<lws_protocol_vhost_options>?
        for (suffix, type) in types.reversed() {
            let option = UnsafeMutablePointer<lws_protocol_vhost_options>.allocate(capacity: 1)
            option.initialize(to: lws_protocol_vhost_options())
            option.pointee.name = UnsafePointer(persistent(suffix))
            option.pointee.value = UnsafePointer(persistent(type))
            option.pointee.next = UnsafePointer(next)
            pvo.append(option)
            next = option
        }
        return next
    }

    /// `{ "kiln": { "default": "" } }`: clients that ask for no subprotocol land on the
    /// WebSocket protocol (the seed client sends none).
    private func makeDefaultProtocolOption() -> UnsafeMutablePointer<lws_protocol_vhost_options> {
        let inner = UnsafeMutablePointer<lws_protocol_vhost_options>.allocate(capacity: 1)
        inner.initialize(to: lws_protocol_vhost_options())
        inner.pointee.name = UnsafePointer(persistent("default"))
        inner.pointee.value = UnsafePointer(persistent(""))
        let outer = UnsafeMutablePointer<lws_protocol_vhost_options>.allocate(capacity: 1)
        outer.initialize(to: lws_protocol_vhost_options())
        outer.pointee.name = UnsafePointer(persistent("kiln"))
        outer.pointee.value = UnsafePointer(persistent(""))
        outer.pointee.options = UnsafePointer(inner)
        pvo.append(inner)
        pvo.append(outer)
        return outer
    }

    private func makeRetryPolicy() -> UnsafeMutablePointer<lws_retry_bo_t> {
        let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        policy.initialize(to: lws_retry_bo_t())
        policy.pointee.secs_since_valid_ping = UInt16(clamping: configuration.pingIntervalSeconds)
        policy.pointee.secs_since_valid_hangup = UInt16(clamping: configuration.idleTimeoutSeconds)
        retryPolicy = policy
        return policy
    }

    /// The server a callback belongs to.
    static func from(_ wsi: OpaquePointer?) -> WebSocketServer? {
        guard let wsi, let context = lws_get_context(wsi), let user = lws_context_user(context) else { return nil }
        return Unmanaged<WebSocketServer>.fromOpaque(user).takeUnretainedValue()
    }
}
