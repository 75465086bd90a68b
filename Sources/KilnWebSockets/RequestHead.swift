/// The head of an HTTP/1.x request — request line and header fields — as the front door
/// (`FrontDoor`) reads it before libwebsockets sees a byte. libwebsockets 4.1's own parser
/// hangs on `CONNECT`, drops a head that overflows its buffer without a 431, and drops a
/// non-numeric `Content-Length` followed by body bytes without any status; so every plain
/// HTTP connection's head is read, checked against RFC 9112 and written again here, and
/// libwebsockets only ever parses heads this file produced.
struct RequestHead: Equatable {
    /// `GET`, `POST`, … (case-sensitive, RFC 9110 §9.1).
    var method: String
    /// The request target in origin form: `/path?query`.
    var target: String
    /// `HTTP/1.0` or `HTTP/1.1`.
    var version: String
    /// Header fields in arrival order, names as sent, values without surrounding whitespace.
    var fields: [(name: String, value: String)]

    static func == (a: RequestHead, b: RequestHead) -> Bool {
        a.method == b.method && a.target == b.target && a.version == b.version
            && a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }

    /// The first value of a field (names compare case-insensitively).
    func value(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name }?.value
    }

    /// True for a WebSocket handshake (`Upgrade: websocket`).
    var isUpgrade: Bool {
        value("upgrade")?.lowercased().contains("websocket") == true
    }

    /// The head as bytes, CRLF line ends, one space after each colon.
    func serialized() -> [UInt8] {
        var text = "\(method) \(target) \(version)\r\n"
        for field in fields { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}

/// Bounds on a request head; each is a setting of `ServerConfiguration`.
struct RequestHeadLimits {
    /// Longest request target; longer gets 414.
    var maxTargetBytes: Int
    /// Most bytes of header fields (after the request line); more gets 431.
    var maxFieldBytes: Int
    /// Most header fields; more gets 431.
    var maxFields: Int
    /// Largest declared body; larger gets 413.
    var maxBodyBytes: Int
}

/// A request the front door answers itself: status, a line of explanation, extra headers.
struct HeadRefusal: Error, Equatable {
    var status: Int
    var reason: String
    var headers: [(String, String)] = []

    static func == (a: HeadRefusal, b: HeadRefusal) -> Bool {
        a.status == b.status && a.reason == b.reason && a.headers.map(\.0) == b.headers.map(\.0) && a.headers.map(\.1) == b.headers.map(\.1)
    }

    /// The whole response: status line, headers, the reason as a text body (none for HEAD).
    func response(forHead: Bool = false) -> [UInt8] {
        let titles = [200: "OK", 400: "Bad Request", 408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
                      414: "URI Too Long", 431: "Request Header Fields Too Large", 501: "Not Implemented",
                      503: "Service Unavailable", 505: "HTTP Version Not Supported"]
        let body = reason + "\n"
        var text = "HTTP/1.1 \(status) \(titles[status] ?? "Error")\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(body.utf8.count)\r\nconnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        if !forHead { text += body }
        return Array(text.utf8)
    }
}

/// What reading the bytes received so far decided.
enum RequestHeadReading: Equatable {
    /// No complete head yet, and nothing wrong so far.
    case incomplete
    /// A valid head, rewritten, and where the body (or the next request) starts in the input.
    case accepted(RequestHead, bodyStart: Int)
    /// Answer this and close.
    case refused(HeadRefusal)
}

extension RequestHead {
    /// Methods Kiln's routes and static files answer; any other gets 501 (RFC 9110 §9.1).
    static let implementedMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    /// Methods whose requests must declare their body's length. Only POST: it is the one
    /// method a Kiln route takes a body with, and a POST without a length is almost always
    /// a client streaming a body it did not measure (411, RFC 9110 §15.5.12). Any other
    /// method without a length has an empty body (RFC 9112 §6.3) and reaches its route,
    /// which answers 405 where the method does not apply.
    static let bodyMethods: Set<String> = ["POST"]
    /// Empty lines tolerated before a request line (RFC 9112 §2.2: clients sometimes send
    /// a CRLF after a POST body).
    static let maxLeadingEmptyLines = 4

    /// Reads `bytes` as the start of a request (RFC 9112 §2–§6).
    ///
    ///     request-head = request-line *( field-line CRLF ) CRLF
    ///     request-line = method SP request-target SP HTTP-version CRLF
    ///     field-line   = field-name ":" OWS field-value OWS
    ///
    /// Decides as early as it can: an over-long request line is refused before its end
    /// arrives, so a client cannot make the server buffer more than the limits allow.
    static func read(_ bytes: [UInt8], limits: RequestHeadLimits) -> RequestHeadReading {
        var lines = LineReader(bytes: bytes)
        // The request line, after at most a few empty lines.
        var requestLine: ArraySlice<UInt8>?
        for _ in 0 ... maxLeadingEmptyLines {
            switch lines.next(limit: limits.maxTargetBytes + 32) {
            case .incomplete: return .incomplete
            case .tooLong: return .refused(HeadRefusal(status: 414, reason: "request line longer than \(limits.maxTargetBytes + 32) bytes (maxURLBytes = \(limits.maxTargetBytes))"))
            case .malformed: return .refused(HeadRefusal(status: 400, reason: "a bare CR or a NUL in the request line"))
            case .line(let line):
                if line.isEmpty { continue }
                requestLine = line
            }
            break
        }
        guard let requestLine else { return .refused(HeadRefusal(status: 400, reason: "no request line")) }
        var head: RequestHead
        switch parseRequestLine(requestLine, limits: limits) {
        case .success(let parsed): head = parsed
        case .failure(let refusal): return .refused(refusal)
        }
        // Header fields up to the empty line.
        let fieldsStart = lines.offset
        while true {
            switch lines.next(limit: max(0, limits.maxFieldBytes - (lines.offset - fieldsStart))) {
            case .incomplete:
                if bytes.count - fieldsStart > limits.maxFieldBytes { return .refused(tooManyFieldBytes(limits)) }
                return .incomplete
            case .tooLong:
                return .refused(tooManyFieldBytes(limits))
            case .malformed:
                return .refused(HeadRefusal(status: 400, reason: "a bare CR or a NUL in a header field"))
            case .line(let line):
                if line.isEmpty {
                    if let refusal = check(&head, limits: limits) { return .refused(refusal) }
                    return .accepted(head, bodyStart: lines.offset)
                }
                if head.fields.count == limits.maxFields {
                    return .refused(HeadRefusal(status: 431, reason: "more than \(limits.maxFields) header fields"))
                }
                switch parseField(line) {
                case .success(let field): head.fields.append(field)
                case .failure(let refusal): return .refused(refusal)
                }
            }
        }
    }

    private static func tooManyFieldBytes(_ limits: RequestHeadLimits) -> HeadRefusal {
        HeadRefusal(status: 431, reason: "header fields longer than \(limits.maxFieldBytes) bytes in total")
    }

    /// `method SP request-target SP HTTP-version`, single spaces (RFC 9112 §3).
    private static func parseRequestLine(_ line: ArraySlice<UInt8>, limits: RequestHeadLimits) -> Result<RequestHead, HeadRefusal> {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              parts[0].allSatisfy(isTokenByte) else {
            return .failure(HeadRefusal(status: 400, reason: "malformed request line"))
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/"), version.utf8.count == 8 else {
            return .failure(HeadRefusal(status: 400, reason: "malformed request line"))
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(HeadRefusal(status: 505, reason: "\(version) is not supported: speak HTTP/1.1"))
        }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(HeadRefusal(status: 400, reason: "the request target has a character outside visible ASCII"))
        }
        if parts[1].count > limits.maxTargetBytes {
            return .failure(HeadRefusal(status: 414, reason: "request target of \(parts[1].count) bytes exceeds maxURLBytes = \(limits.maxTargetBytes)"))
        }
        guard implementedMethods.contains(method) else {
            let why = method == "CONNECT" ? "CONNECT is for proxies; this is an origin server" : "method \(method.prefix(20)) is not implemented"
            return .failure(HeadRefusal(status: 501, reason: why))
        }
        return .success(RequestHead(method: method, target: String(decoding: parts[1], as: UTF8.self), version: version, fields: []))
    }

    /// `field-name ":" OWS field-value OWS` with no space before the colon and no obsolete
    /// line folding (RFC 9112 §5.1, §5.2: both are rejected with 400).
    private static func parseField(_ line: ArraySlice<UInt8>) -> Result<(name: String, value: String), HeadRefusal> {
        if let first = line.first, first == 0x20 || first == 0x09 {
            return .failure(HeadRefusal(status: 400, reason: "obsolete line folding in a header field"))
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
              line[..<colon].allSatisfy(isTokenByte) else {
            return .failure(HeadRefusal(status: 400, reason: "malformed header field (a name, then a colon)"))
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
            return .failure(HeadRefusal(status: 400, reason: "a control character in a header field value"))
        }
        return .success((String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// The rules between fields: the target's form and Host (RFC 9112 §3.2), framing
    /// (§6.1–§6.3) and the body limit. Rewrites the head into the one form libwebsockets
    /// gets: origin-form target, one Host, one Content-Length.
    private static func check(_ head: inout RequestHead, limits: RequestHeadLimits) -> HeadRefusal? {
        let names = head.fields.map { $0.name.lowercased() }
        // Target forms: origin (`/…`) as it is; absolute (`http://host/…`) becomes origin
        // form and its authority replaces Host (§3.2.2–§3.2.3); `*` only with OPTIONS.
        if head.target == "*" {
            guard head.method == "OPTIONS" else { return HeadRefusal(status: 400, reason: "the asterisk form is for OPTIONS only") }
            return HeadRefusal(status: 200, reason: "methods this server implements", headers: [("allow", implementedMethods.sorted().joined(separator: ", "))])
        }
        if !head.target.hasPrefix("/") {
            guard let (authority, path) = splitAbsolute(head.target) else {
                return HeadRefusal(status: 400, reason: "the request target must start with / (origin form) or be an absolute http URL")
            }
            head.target = path
            head.fields.removeAll { $0.name.lowercased() == "host" }
            head.fields.insert((name: "Host", value: authority), at: 0)
        } else {
            let hosts = names.filter { $0 == "host" }.count
            if hosts > 1 { return HeadRefusal(status: 400, reason: "more than one Host header") }
            if hosts == 0, head.version == "HTTP/1.1" { return HeadRefusal(status: 400, reason: "an HTTP/1.1 request needs a Host header") }
        }
        // Framing. Transfer-Encoding: this server reads only Content-Length bodies, and a
        // request with both is the classic smuggling shape (§6.1).
        if names.contains("transfer-encoding") {
            if names.contains("content-length") {
                return HeadRefusal(status: 400, reason: "both Transfer-Encoding and Content-Length")
            }
            return HeadRefusal(status: 411, reason: "chunked request bodies are not supported: send Content-Length")
        }
        let lengths = head.fields.filter { $0.name.lowercased() == "content-length" }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingSpaces() }
        if let first = lengths.first {
            // One decimal number, repeated identically at most (§6.3 item 5).
            guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
                  first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let declared = Int(first) else {
                return HeadRefusal(status: 400, reason: "invalid Content-Length: \(lengths.joined(separator: ", ").prefix(40))")
            }
            if declared > limits.maxBodyBytes {
                return HeadRefusal(status: 413, reason: "request body of \(declared) bytes exceeds maxMessageBytes = \(limits.maxBodyBytes)")
            }
            head.fields.removeAll { $0.name.lowercased() == "content-length" }
            head.fields.append((name: "Content-Length", value: String(declared)))
        } else if bodyMethods.contains(head.method) {
            return HeadRefusal(status: 411, reason: "a request body needs Content-Length")
        }
        return nil
    }

    /// `http://authority/path?query` → (authority, `/path?query`); nil when not that shape.
    private static func splitAbsolute(_ target: String) -> (String, String)? {
        let lowered = target.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else { return nil }
        let rest = target.dropFirst(scheme.count)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = String(rest[..<end])
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let path = String(rest[end...])
        return (authority, path.isEmpty ? "/" : path.hasPrefix("?") ? "/" + path : path)
    }

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

private extension Substring {
    func trimmingSpaces() -> String {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}

/// Splits received bytes into lines ending in CRLF (or a bare LF, which RFC 9112 §2.2
/// lets a server accept). A CR not followed by LF, or a NUL, is malformed.
private struct LineReader {
    let bytes: [UInt8]
    /// Where the next line starts.
    private(set) var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    enum Line { case line(ArraySlice<UInt8>), incomplete, tooLong, malformed }

    /// The next line without its terminator, if it is complete and at most `limit` bytes.
    mutating func next(limit: Int) -> Line {
        var index = offset
        while index < bytes.count {
            switch bytes[index] {
            case 0x0A:
                var end = index
                if end > offset, bytes[end - 1] == 0x0D { end -= 1 }
                let line = bytes[offset ..< end]
                if line.count > limit { return .tooLong }
                offset = index + 1
                return .line(line)
            case 0x0D where index + 1 < bytes.count && bytes[index + 1] != 0x0A, 0x00:
                return .malformed
            default:
                index += 1
            }
        }
        return bytes.count - offset > limit ? .tooLong : .incomplete
    }
}
