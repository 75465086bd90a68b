import ArgumentParser
import Foundation
import KilnCompileTool
import KilnLanguage
import KilnServer
import KilnWebSockets

/// `kiln live FILE [--server ws://localhost:8080] [--function NAME] [--frame out.png]`
///
/// The command-line live-editing client: sends the shader on start and on every save,
/// prints the server's diagnostics clang-style, writes the library and the latest preview
/// frame, and reconnects with backoff when the server goes away.
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Watch a shader file and compile/preview it on a kiln server on every save.")

    @Argument(help: "The shader file to watch (headers it includes are sent along).")
    var file: String

    @Option(help: "The server's WebSocket URL.")
    var server = "ws://localhost:8080/"

    @Option(help: "Entry function to preview (default: the library's first).")
    var function: String?

    @Option(help: "Write the latest preview frame to this PNG.")
    var frame: String?

    @Option(help: "Write the latest library here (default: ./NAME.kilnlib in the current folder for NAME.metal, as kiln compile does).")
    var library: String?

    @Option(help: "Preview size, WIDTHxHEIGHT.")
    var size = "256x256"

    @Option(help: "Frames per second to request when --frame is given.")
    var fps = 10.0

    @Option(help: "Token for a server started with --token.")
    var token: String?

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    @Option(help: "Seconds between checks of the files for changes (the shader and every header it includes).")
    var pollInterval = 0.1

    @Option(help: "Stop after this many compile results (0 = run until interrupted).")
    var exitAfter = 0

    func run() throws {
        var url = server
        if let token { url += (url.contains("?") ? "&" : "?") + "token=" + token }
        let libraryPath = library ?? (((file as NSString).lastPathComponent as NSString).deletingPathExtension + ".kilnlib")
        var backoff = 0.25
        var results = 0
        var lastSent: [SourceFile]? = nil
        while true {
            let client: WebSocketClient
            do {
                client = try WebSocketClient(url: url, allowSelfSigned: true)
            } catch {
                throw CommandFailure("\(error)")
            }
            guard client.waitUntilOpen(timeout: 5) else {
                client.close()
                Console.current.error("kiln live: cannot reach \(server); retrying in \(String(format: "%.2g", backoff)) s\n")
                Thread.sleep(forTimeInterval: backoff)
                backoff = min(backoff * 2, 5)
                continue
            }
            backoff = 0.25
            Console.current.error("kiln live: connected to \(server)\n")
            var loaded = try ShaderSources.load([file], includeDirectories: includeDirectories)
            var sources = loaded.files
            send(loaded, to: client)
            lastSent = sources
            var watched = modificationStamps(loaded.diskPaths)
            var previewing = false
            connection: while true {
                switch client.receive(timeout: pollInterval) {
                case .message(.text(let text))?:
                    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                    if object["type"] as? String == "compiled" {
                        results += 1
                        printDiagnostics(object, sources: lastSent ?? sources)
                        let ok = object["ok"] as? Bool ?? false
                        Console.current.error(ok ? "kiln live: compiled \(file)\n" : "kiln live: \(file) has errors; the preview keeps the last good version\n")
                        if ok, frame != nil, !previewing {
                            previewing = true
                            var start: [String: Any] = ["type": "preview.start", "size": size, "fps": fps, "format": "png"]
                            if let function { start["function"] = function }
                            client.send(.text(jsonText(start)))
                        }
                        if exitAfter > 0, results >= exitAfter, frame == nil || !ok { client.close(); return }
                    } else if object["type"] as? String == "error" {
                        Console.current.error("kiln live: server: \(object["message"] as? String ?? text)\n")
                    }
                case .message(.binary(let bytes))?:
                    if bytes.starts(with: Array("KILNLIB".utf8)) {
                        try? ShaderBuild.write(bytes, to: libraryPath)
                    } else if let header = FrameHeader(bytes: bytes), let frame {
                        try? ShaderBuild.write(Array(bytes[FrameHeader.byteCount...]), to: frame)
                        if exitAfter > 0, results >= exitAfter, header.format == .png { client.close(); return }
                    }
                case .closed(let reason)?:
                    Console.current.error("kiln live: disconnected (\(reason)); reconnecting\n")
                    break connection
                case nil:
                    break
                }
                // Every file the shader reached is watched: saving a header recompiles too.
                let stamp = modificationStamps(loaded.diskPaths)
                if stamp != watched {
                    if let reloaded = try? ShaderSources.load([file], includeDirectories: includeDirectories) {
                        loaded = reloaded
                        if reloaded.files.map(\.text) != lastSent?.map(\.text) || reloaded.files.map(\.name) != lastSent?.map(\.name) {
                            sources = reloaded.files
                            send(reloaded, to: client)
                            lastSent = sources
                        }
                    }
                    watched = modificationStamps(loaded.diskPaths)
                }
            }
            client.close()
            Thread.sleep(forTimeInterval: backoff)
        }
    }

    private func send(_ loaded: ShaderSources.Loaded, to client: WebSocketClient) {
        let files = loaded.files.map { ["name": $0.name, "text": $0.text] }
        var message: [String: Any] = ["type": "compile", "files": files]
        if !loaded.searchPaths.isEmpty { message["searchPaths"] = loaded.searchPaths }
        client.send(.text(jsonText(message)))
    }

    /// When each file was last changed (nil for a file that is gone).
    private func modificationStamps(_ paths: [String]) -> [Date?] {
        paths.map { (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date }
    }

    private func jsonText(_ object: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Rebuilds the server's JSON diagnostics against the local text so they print exactly
    /// like `kiln compile` prints them.
    private func printDiagnostics(_ object: [String: Any], sources: [SourceFile]) {
        guard let list = object["diagnostics"] as? [[String: Any]], !list.isEmpty else { return }
        var diagnostics: [Diagnostic] = []
        for item in list {
            let fileIndex = sources.firstIndex { $0.name == item["file"] as? String } ?? 0
            let source = sources[fileIndex]
            func location(_ line: Int, _ column: Int) -> SourceLocation {
                let start = line >= 1 && line <= source.lineStarts.count ? source.lineStarts[line - 1] : 0
                return SourceLocation(file: fileIndex, offset: start + max(0, column - 1), line: line, column: column)
            }
            let line = item["line"] as? Int ?? 1
            let column = item["column"] as? Int ?? 1
            let end = item["endColumn"] as? Int ?? column
            let severity = Diagnostic.Severity(rawValue: item["severity"] as? String ?? "error") ?? .error
            let notes = (item["notes"] as? [[String: Any]] ?? []).map { note -> Diagnostic.Note in
                let l = note["line"] as? Int, c = note["column"] as? Int
                return Diagnostic.Note(message: note["message"] as? String ?? "",
                                       range: l.flatMap { l in c.map { SourceRange(at: location(l, $0)) } })
            }
            diagnostics.append(Diagnostic(severity, item["message"] as? String ?? "", at: SourceRange(start: location(line, column), end: location(line, end)), notes: notes))
        }
        Console.current.error(DiagnosticRenderer.text(diagnostics, files: sources, color: Console.current.errorIsTerminal))
    }
}
