import KilnWebSockets

/// The WebSocket transport of the live protocol: handshake checks (path, token, origin),
/// and each connection mapped to a socket-free session whose replies go back over it.
/// This is the only part of the protocol that knows about connections.
extension KilnService: WebSocketServerDelegate {
    public func shouldAcceptWebSocket(path: String, query: [String: String], headers: [String: String]) -> Int? {
        guard path == "/" || path == "/live" else { return 404 }
        // Draining (SIGTERM with --drain-seconds): new sessions belong on another instance.
        if isDraining { return 503 }
        if !authorized(query: query, headers: headers) { return 401 }
        if !originAllowed(headers) || !hostAllowed(headers) { return 403 }
        return nil
    }

    /// Whether a browser may use the server from the page that sent the request. Requests
    /// without `Origin` (curl, scripts, same-origin navigation) pass. With `--allow-origin`
    /// only the listed origins pass; without it only the page Kiln serves itself (the
    /// origin equals `http(s)://` + the `Host` it was reached at), so a web page a
    /// developer happens to visit cannot drive a server on localhost.
    func originAllowed(_ headers: [String: String]) -> Bool {
        guard let origin = headers["origin"] else { return true }
        if !settings.allowedOrigins.isEmpty { return settings.allowedOrigins.contains(origin) }
        guard let host = headers["host"] else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    /// A server bound to loopback answers only requests addressed to a loopback name, so a
    /// DNS-rebinding page (evil.example resolving to 127.0.0.1) is refused.
    func hostAllowed(_ headers: [String: String]) -> Bool {
        let bound = settings.transport.host
        guard ["127.0.0.1", "::1", "localhost"].contains(bound) else { return true }
        guard let host = headers["host"] else { return true }          // HTTP/1.0 clients send none
        let name: Substring
        if host.hasPrefix("[") { name = host.dropFirst().prefix { $0 != "]" } } else { name = host.prefix { $0 != ":" } }
        return ["127.0.0.1", "localhost", "::1"].contains(String(name).lowercased())
    }

    /// Who a client is for quotas: the peer's address, or with `--trust-forwarded-for` the
    /// last address in `X-Forwarded-For` — the one the proxy in front of Kiln saw (earlier
    /// entries are whatever the client wrote).
    func clientAddress(_ remote: String, forwardedFor: String?) -> String {
        if settings.trustForwardedFor, let last = forwardedFor?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
           !last.isEmpty, last.count <= 64 {
            return last
        }
        return remote.isEmpty ? "unknown" : remote
    }

    func authorized(query: [String: String], headers: [String: String]) -> Bool {
        guard let token = settings.token else { return true }
        if query["token"] == token { return true }
        if let value = headers["authorization"], value == "Bearer \(token)" { return true }
        return false
    }

    public func webSocketOpened(_ connection: WebSocketConnection) {
        let id = openSession(WebSocketReplySink(connection),
                             address: clientAddress(connection.remoteAddress, forwardedFor: connection.forwardedFor))
        sessionsLock.lock()
        connectionSessions[connection.id] = id
        sessionsLock.unlock()
    }

    public func webSocketClosed(_ connection: WebSocketConnection) {
        sessionsLock.lock()
        let id = connectionSessions.removeValue(forKey: connection.id)
        sessionsLock.unlock()
        if let id { closeSession(id) }
    }

    public func webSocket(_ connection: WebSocketConnection, received message: WebSocketMessage) {
        sessionsLock.lock()
        let id = connectionSessions[connection.id]
        sessionsLock.unlock()
        guard let id else { return }
        switch message {
        case .text(let text): receive(text: text, session: id)
        case .binary(let bytes): receive(binary: bytes, session: id)
        }
    }
}
