import Foundation
import KilnBytecode
import KilnCompiler
import KilnJSON
import KilnLanguage
import KilnRender
import KilnWebSockets

/// `POST /check`: `kiln test` over HTTP (docs/protocol.md). The body is
/// `{"manifest": {…kiln-test.json…}, "files": [{name, text}], "goldens": {case: base64 PNG}}`;
/// each case's shader is compiled from `files` (its `.metal` file with every `.h`, through the
/// compile cache), rendered and compared. The answer is 200 with `{"passed", "cases": […]}`
/// either way — a failed case is a result, not an error — and 400 for a malformed request.
extension KilnService {
    /// Largest golden image accepted, in bytes (a 2048² PNG of noise is about 16 MiB).
    static let maxGoldenBytes = 32 << 20

    func checkResponse(_ request: HTTPRequest) -> HTTPResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            return .text(400, "POST a JSON object: {\"manifest\": {…}, \"files\": [{\"name\", \"text\"}], \"goldens\": {name: base64 PNG}}\n")
        }
        guard let manifest = object["manifest"] as? [String: Any],
              let manifestData = try? JSONSerialization.data(withJSONObject: manifest) else {
            return .text(400, "\"manifest\" must be an object (the kiln-test.json format, docs/cli.md)\n")
        }
        var limits = GoldenCheck.Limits()
        limits.maxSide = settings.maxPreviewSide
        let cases: [GoldenCheck.Case]
        do { cases = try GoldenCheck.cases(fromJSON: manifestData, limits: limits) } catch {
            return .text(400, "manifest: \(error.message)\n")
        }
        var files: [SourceFile] = []
        for entry in object["files"] as? [Any] ?? [] {
            guard let file = entry as? [String: Any], let name = file["name"] as? String, let text = file["text"] as? String else {
                return .text(400, "each of \"files\" needs \"name\" and \"text\" strings\n")
            }
            files.append(SourceFile(name: name, text: text))
        }
        var goldens: [String: [UInt8]] = [:]
        for (name, value) in object["goldens"] as? [String: Any] ?? [:] {
            guard let text = value as? String, let data = Data(base64Encoded: text), data.count <= Self.maxGoldenBytes else {
                return .text(400, "golden \"\(name)\" must be a base64 PNG of at most \(Self.maxGoldenBytes) bytes\n")
            }
            goldens[name] = Array(data)
        }
        let headers = files.filter { $0.name.hasSuffix(".h") }
        var renderLimits = RenderLimits.default
        renderLimits.maxFrameWork = settings.maxFrameWork
        renderLimits.maxDimension = settings.maxPreviewSide
        let results = GoldenCheck.check(cases, library: { [self] shader in
            guard let main = files.first(where: { $0.name == shader }) else {
                throw RenderError("no file \"\(shader)\" in \"files\"")
            }
            let (compiled, _) = cache.compile([main] + headers.filter { $0.name != shader })
            metrics.increment("kiln_compiles_total")
            guard let library = compiled.result.library else {
                throw RenderError("\(shader) does not compile:\n" + DiagnosticRenderer.text(compiled.result.diagnostics, files: compiled.result.files))
            }
            return library
        }, goldens: goldens, limits: renderLimits)
        metrics.increment("kiln_checks_total")
        let passed = results.allSatisfy { $0["result"] as? String == "pass" }
        return .text(200, JSONText.serialize(["passed": passed, "cases": results] as [String: Any]) + "\n", contentType: "application/json")
    }
}
