import Foundation
import KilnBytecode
import KilnCompiler
import KilnJSON
import KilnLanguage
import KilnVM
import KilnWebSockets

/// The HTTP API for curl and scripts (docs/protocol.md, "HTTP"):
/// `POST /compile`, `POST /render`, `GET /shaders`, `GET /shaders/NAME`, `GET /healthz`,
/// `GET /metrics`. Handlers run on workers; the service thread only routes.
extension KilnService {
    public func handle(_ request: HTTPRequest) {
        metrics.increment("kiln_http_requests_total")
        // Each route answers its methods (HEAD wherever GET is); others get 405 with Allow.
        let allowed = Self.allowedMethods(request.path)
        guard allowed.contains(request.method) else {
            let status = allowed.isEmpty ? 404 : 405
            let text = status == 404 ? "no route for \(request.path)\n" : "method \(request.method) not allowed on \(request.path)\n"
            request.respond(HTTPResponse(status: status, contentType: "text/plain; charset=utf-8",
                                         headers: allowed.isEmpty ? [] : [("Allow", allowed.joined(separator: ", "))], body: Array(text.utf8)))
            return
        }
        let method = request.method == "HEAD" ? "GET" : request.method
        if request.path == "/healthz" {
            request.respond(isDraining ? .text(503, "draining\n") : .text(200, "ok\n"))
            return
        }
        guard originAllowed(request.headers), hostAllowed(request.headers) else {
            request.respond(.text(403, "requests from other origins are refused (kiln serve --allow-origin ORIGIN allows one)\n"))
            return
        }
        guard authorized(query: request.query, headers: request.headers) else {
            request.respond(HTTPResponse(status: 401, contentType: "text/plain; charset=utf-8",
                                         headers: [("WWW-Authenticate", "Bearer")], body: Array("missing or wrong token\n".utf8)))
            return
        }
        switch (method, request.path) {
        case (_, "/metrics"):
            // The compiles' header cache is the process's (`CompileOptions.headerCache`).
            metrics.setCounter("kiln_header_cache_hits_total", Double(HeaderCache.shared.hits))
            metrics.set("kiln_header_cache_entries", Double(HeaderCache.shared.count))
            request.respond(.text(200, metrics.prometheusText(), contentType: "text/plain; version=0.0.4"))
        case ("POST", "/compile"):
            workers.submit(.urgent) { [self] in request.respond(compileResponse(request)) }
        case ("POST", "/render") where request.body.first == UInt8(ascii: "{"):
            // A JSON body is a scene document (docs/scenes.md); anything else is shader source.
            workers.submit(.heavy) { [self] in request.respond(sceneRenderResponse(request)) }
        case ("POST", "/render"):
            workers.submit(.heavy) { [self] in request.respond(renderResponse(request)) }
        case ("POST", "/check"):
            workers.submit(.heavy) { [self] in request.respond(checkResponse(request)) }
        case ("POST", "/share"):
            workers.submit(.urgent) { [self] in request.respond(shareResponse(request)) }
        case ("GET", let path) where path.hasPrefix("/s/"):
            workers.submit(.urgent) { [self] in request.respond(sharedStateResponse(request, id: String(path.dropFirst(3)))) }
        case ("GET", let path) where path.hasPrefix("/w/"):
            request.respond(watchPageResponse(token: String(path.dropFirst(3))))
        case ("GET", let path) where path.hasPrefix("/history/"):
            workers.submit(.urgent) { [self] in request.respond(historyResponse(path)) }
        case ("GET", let path) where path.hasPrefix("/content/"):
            workers.submit(.urgent) { [self] in request.respond(contentResponse(String(path.dropFirst("/content/".count)))) }
        case ("GET", "/shaders"), ("GET", "/shaders/"):
            request.respond(listResponse(settings.shadersDirectory, route: "shaders", extensions: [".metal", ".h"]))
        case ("GET", let path) where path.hasPrefix("/shaders/"):
            request.respond(fileResponse(settings.shadersDirectory, name: String(path.dropFirst("/shaders/".count)),
                                         contentType: "text/plain; charset=utf-8"))
        case ("GET", "/scenes"), ("GET", "/scenes/"):
            request.respond(listResponse(settings.scenesDirectory, route: "scenes", extensions: [".json"]))
        case ("GET", let path) where path.hasPrefix("/scenes/"):
            request.respond(fileResponse(settings.scenesDirectory, name: String(path.dropFirst("/scenes/".count)),
                                         contentType: "application/json"))
        default:
            request.respond(.text(404, "no route for \(request.method) \(request.path)\n"))
        }
    }

    /// The methods a path answers, in the order an `Allow` header lists them.
    static func allowedMethods(_ path: String) -> [String] {
        switch path {
        case "/compile", "/render", "/check", "/share": return ["POST"]
        case "/healthz", "/metrics", "/shaders", "/shaders/", "/scenes", "/scenes/": return ["GET", "HEAD"]
        case _ where path.hasPrefix("/shaders/") || path.hasPrefix("/scenes/") || path.hasPrefix("/s/")
                || path.hasPrefix("/w/") || path.hasPrefix("/content/") || path.hasPrefix("/history/"): return ["GET", "HEAD"]
        default: return []
        }
    }

