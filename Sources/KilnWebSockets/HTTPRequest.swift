import Foundation

/// One HTTP request routed to the delegate (`ServerConfiguration.httpRoutes`), answered
/// with `respond(_:)` from any thread, exactly once. Responses to clients that went away
/// are dropped.
public final class HTTPRequest: @unchecked Sendable {
    /// `GET`, `POST`, `OPTIONS`, …
    public let method: String
    /// The path without the query string, e.g. `/render`.
    public let path: String
    /// Decoded `?name=value` arguments.
    public let query: [String: String]
    /// Request headers the server reads (lowercased names): `authorization`, `origin`, `host`,
    /// `content-type`, `x-forwarded-for`.
    public let headers: [String: String]
    /// The IP address the request came from (a proxy's, behind one; see `x-forwarded-for`).
    public let remoteAddress: String
    /// The request body (empty for GET).
    public internal(set) var body: [UInt8] = []

    let lock = NSLock()
    /// The service thread's handle; nil once the connection closed.
    var wsi: OpaquePointer?
    var response: HTTPResponse?
    var headerSent = false
    var bytesSent = 0
    var dispatched = false
    weak var server: WebSocketServer?

    init(method: String, path: String, query: [String: String], headers: [String: String], remoteAddress: String = "") {
        self.remoteAddress = remoteAddress
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// Sends `response` (any thread; later calls are ignored).
    public func respond(_ response: HTTPResponse) {
        lock.lock()
        guard self.response == nil else { lock.unlock(); return }
        self.response = response
        let open = wsi != nil
        lock.unlock()
        if open { server?.wake(.http(self)) }
    }
}

/// An HTTP response: status, content type, extra headers and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, contentType: String, headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A UTF-8 text response.
    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }
}
