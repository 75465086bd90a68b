import ArgumentParser
import Foundation
import KilnRender
import Testing
@testable import KilnCLI
import KilnCompileTool

/// `kiln scene FILE -o out.png` (SceneCommand; registered in Kiln.swift's subcommands).
@Suite struct SceneCommandTests {
    @Test func writesTheExampleScene() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-scene-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let command = try SceneCommand.parse([ScenePaths.scenes.appendingPathComponent("map_triangle.json").path,
                                              "-o", output.path, "--premultiplied", "--threads", "1"])
        try command.run()
        let written = try PNG.decode(Array(try Data(contentsOf: output)))
        try expectGolden(written, "example_map_triangle")
    }

    @Test func reportsSceneErrorsWithTheirPath() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-bad-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"layers": [{"id": "a", "type": "raster", "source": "x"}]}"#.utf8).write(to: file)
        let command = try SceneCommand.parse([file.path, "-o", "/tmp/unused.png"])
        #expect(throws: CommandFailure("\(file.path): layers[0].source: unknown source \"x\"")) { try command.run() }
    }
}