    private func sourceFiles(_ request: HTTPRequest) -> [SourceFile] {
        [SourceFile(name: request.query["name"] ?? "shader.metal", text: String(decoding: request.body, as: UTF8.self))]
    }

    private func json(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        .text(status, JSONText.serialize(object) + "\n", contentType: "application/json")
    }

    private func compileResponse(_ request: HTTPRequest) -> HTTPResponse {
        guard !request.body.isEmpty else { return .text(400, "POST the shader source as the request body\n") }
        let (shader, hit) = cache.compile(sourceFiles(request))
        metrics.increment("kiln_compiles_total")
        if hit { metrics.increment("kiln_compile_cache_hits_total") }
        if !shader.succeeded { metrics.increment("kiln_compile_errors_total") }
        if request.query["format"] == "json" {
            return json(shader.succeeded ? 200 : 422, CompileReport.object(result: shader.result, libraryBytes: shader.libraryBytes))
        }
        guard let bytes = shader.libraryBytes else {
            return json(422, CompileReport.object(result: shader.result, libraryBytes: shader.libraryBytes))
        }
        return HTTPResponse(status: 200, contentType: "application/octet-stream",
                            headers: [("X-Kiln-Cache", hit ? "hit" : "miss")], body: bytes)
    }

    /// Query keys that are not shader arguments.
    private static let renderOptions: Set<String> = ["function", "size", "time", "content", "content2", "name", "token"]

    private func renderResponse(_ request: HTTPRequest) -> HTTPResponse {
        guard !request.body.isEmpty else { return .text(400, "POST the shader source (or a library) as the request body\n") }
        let library: Library
        var preparedFunctions: PreparedFunctionCache?      // a repeated source draws prepared code
        if request.body.starts(with: Array("KILNLIB".utf8)) {
            do { library = try LibraryReader.decode(request.body) } catch { return .text(422, "invalid library: \(error)\n") }
        } else {
            let (shader, _) = cache.compile(sourceFiles(request))
            metrics.increment("kiln_compiles_total")
            guard let compiled = shader.result.library else { return json(422, CompileReport.object(result: shader.result, libraryBytes: shader.libraryBytes)) }
            library = compiled
            preparedFunctions = shader.preparedFunctions
        }
        let query = request.query
        var width = settings.defaultPreviewSize, height = settings.defaultPreviewSize
        if let size = query["size"] {
            guard let parsed = parsePreviewSize(size) else { return .text(400, "size must be WIDTHxHEIGHT\n") }
            (width, height) = parsed
        }
        guard width <= settings.maxPreviewSide, height <= settings.maxPreviewSide else {
            return .text(413, "size \(width)x\(height) exceeds maxPreviewSide = \(settings.maxPreviewSide)\n")
        }
        guard let function = query["function"] ?? library.functions.first(where: { $0.kind != .vertex })?.name else {
            return .text(422, "the library has no renderable function\n")
        }
        var time: Float = 0
        if let text = query["time"] {
            guard let value = Float(text), value.isFinite else { return .text(400, "time must be a number\n") }
            time = value
        }
        var arguments: [String: [Float]] = [:]
        for (name, value) in query where !Self.renderOptions.contains(name) {
            guard let floats = ArgumentText.parse(value) else { return .text(400, "argument \(name)=\(value) is not a number, list or #color\n") }
            arguments[name] = floats
        }
        do {
            let content = try renderer.builtinContent(named: query["content"] ?? "rainbow", width: width, height: height)
            let content2 = try renderer.builtinContent(named: query["content2"] ?? "checker", width: width, height: height)
            let started = monotonicSeconds()
            let pixels = try renderer.render(PreviewRequest(library: library, function: function, width: width, height: height,
                                                            content: content, content2: content2, arguments: arguments,
                                                            time: time, threads: 0, maxFrameWork: settings.maxFrameWork,
                                                            preparedFunctions: preparedFunctions))
            metrics.observeRender(seconds: monotonicSeconds() - started)
            let outputHeight = pixels.count / 4 / max(1, width)
            let png = try renderer.encodePNG(premultiplied: pixels, width: width, height: outputHeight)
            return HTTPResponse(status: 200, contentType: "image/png", body: png)
        } catch {
            metrics.increment("kiln_renders_failed_total")
            return .text(422, "render failed: \(error)\n")
        }
    }

    /// `{"<route>": [{name, bytes, url}]}` for the files of `directory` with one of `extensions`.
    private func listResponse(_ directory: String?, route: String, extensions: [String]) -> HTTPResponse {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            return json(200, [route: [Any]()])
        }
        let files: [[String: Any]] = names.filter { name in extensions.contains { name.hasSuffix($0) } }.sorted().map { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0
            return ["name": name, "bytes": size, "url": "/\(route)/" + name]
        }
        return json(200, [route: files])
    }

    /// One file of `directory`, by plain name only: no path separators, no hidden files.
    private func fileResponse(_ directory: String?, name: String, contentType: String) -> HTTPResponse {
        guard let directory, !name.isEmpty, !name.contains("/"), !name.hasPrefix("."),
              let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            return .text(404, "no file named \(name)\n")
        }
        return HTTPResponse(status: 200, contentType: contentType, body: Array(data))
    }
}
