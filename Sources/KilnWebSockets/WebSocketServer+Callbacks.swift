import CKiln.WebSockets
import Foundation

// The two libwebsockets protocol callbacks. They must be C function pointers that
// capture nothing, so they find their server through the context's user pointer and
// their per-connection object through the per-session data slot (`user`), which holds
// one retained pointer.

func httpCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                  _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let server = WebSocketServer.from(wsi) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    return server.httpEvent(wsi, reason, user, input, length)
}

func webSocketCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                       _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let server = WebSocketServer.from(wsi) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    return server.webSocketEvent(wsi, reason, user, input, length)
}

/// The retained object in a per-session slot.
private func slotObject<T: AnyObject>(_ user: UnsafeMutableRawPointer?, as: T.Type) -> T? {
    guard let slot = user?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(slot).takeUnretainedValue() as? T
}

private func storeSlot(_ user: UnsafeMutableRawPointer?, _ object: AnyObject) {
    user?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee = Unmanaged.passRetained(object).toOpaque()
}

/// Releases the slot's object (if any) and clears the slot.
@discardableResult
private func releaseSlot(_ user: UnsafeMutableRawPointer?) -> AnyObject? {
    guard let pointer = user?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
          let slot = pointer.pointee else { return nil }
    pointer.pointee = nil
    return Unmanaged<AnyObject>.fromOpaque(slot).takeRetainedValue()
}

extension WebSocketServer {
    // MARK: - Headers

