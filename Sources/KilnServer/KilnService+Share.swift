import Foundation
import KilnCompiler
import KilnJSON
import KilnLanguage
import KilnStorage
import KilnWebSockets

/// Permalinks (docs/protocol.md, "Sharing"): `POST /share` stores a page state — the
/// sources, function, arguments, time, size, content — and answers its link `/s/<id>`;
/// `GET /s/<id>` is the page, which loads the state from `GET /s/<id>?format=json`; an
/// uploaded content image is stored once by hash and served at `/content/<sha256>`.
/// States are content-addressed: sharing the same state twice gives the same link.
extension KilnService {
    func shareResponse(_ request: HTTPRequest) -> HTTPResponse {
        switch storeShare(Data(request.body), client: clientAddress(request.remoteAddress, forwardedFor: request.headers["x-forwarded-for"])) {
        case .success(let id):
            return .text(201, JSONText.serialize(["id": id, "url": "/s/\(id)"] as [String: Any]) + "\n", contentType: "application/json")
        case .failure(let error):
            let status = [ErrorCode.tooLarge: 413, .unavailable: 503, .badRequest: 400, .quotaExceeded: 429][error.code] ?? 500
            return .text(status, error.message + "\n")
        }
    }

    /// Where storage failures are reported (`StorageFailureLog`): one for the process.
    static let storageFailures = StorageFailureLog()

    /// Stores a state (JSON bytes) — `POST /share` and the WebSocket `share` — and returns
    /// its id, or the refusal: `bad_request`, `too_large` past a storage limit,
    /// `quota_exceeded` past the client's daily quota, `unavailable` without storage.
    func storeShare(_ json: Data, client: String) -> Result<String, ProtocolError> {
        guard let store else { return .failure(ProtocolError(.unavailable, "sharing is off: this server has no storage (kiln serve --data-directory DIR)")) }
        guard var object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            return .failure(ProtocolError(.badRequest, "the state must be a JSON object: {\"source\" or \"files\", \"name\", \"function\", \"args\", \"time\", \"size\", \"content\"}"))
        }
        guard object["source"] is String || object["files"] is [Any] else {
            return .failure(ProtocolError(.badRequest, "the state needs \"source\" (text) or \"files\" ([{name, text}])"))
        }
        do {
            // The request's bytes count against the client's day, whether or not they are new.
            guard try store.charge(client: client, bytes: json.count, day: Self.today(), limit: settings.shareQuotaBytes) else {
                return .failure(ProtocolError(.quotaExceeded, "this address has shared its \(settings.shareQuotaBytes) bytes for today (--share-quota-bytes); try again tomorrow (UTC)"))
            }
            // The uploaded image goes to the content store by hash; the state names the hash.
            if let png = object.removeValue(forKey: "contentPNG") {
                guard let text = png as? String, let data = Data(base64Encoded: text), data.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
                    return .failure(ProtocolError(.badRequest, "\"contentPNG\" must be a base64 PNG"))
                }
                object["contentHash"] = try store.saveContent(Array(data))
            }
            let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            let id = try store.saveState(Array(canonical))
            metrics.increment("kiln_shares_total")
            return .success(id)
        } catch let error as StorageError {
            return .failure(ProtocolError(.tooLarge, error.message))
        } catch {
            return .failure(ProtocolError(.unavailable, Self.storageFailures.record(error, doing: "storing a share", metrics: metrics)))
        }
    }

    /// `GET /s/<id>`: the page (which fetches the state), or with `?format=json` the state.
    func sharedStateResponse(_ request: HTTPRequest, id: String) -> HTTPResponse {
        guard let store else { return .text(503, "sharing is off: this server has no storage\n") }
        let state: [UInt8]?
        do { state = try store.loadState(id: id) } catch {
            return .text(503, Self.storageFailures.record(error, doing: "reading a share", metrics: metrics) + "\n")
        }
        guard let state else { return .text(404, "no shared state \(id)\n") }
        if request.query["format"] == "json" {
            return HTTPResponse(status: 200, contentType: "application/json", headers: [("Cache-Control", "public, max-age=31536000, immutable")],
                                body: state)
        }
        return pageResponse()
    }

    /// The page itself at a deeper path (`/s/<id>`, `/w/<token>`): its relative URLs
    /// (app.js, style.css) would resolve against that folder, so a `<base>` points them at /.
    func pageResponse() -> HTTPResponse {
        guard let directory = settings.publicDirectory,
              let page = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent("index.html")) else {
            return .text(404, "this server serves no page (--public-directory)\n")
        }
        var html = String(decoding: page, as: UTF8.self)
        html = html.replacingOccurrences(of: "<head>", with: "<head>\n  <base href=\"/\">")
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", headers: [], body: Array(html.utf8))
    }

    func contentResponse(_ hash: String) -> HTTPResponse {
        guard let store else { return .text(503, "sharing is off: this server has no storage\n") }
        let found: [UInt8]?
        do { found = try store.loadContent(hash: hash) } catch {
            return .text(503, Self.storageFailures.record(error, doing: "reading content", metrics: metrics) + "\n")
        }
        guard let bytes = found else { return .text(404, "no content \(hash)\n") }
        return HTTPResponse(status: 200, contentType: "image/png", headers: [("Cache-Control", "public, max-age=31536000, immutable")],
                            body: bytes)
    }
}

