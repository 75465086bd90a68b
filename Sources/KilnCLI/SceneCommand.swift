import ArgumentParser
import Foundation
import KilnCompileTool
import KilnRender
import KilnScene
import KilnServer

/// `kiln scene SCENE.json -o out.png`: draws a scene document (docs/scenes.md) — its
/// layers, slots, custom vertex/fragment layers and effects — to a PNG.
struct SceneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "Render a scene document (camera, sources, layers) to a PNG file.",
        discussion: """
            Library paths and PNG sources in the scene are relative to the scene file's folder. \
            See docs/scenes.md for the document format.
            """)

    @Argument(help: "The scene document (.json).")
    var scene: String

    @Option(name: .shortAndLong, help: "Output PNG file.")
    var output: String

    @Flag(help: "Write premultiplied RGBA bytes as they are, instead of straight alpha.")
    var premultiplied = false

    @Option(help: "Worker threads (default: the number of cores).")
    var threads: Int?

    func validate() throws {
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be in 1...256") }
    }

    func run() throws {
        let image = try SceneRendering.render(file: scene, threads: threads ?? 0)
        try SceneRendering.writePNG(image, premultiplied: premultiplied, to: output)
    }
}

/// Scene rendering shared by `kiln scene` and `kiln render --scene`.
enum SceneRendering {
    /// Reads, checks and draws the scene at `file`.
    static func render(file: String, threads: Int = 0) throws -> RGBAImage {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure("\(file): cannot be read")
        }
        let document: SceneDocument
        do { document = try SceneDocument.decode(Array(data)) } catch {
            throw CommandFailure("\(file): \(error)")
        }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        let renderer = SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: folder, threads: threads)
        do { return try renderer.render(document) } catch {
            throw CommandFailure("\(file): \(error)")
        }
    }

    static func writePNG(_ image: RGBAImage, premultiplied: Bool, to path: String) throws {
        let bytes: [UInt8]
        do { bytes = try PNG.encode(premultiplied ? image : image.unpremultiplied()) } catch {
            throw CommandFailure("\(path): \(error.message)")
        }
        try ShaderBuild.write(bytes, to: path)
    }
}