    func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length < 65536 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(cString: buffer)
    }

    /// `?a=1&b=2` as a dictionary (libwebsockets has already URL-decoded each fragment).
    func queryArguments(_ wsi: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        while index < 64, lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 {
            let fragment = String(cString: buffer)
            if let equals = fragment.firstIndex(of: "=") {
                result[String(fragment[..<equals])] = String(fragment[fragment.index(after: equals)...])
            } else if !fragment.isEmpty {
                result[fragment] = ""
            }
            index += 1
        }
        return result
    }

    func commonHeaders(_ wsi: OpaquePointer) -> [String: String] {
        var headers: [String: String] = [:]
        headers["authorization"] = header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION)
        headers["origin"] = header(wsi, WSI_TOKEN_ORIGIN)
        headers["host"] = header(wsi, WSI_TOKEN_HOST)
        headers["content-type"] = header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE)
        headers["content-length"] = header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH)
        headers["transfer-encoding"] = header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING)
        headers["expect"] = header(wsi, WSI_TOKEN_HTTP_EXPECT)
        headers["x-forwarded-for"] = header(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        return headers
    }

    /// The peer's IP address as text (no reverse lookup); "" when lws cannot tell.
    func peerAddress(_ wsi: OpaquePointer) -> String {
        var name = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &name, name.count) != nil else { return "" }
        return String(cString: name)
    }

    // MARK: - HTTP

    /// Static files (the libwebsockets file mount) answer GET and HEAD only: any other
    /// method gets 405 (RFC 9110 §15.5.6) instead of the file. Routes decide for themselves.
    func filterStaticMethod(_ wsi: OpaquePointer) -> Int32 {
        var uri: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        let methodIndex = Int(lws_http_get_uri_and_method(wsi, &uri, &uriLength))
        guard methodIndex >= 0, methodIndex != Int(LWSHUMETH_GET), methodIndex != Int(LWSHUMETH_HEAD),
              methodIndex != Int(LWSHUMETH_COLON_PATH), let uri else { return 0 }
        let path = String(decoding: UnsafeRawBufferPointer(start: uri, count: Int(uriLength)), as: UTF8.self)
        if configuration.httpRoutes.contains(where: { path == $0 || path.hasPrefix($0 + "/") || path.hasPrefix($0 + "?") }) {
            return 0
        }
        // 405 must say what is allowed (RFC 9110 §15.5.6): written by hand, since
        // `lws_return_http_status` takes no extra headers. The connection then closes.
        let body = Array("static files take GET and HEAD only\n".utf8)
        var buffer = [UInt8](repeating: 0, count: Self.preamble + 1024 + body.count)
        let ok: Bool = buffer.withUnsafeMutableBufferPointer { storage in
            let start = storage.baseAddress! + Self.preamble
            var cursor: UnsafeMutablePointer<UInt8>? = start
            let end = storage.baseAddress! + Self.preamble + 1024 - 1
            guard lws_add_http_common_headers(wsi, 405, "text/plain; charset=utf-8", lws_filepos_t(body.count), &cursor, end) == 0,
                  lws_add_http_header_by_name(wsi, "allow:", "GET, HEAD", 9, &cursor, end) == 0,
                  addConnectionClose(wsi, &cursor, end),
                  lws_finalize_write_http_header(wsi, start, &cursor, end) == 0 else { return false }
            let bodyStart = storage.baseAddress! + Self.preamble
            for (index, byte) in body.enumerated() { bodyStart[index] = byte }
            return lws_write(wsi, bodyStart, body.count, LWS_WRITE_HTTP_FINAL) >= 0
        }
        if !ok { lws_return_http_status(wsi, 405, "static files take GET and HEAD only") }
        return 1
    }

    /// Behind the front door a plain-HTTP connection serves one request (a head without a
    /// body arrives rewritten with `Connection: close`; `finishTransaction` closes the rest),
    /// and libwebsockets does not say so: the answer says it (RFC 9112 §9.6), so a client
    /// does not send a next request into a closing socket.
    /// True when written or not needed (TLS: libwebsockets' own keep-alive, and HTTP/2
    /// forbids the field).
    func addConnectionClose(_ wsi: OpaquePointer, _ cursor: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>) -> Bool {
        guard hasFrontDoor else { return true }
        return lws_add_http_header_by_name(wsi, "connection:", "close", 5, &cursor, end) == 0
    }

    func httpEvent(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                   _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let wsi else { return 0 }
        switch reason {
        case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
            return filterStaticMethod(wsi)
        case LWS_CALLBACK_HTTP:
            if let previous = releaseSlot(user) as? HTTPRequest { previous.detach() }
            var uri: UnsafeMutablePointer<CChar>?
            var uriLength: Int32 = 0
            let methodIndex = lws_http_get_uri_and_method(wsi, &uri, &uriLength)
            guard methodIndex >= 0, let uri else { return -1 }
            let path = String(decoding: UnsafeRawBufferPointer(start: uri, count: Int(uriLength)), as: UTF8.self)
            var method = ["GET", "POST", "OPTIONS", "PUT", "PATCH", "DELETE", "CONNECT", "HEAD"].indices.contains(Int(methodIndex))
                ? ["GET", "POST", "OPTIONS", "PUT", "PATCH", "DELETE", "CONNECT", "HEAD"][Int(methodIndex)] : "GET"
            if Int(methodIndex) == LWSHUMETH_COLON_PATH {
                method = header(wsi, WSI_TOKEN_HTTP_COLON_METHOD) ?? "GET"
            }
            let headers = commonHeaders(wsi)
            let request = HTTPRequest(method: method, path: path, query: queryArguments(wsi), headers: headers,
                                      remoteAddress: peerAddress(wsi))
            request.wsi = wsi
            request.server = self
            storeSlot(user, request)
            let target = Int(uriLength) + Int(max(0, lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS)))
            if target > configuration.maxURLBytes {
                request.respond(HTTPResponse(status: 414, contentType: "text/plain; charset=utf-8", headers: [("Connection", "close")],
                                             body: Array("request target of \(target) bytes exceeds maxURLBytes = \(configuration.maxURLBytes)\n".utf8)))
                return 0
            }
            if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                request.respond(.text(411, "chunked request bodies are not supported: send Content-Length\n"))
                return 0
            }
            // RFC 9112 §6.3: a Content-Length that is not one decimal number is an error, not
            // something to guess at (-5, abc, 2⁶⁴, or two different values joined by a comma).
            if let text = headers["content-length"],
               text.isEmpty || text.utf8.count > 18 || !text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                request.respond(HTTPResponse(status: 400, contentType: "text/plain; charset=utf-8", headers: [("Connection", "close")],
                                             body: Array("invalid Content-Length: \(text.prefix(40))\n".utf8)))
                return 0
            }
            if method == "POST", headers["content-length"] == nil, Int(methodIndex) != LWSHUMETH_COLON_PATH {
                // Without a length the body's end is unknown: its bytes would be read as the
                // next pipelined request.
                request.respond(HTTPResponse(status: 411, contentType: "text/plain; charset=utf-8", headers: [("Connection", "close")],
                                             body: Array("a request body needs Content-Length\n".utf8)))
                return 0
            }
            if let declared = headers["content-length"].flatMap(Int.init), declared > configuration.maxMessageBytes {
                request.respond(.text(413, "request body of \(declared) bytes exceeds maxMessageBytes = \(configuration.maxMessageBytes)\n"))
                return 0
            }
            if method == "POST" || method == "PUT" {
                if headers["expect"]?.lowercased() == "100-continue", Int(methodIndex) != LWSHUMETH_COLON_PATH {
                    // libwebsockets 4.1 never answers Expect: curl would wait a second.
                    var message = [UInt8](repeating: 0, count: Self.preamble) + Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                    let count = message.count - Self.preamble
                    message.withUnsafeMutableBufferPointer { buffer in
                        _ = lws_write(wsi, buffer.baseAddress! + Self.preamble, count, LWS_WRITE_HTTP)
                    }
                }
                if headers["content-length"] == nil || headers["content-length"] == "0" { dispatch(request) }
                return 0
            }
            dispatch(request)
            return 0

        case LWS_CALLBACK_HTTP_BODY:
            guard let request = slotObject(user, as: HTTPRequest.self), let input, length > 0 else { return 0 }
            if request.body.count + length > configuration.maxMessageBytes {
                request.respond(.text(413, "request body exceeds maxMessageBytes = \(configuration.maxMessageBytes)\n"))
                return 0
            }
            if request.response == nil {
                request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            return 0

        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            if let request = slotObject(user, as: HTTPRequest.self) { dispatch(request) }
            return 0

        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let request = slotObject(user, as: HTTPRequest.self) else { return 0 }
            return writeResponse(request, wsi, user)

        case LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_HTTP_DROP_PROTOCOL:
            if let request = releaseSlot(user) as? HTTPRequest { request.detach() }
            return 0

        case LWS_CALLBACK_ADD_HEADERS:
            // Static files: libwebsockets writes their header itself and asks here for more.
            guard let arguments = input?.assumingMemoryBound(to: lws_process_html_args.self) else { return 0 }
            var cursor: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(arguments.pointee.p)?.assumingMemoryBound(to: UInt8.self)
            guard let start = cursor else { return 0 }
            let end = start + Int(arguments.pointee.max_len)
            guard addConnectionClose(wsi, &cursor, end) else { return 1 }
            arguments.pointee.p = UnsafeMutableRawPointer(cursor).map { $0.assumingMemoryBound(to: CChar.self) }
            return 0

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            return 0

        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// Decides on a WebSocket upgrade while the request is still HTTP, so a refusal is a
    /// real HTTP response (401, 403, 404, 503) the client can read, not a dropped socket.
    /// Returns >0 after writing the refusal, 0 to let the upgrade proceed.
    func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let path = header(wsi, WSI_TOKEN_GET_URI) ?? "/"
        var status: Int?
        var reason = ""
        if connectionCount >= configuration.maxConnections {
            status = 503
            reason = "too many connections (maxConnections = \(configuration.maxConnections))"
        } else if let refusal = delegate?.shouldAcceptWebSocket(path: path, query: queryArguments(wsi), headers: commonHeaders(wsi)) {
            status = refusal
            reason = [401: "missing or wrong token", 403: "origin not allowed", 404: "no WebSocket endpoint here",
                      503: "not accepting new connections (the server is draining)"][refusal] ?? "refused"
        }
        guard let status else { return 0 }
        // Written by hand: lws_return_http_status answers an upgrade request with an
        // HTTP/1.0 status line, which strict WebSocket clients reject as malformed.
        let titles = [401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 503: "Service Unavailable"]
        let body = reason + "\n"
        let response = "HTTP/1.1 \(status) \(titles[status] ?? "Refused")\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + (status == 401 ? "www-authenticate: Bearer\r\n" : "")
            + "content-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n" + body
        var bytes = [UInt8](repeating: 0, count: Self.preamble) + Array(response.utf8)
        let count = bytes.count - Self.preamble
        let written = bytes.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + Self.preamble, count, LWS_WRITE_HTTP_FINAL) }
        return written < 0 ? -1 : 1
    }

    private func dispatch(_ request: HTTPRequest) {
        request.lock.lock()
        let first = !request.dispatched && request.response == nil
        request.dispatched = true
        request.lock.unlock()
        guard first else { return }
        if let delegate { delegate.handle(request) } else { request.respond(.text(503, "no handler\n")) }
    }

    /// Writes the header on the first writable callback, then the body in chunks small
    /// enough for HTTP/2 frames (16 KiB or the peer's window).
    private func writeResponse(_ request: HTTPRequest, _ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) -> Int32 {
        request.lock.lock()
        let response = request.response
        request.lock.unlock()
        guard let response else { return 0 }
        if !request.headerSent {
            request.headerSent = true
            var buffer = [UInt8](repeating: 0, count: Self.preamble + 4096)
            let ok: Bool = buffer.withUnsafeMutableBufferPointer { storage in
                let start = storage.baseAddress! + Self.preamble
                var cursor: UnsafeMutablePointer<UInt8>? = start
                let end = storage.baseAddress! + storage.count - 1
                if lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType,
                                               lws_filepos_t(response.body.count), &cursor, end) != 0 { return false }
                for (name, value) in response.headers {
                    let headerName = name.lowercased() + ":"
                    if lws_add_http_header_by_name(wsi, headerName, value, Int32(value.utf8.count), &cursor, end) != 0 { return false }
                }
                if !response.headers.contains(where: { $0.0.lowercased() == "connection" }),
                   !addConnectionClose(wsi, &cursor, end) { return false }
                return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
            }
            guard ok else { return -1 }
            // HEAD: the same header (Content-Length included), no body (RFC 9110 §9.3.2).
            if response.body.isEmpty || request.method == "HEAD" { return finishTransaction(request, wsi, user) }
            lws_callback_on_writable(wsi)
            return 0
        }
        var chunk = min(16384, response.body.count - request.bytesSent)
        let allowance = Int(lws_get_peer_write_allowance(wsi))
        if allowance >= 0 { chunk = min(chunk, allowance) }
        if chunk <= 0 { lws_callback_on_writable(wsi); return 0 }
        let isFinal = request.bytesSent + chunk == response.body.count
        var buffer = [UInt8](repeating: 0, count: Self.preamble + chunk)
        buffer.replaceSubrange(Self.preamble..., with: response.body[request.bytesSent ..< request.bytesSent + chunk])
        let written = buffer.withUnsafeMutableBufferPointer { storage in
            lws_write(wsi, storage.baseAddress! + Self.preamble, chunk, isFinal ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        if written < 0 { return -1 }
        request.bytesSent += chunk
        if isFinal { return finishTransaction(request, wsi, user) }
        lws_callback_on_writable(wsi)
        return 0
    }

    private func finishTransaction(_ request: HTTPRequest, _ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) -> Int32 {
        if let finished = releaseSlot(user) as? HTTPRequest { finished.detach() }
        // Behind the front door one request per connection: a request with a body arrives
        // with its own head, perhaps without `Connection: close`, and whatever follows it
        // has not been checked.
        if hasFrontDoor { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    // MARK: - WebSocket

    func webSocketEvent(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                        _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainWakeList()
            return 0

        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            guard let wsi else { return -1 }
            return confirmUpgrade(wsi)

        case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
            guard let wsi else { return 0 }
            return filterStaticMethod(wsi)

        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // Normally decided in HTTP_CONFIRM_UPGRADE already; this is the last line.
            guard let wsi else { return -1 }
            let path = header(wsi, WSI_TOKEN_GET_URI) ?? "/"
            let query = queryArguments(wsi)
            if connectionCount >= configuration.maxConnections {
                lws_return_http_status(wsi, 503, "too many connections (maxConnections)")
                return -1
            }
            if let status = delegate?.shouldAcceptWebSocket(path: path, query: query, headers: commonHeaders(wsi)) {
                lws_return_http_status(wsi, UInt32(status), nil)
                return -1
            }
            return 0

        case LWS_CALLBACK_ESTABLISHED:
            // The handshake headers are still attached during this callback.
            guard let wsi else { return -1 }
            stateLock.lock()
            let id = nextConnectionID
            nextConnectionID += 1
            stateLock.unlock()
            let connection = WebSocketConnection(id: id, path: header(wsi, WSI_TOKEN_GET_URI) ?? "/", query: queryArguments(wsi),
                                                 remoteAddress: peerAddress(wsi), forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR))
            connection.wsi = wsi
            connection.server = self
            storeSlot(user, connection)
            stateLock.lock()
            connections[id] = connection
            stateLock.unlock()
            delegate?.webSocketOpened(connection)
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let wsi, let connection = slotObject(user, as: WebSocketConnection.self) else { return -1 }
            if lws_is_first_fragment(wsi) != 0 {
                connection.receiveBuffer.removeAll(keepingCapacity: connection.receiveBuffer.capacity <= 1 << 16)
                connection.receiveIsBinary = lws_frame_is_binary(wsi) != 0
            }
            if connection.receiveBuffer.count + length > configuration.maxMessageBytes {
                let reason = "message exceeds maxMessageBytes = \(configuration.maxMessageBytes)"
                var bytes = Array(reason.utf8)
                lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, &bytes, bytes.count)
                return -1
            }
            if let input, length > 0 {
                connection.receiveBuffer.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            if lws_is_final_fragment(wsi) != 0 {
                let message: WebSocketMessage = connection.receiveIsBinary
                    ? .binary(connection.receiveBuffer)
                    : .text(String(decoding: connection.receiveBuffer, as: UTF8.self))
                connection.receiveBuffer.removeAll(keepingCapacity: connection.receiveBuffer.capacity <= 1 << 16)
                delegate?.webSocket(connection, received: message)
            }
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let wsi, let connection = slotObject(user, as: WebSocketConnection.self) else { return -1 }
            return writeNext(connection, wsi)

        case LWS_CALLBACK_CLOSED:
            if let connection = releaseSlot(user) as? WebSocketConnection {
                connection.lock.lock()
                let wasOpen = connection.wsi != nil
                connection.wsi = nil
                connection.outbox.removeAll()
                connection.queuedBytes = 0
                connection.queuedDroppable = 0
                connection.lock.unlock()
                stateLock.lock()
                connections[connection.id] = nil
                stateLock.unlock()
                if wasOpen { delegate?.webSocketClosed(connection) }
            }
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            releaseSlot(user)
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// One `lws_write` per writable callback, at most `writeChunkBytes`, as fragments.
    private func writeNext(_ connection: WebSocketConnection, _ wsi: OpaquePointer) -> Int32 {
        connection.lock.lock()
        if let request = connection.closeRequest {
            connection.lock.unlock()
            var bytes = Array(request.reason.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(request.code)), &bytes, bytes.count)
            return -1
        }
        guard !connection.outbox.isEmpty else { connection.lock.unlock(); return 0 }
        let pre = Self.preamble
        let offset = connection.sentOfCurrent
        let isBinary = connection.outbox[0].isBinary
        let total = connection.outbox[0].storage.count - pre
        let chunk = min(configuration.writeChunkBytes, total - offset)
        let isStart = offset == 0
        let isEnd = offset + chunk == total
        let flags = lws_write_ws_flags(Int32(isBinary ? LWS_WRITE_BINARY.rawValue : LWS_WRITE_TEXT.rawValue),
                                       isStart ? 1 : 0, isEnd ? 1 : 0)
        let written = connection.outbox[0].storage.withUnsafeMutableBufferPointer { storage in
            lws_write(wsi, storage.baseAddress! + pre + offset, chunk, lws_write_protocol(rawValue: UInt32(flags)))
        }
        if isEnd {
            let sent = connection.outbox.removeFirst()
            connection.queuedBytes -= total
            if sent.droppable { connection.queuedDroppable -= 1 }
            connection.sentOfCurrent = 0
        } else {
            connection.sentOfCurrent += chunk
        }
        let more = !connection.outbox.isEmpty || connection.closeRequest != nil
        connection.lock.unlock()
        if written < 0 { return -1 }
        if more { lws_callback_on_writable(wsi) }
        return 0
    }
}

extension HTTPRequest {
    /// The connection is gone: later responses are dropped.
    func detach() {
        lock.lock()
        wsi = nil
        lock.unlock()
    }
}
