import KilnWebSockets

/// The WebSocket transport of the live protocol: handshake checks (path, token, origin),
/// and each connection mapped to a socket-free session whose replies go back over it.
/// This is the only part of the protocol that knows about connections.
extension KilnService: WebSocketServerDelegate {
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
        let id = openSession(WebSocketReplySink(connection))
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
