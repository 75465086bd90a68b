/// What a `WebSocketServer` asks of the application. Every method is called on the
/// service thread and must return quickly: hand compiles and renders to workers and
/// answer later through `WebSocketConnection.send` / `HTTPRequest.respond`.
public protocol WebSocketServerDelegate: AnyObject, Sendable {
    /// Decides on a WebSocket handshake: return nil to accept, or an HTTP status (401, 403,
    /// 404, 503) to refuse it. `headers` holds lowercased `authorization` and `origin`.
    func shouldAcceptWebSocket(path: String, query: [String: String], headers: [String: String]) -> Int?
    func webSocketOpened(_ connection: WebSocketConnection)
    func webSocket(_ connection: WebSocketConnection, received message: WebSocketMessage)
    func webSocketClosed(_ connection: WebSocketConnection)
    /// An HTTP request on one of `ServerConfiguration.httpRoutes`, body complete.
    func handle(_ request: HTTPRequest)
}
