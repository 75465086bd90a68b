import ArgumentParser
import Foundation
import KilnCompileTool
import KilnWebSockets

/// `kiln share FILE… [--server URL] [--function F] [--arg N=V] [--time T] [--size N] [--content C]`
///
/// Stores the shader (with the headers it includes), the function, argument values, time,
/// size and content on a server as a permalink (the WebSocket `share` message) and prints
/// the link: opening it in a browser loads exactly that state.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Store a shader and its settings on a kiln server and print the permalink.")

    @Argument(help: "The shader file (the headers it includes go with it).")
    var file: String

    @Option(help: "The server's WebSocket URL.")
    var server = "ws://localhost:8080/"

    @Option(help: "Entry function the link opens (default: the library's first).")
    var function: String?

    @Option(name: .customLong("arg"), help: "An argument value, NAME=VALUE (repeatable).")
    var arguments: [String] = []

    @Option(help: "The clock the link opens at, in seconds.")
    var time: Double?

    @Option(help: "Preview size the link opens at (a side, e.g. 512).")
    var size: Int?

    @Option(help: "Content under the effect: rainbow, checker, gradient or photo.")
    var content: String?

    @Option(help: "Token for a server started with --token.")
    var token: String?

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    func run() throws {
        let loaded = try ShaderSources.load([file], includeDirectories: includeDirectories)
        var state: [String: Any] = ["files": loaded.files.map { ["name": $0.name, "text": $0.text] }]
        if let main = loaded.files.first { state["name"] = main.name }
        if let function { state["function"] = function }
        let values = try ArgumentValues.parse(arguments)
        if !values.isEmpty { state["args"] = values.mapValues { $0.count == 1 ? $0[0] as Any : $0 as Any } }
        if let time { state["time"] = time }
        if let size { state["size"] = String(size) }
        if let content { state["content"] = content }

        var url = server
        if let token { url += (url.contains("?") ? "&" : "?") + "token=" + token }
        let client: WebSocketClient
        do { client = try WebSocketClient(url: url, allowSelfSigned: true) } catch { throw CommandFailure("\(error)") }
        defer { client.close() }
        guard client.waitUntilOpen(timeout: 5) else { throw CommandFailure("cannot reach \(server)") }
        let message: [String: Any] = ["type": "share", "id": 1, "state": state]
        let data = try JSONSerialization.data(withJSONObject: message)
        client.send(.text(String(decoding: data, as: UTF8.self)))
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            guard case .message(.text(let text))? = client.receive(timeout: 1),
                  let reply = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
            switch reply["type"] as? String {
            case "shared":
                let path = reply["url"] as? String ?? ""
                Console.current.line(Self.pageURL(server: server, path: path))
                return
            case "error":
                throw CommandFailure("the server refused: \(reply["message"] as? String ?? text)")
            default:
                continue
            }
        }
        throw CommandFailure("no answer from \(server) within 15 s")
    }

    /// `ws://host:port/` + `/s/<id>` → `http://host:port/s/<id>` (wss → https).
    static func pageURL(server: String, path: String) -> String {
        var base = server
        if base.hasPrefix("wss://") { base = "https://" + base.dropFirst(6) } else if base.hasPrefix("ws://") { base = "http://" + base.dropFirst(5) }
        if let query = base.firstIndex(of: "?") { base = String(base[..<query]) }
        while base.hasSuffix("/") { base.removeLast() }
        if let slash = base.dropFirst(base.hasPrefix("https://") ? 8 : 7).firstIndex(of: "/") { base = String(base[..<slash]) }
        return base + path
    }
}
