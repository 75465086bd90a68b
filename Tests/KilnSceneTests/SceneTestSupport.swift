import Foundation
import KilnRender
import KilnScene
import KilnServer
import KilnTestSupport
import Testing

/// Paths of the repository.
enum ScenePaths {
    static let repository = RepositoryFiles.root
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let scenes = repository.appendingPathComponent("scenes")
    static let artifacts: URL = {
        if let path = ProcessInfo.processInfo.environment["KILN_ARTIFACTS"] { return URL(fileURLWithPath: path) }
        return repository.appendingPathComponent(".build/artifacts/scenes")
    }()
}

/// Decodes a scene from JSON text.
func scene(_ text: String) throws -> SceneDocument {
    try SceneDocument.decode(Array(text.utf8))
}

/// The error decoding `text` reports, as `path: message`.
func sceneError(_ text: String) -> String? {
    do {
        _ = try SceneDocument.decode(Array(text.utf8))
        return nil
    } catch {
        return error.description
    }
}

/// Renders a scene with one worker (deterministic and cheap on the shared cores).
func renderScene(_ text: String, renderer: SceneRenderer = SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: ScenePaths.scenes, threads: 1)) throws -> RGBAImage {
    try renderer.render(try scene(text))
}

/// The premultiplied RGBA8 pixel at (x, y); empty outside the image (so a test fails
/// instead of trapping).
func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [UInt8] {
    guard x >= 0, y >= 0, x < image.width, y < image.height else { return [] }
    let index = (y * image.width + x) * 4
    return Array(image.bytes[index..<index + 4])
}

/// Compares `image` with `Golden/<name>.png` (stored premultiplied, as rendered), allowing
/// one 8-bit level per channel; `KILN_UPDATE_GOLDEN=1` rewrites the file instead. A
/// mismatch writes what was seen next to the artifacts.
func expectGolden(_ image: RGBAImage, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let mismatch = Golden.mismatch(bytes: Data(try PNG.encode(image)), at: ScenePaths.golden.appendingPathComponent("\(name).png")) { stored in
        guard let expected = try? PNG.decode(Array(stored)) else { return "not a PNG" }
        var worst = 0
        if expected.width == image.width, expected.height == image.height {
            for index in image.bytes.indices { worst = max(worst, abs(Int(image.bytes[index]) - Int(expected.bytes[index]))) }
        } else {
            worst = 255
        }
        guard worst > 1 else { return nil }
        try? FileManager.default.createDirectory(at: ScenePaths.artifacts, withIntermediateDirectories: true)
        try? Data(try PNG.encode(image)).write(to: ScenePaths.artifacts.appendingPathComponent("\(name).png"))
        return "up to \(worst) levels (what was rendered is in \(ScenePaths.artifacts.path))"
    }
    #expect(mismatch == nil, "\(mismatch ?? "")", sourceLocation: sourceLocation)
}