/// History (docs/protocol.md, "History"): every version that compiled for a client — the
/// page sends its random client id with `compile` — is kept once by hash with when it
/// first and last compiled; `GET /history/<client>` lists them, `GET /history/<client>/<sha256>`
/// returns one version's files. The client id is the key: nobody without it lists a history.
extension KilnService {
    /// Most versions `GET /history/<client>` lists.
    static let historyLimit = 200

    /// Days since 1970 in UTC: the period of share quotas.
    static func today() -> Int { Int(Date().timeIntervalSince1970 / 86_400) }

    /// Keeps a version that compiled, charged to the address's daily quota (client ids are
    /// the page's own random strings: without the quota, a script inventing ids could fill
    /// the database through history alone).
    func keepVersion(_ files: [SourceFile], client: String, address: String, time: Double) {
        guard let store, ContentID.isClientID(client) else { return }
        let json = files.map { ["name": $0.name, "text": $0.text] }
        guard let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]) else { return }
        do {
            guard try store.charge(client: address, bytes: data.count, day: Self.today(), limit: settings.shareQuotaBytes) else {
                metrics.increment("kiln_history_versions_refused_total")
                return
            }
            _ = try store.saveVersion(client: client, files: Array(data), time: time)
            metrics.increment("kiln_history_versions_total")
        } catch {
            // Nobody waits for a history write: the operator hears of it, the page does not.
            _ = Self.storageFailures.record(error, doing: "keeping a history version", metrics: metrics)
        }
    }

    func historyResponse(_ path: String) -> HTTPResponse {
        guard let store else { return .text(503, "history is off: this server has no storage\n") }
        let parts = path.split(separator: "/").map(String.init)      // ["history", client, sha256?]
        guard parts.count >= 2, parts.count <= 3, ContentID.isClientID(parts[1]) else {
            return .text(404, "GET /history/<client id> or /history/<client id>/<sha256>\n")
        }
        do {
            let versions = try store.versions(client: parts[1], limit: Self.historyLimit)
            if parts.count == 3 {
                guard versions.contains(where: { $0.sha256 == parts[2] }), let files = try store.loadContent(hash: parts[2]) else {
                    return .text(404, "no version \(parts[2]) in this history\n")
                }
                return HTTPResponse(status: 200, contentType: "application/json", headers: [], body: files)
            }
            let list: [[String: Any]] = versions.map {
                ["sha256": $0.sha256, "firstCompiled": $0.firstCompiled, "lastCompiled": $0.lastCompiled, "bytes": $0.bytes]
            }
            return .text(200, JSONText.serialize(["versions": list] as [String: Any]) + "\n", contentType: "application/json")
        } catch {
            return .text(503, Self.storageFailures.record(error, doing: "reading a history", metrics: metrics) + "\n")
        }
    }
}
