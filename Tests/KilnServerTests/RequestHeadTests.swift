import Testing
@testable import KilnWebSockets

/// The front door's reading of request heads (RFC 9112), byte by byte.
@Suite struct RequestHeadTests {
    let limits = RequestHeadLimits(maxTargetBytes: 64, maxFieldBytes: 256, maxFields: 8, maxBodyBytes: 1000)

    func read(_ text: String) -> RequestHeadReading {
        RequestHead.read(Array(text.utf8), limits: limits)
    }

    func status(_ text: String) -> Int? {
        if case .refused(let refusal) = read(text) { return refusal.status }
        return nil
    }

    @Test func aPlainRequestIsRewrittenAndItsBodyFollows() throws {
        guard case .accepted(let head, let bodyStart) = read("POST /compile?x=1 HTTP/1.1\r\nHost: a:1\r\nContent-Length:  5 \r\nX-Y: z\r\n\r\nhello") else {
            Issue.record("not accepted"); return
        }
        #expect(head.method == "POST" && head.target == "/compile?x=1" && head.version == "HTTP/1.1")
        #expect(head.value("host") == "a:1" && head.value("x-y") == "z" && head.value("content-length") == "5")
        #expect(String(decoding: head.serialized(), as: UTF8.self) == "POST /compile?x=1 HTTP/1.1\r\nHost: a:1\r\nX-Y: z\r\nContent-Length: 5\r\n\r\n")
        #expect(bodyStart == "POST /compile?x=1 HTTP/1.1\r\nHost: a:1\r\nContent-Length:  5 \r\nX-Y: z\r\n\r\n".utf8.count)
    }

    @Test func partialHeadsWait() {
        #expect(read("") == .incomplete)
        #expect(read("GET / HT") == .incomplete)
        #expect(read("GET / HTTP/1.1\r\nHost: a\r\n") == .incomplete)
        #expect(read("GET / HTTP/1.1\r\nHost: a\r\n\r") == .incomplete)
    }

    @Test func bareLineFeedsAndLeadingEmptyLinesAreAccepted() {
        guard case .accepted(let head, _) = read("\r\n\nGET / HTTP/1.1\nHost: a\n\n") else { Issue.record("not accepted"); return }
        #expect(head.target == "/" && head.value("host") == "a")
    }

    @Test func methodsOutsideTheServersAreNotImplemented() {
        #expect(status("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n") == 501)
        #expect(status("TRACE / HTTP/1.1\r\nHost: a\r\n\r\n") == 501)
        #expect(status("get / HTTP/1.1\r\nHost: a\r\n\r\n") == 501)   // methods are case-sensitive
        // Decided on the request line alone: the rest need not arrive.
        #expect(status("CONNECT example.com:443 HTTP/1.1\r\n") == 501)
    }

    @Test func malformedRequestLines() {
        for line in ["GET  / HTTP/1.1", "GET / HTTP/1.1 ", "GET /", "GET / HTTP/1.1x", "G(T / HTTP/1.1", "GET /\u{7F} HTTP/1.1"] {
            #expect(status(line + "\r\nHost: a\r\n\r\n") == 400, "\(line)")
        }
        #expect(status("GET / HTTP/2.0\r\nHost: a\r\n\r\n") == 505)
        #expect(status("GET / HTTP/1.1\r\rHost: a\r\n\r\n") == 400)   // a bare CR
        #expect(status("GET /\0 HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func longTargetsAre414AsSoonAsTheyAreTooLong() {
        let long = "/" + String(repeating: "a", count: 64)
        #expect(status("GET \(long) HTTP/1.1\r\nHost: a\r\n\r\n") == 414)
        // The line has not ended, but it cannot be valid any more.
        #expect(status("GET /" + String(repeating: "a", count: 200)) == 414)
        #expect(read("GET /" + String(repeating: "a", count: 63) + " HTTP/1.1\r\nHost: a\r\n\r\n") != .incomplete)
    }

    @Test func largeHeadSectionsAre431() {
        let field = "X-A: " + String(repeating: "b", count: 100) + "\r\n"
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n" + field + field + field + "\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n" + field + field + field) == 431)   // before the end arrives
        let many = (0 ..< 8).map { "X-\($0): 1\r\n" }.joined()
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n" + many + "\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n" + (0 ..< 7).map { "X-\($0): 1\r\n" }.joined() + "\r\n") == nil)
    }

    @Test func malformedFields() {
        #expect(status("GET / HTTP/1.1\r\nHost : a\r\n\r\n") == 400)     // space before the colon
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\u{1}b\r\n\r\n") == 400)
    }

    @Test func hostRules() {
        #expect(status("GET / HTTP/1.1\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.0\r\n\r\n") == nil)   // HTTP/1.0 needs none
        guard case .accepted(let head, _) = read("GET http://kiln.example:8080/healthz?x HTTP/1.1\r\nHost: other\r\n\r\n") else {
            Issue.record("absolute form refused"); return
        }
        #expect(head.target == "/healthz?x" && head.value("host") == "kiln.example:8080")
        #expect(head.fields.filter { $0.name.lowercased() == "host" }.count == 1)
        #expect(status("GET example.com/ HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func asteriskFormAnswersOptionsOnly() {
        guard case .refused(let answer) = read("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") else { Issue.record("not answered"); return }
        #expect(answer.status == 200 && answer.headers.first?.1.contains("POST") == true)
        #expect(status("GET * HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func bodiesNeedOneValidLength() {
        for length in ["-5", "abc", "18446744073709551616", "5, 7", "", "0x10", "+5"] {
            #expect(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(length)\r\n\r\nhello") == 400, "\(length)")
        }
        #expect(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n") == 400)
        #expect(status("POST / HTTP/1.1\r\nHost: a\r\n\r\n") == 411)
        #expect(status("PUT / HTTP/1.1\r\nHost: a\r\n\r\n") == nil)   // an empty body: the route answers
        #expect(status("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n") == 411)
        #expect(status("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n") == 400)
        #expect(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n") == 413)
        // The same value repeated is one length (RFC 9112 §6.3).
        guard case .accepted(let head, _) = read("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\nContent-Length: 5\r\n\r\n") else {
            Issue.record("repeated equal lengths refused"); return
        }
        #expect(head.fields.filter { $0.name.lowercased() == "content-length" }.map(\.value) == ["5"])
    }

    @Test func refusalsAreCompleteResponses() {
        let text = String(decoding: HeadRefusal(status: 431, reason: "too big").response(), as: UTF8.self)
        #expect(text == "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 8\r\nconnection: close\r\n\r\ntoo big\n")
        let head = String(decoding: HeadRefusal(status: 501, reason: "no").response(forHead: true), as: UTF8.self)
        #expect(head.hasSuffix("connection: close\r\n\r\n"))
    }

    @Test func upgradesAreRecognised() {
        guard case .accepted(let head, _) = read("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n\r\n") else {
            Issue.record("not accepted"); return
        }
        #expect(head.isUpgrade)
    }
}
