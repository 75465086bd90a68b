import Foundation
import KilnRender
import KilnScene
import KilnServer
import Testing

/// The shipped examples under `scenes/` render.
@Suite struct SceneExampleTests {
    func render(_ name: String) throws -> RGBAImage {
        let url = ScenePaths.scenes.appendingPathComponent(name)
        let document = try SceneDocument.decode(Array(try Data(contentsOf: url)))
        return try SceneRenderer(libraries: CompilingLibraryProvider(), baseDirectory: ScenePaths.scenes, threads: 1).render(document)
    }

    @Test func mapTriangleExample() throws {
        let image = try render("map_triangle.json")
        #expect(image.width == 512 && image.height == 384)
        try expectGolden(image, "example_map_triangle")
    }

    @Test func meltTransitionExample() throws {
        let image = try render("melt_transition.json")
        try expectGolden(image, "example_melt_transition")
    }
}
