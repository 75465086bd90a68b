import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnRender
import KilnTestSupport
import KilnVM
import Testing

/// Every example in `shaders/` renders: each entry function (a vertex function through its
/// fragment pair, not on its own) gives a non-constant 128×128 image with its `@arg`
/// defaults over the built-in content. Three of them are pinned to golden images.
@Suite struct ShaderGalleryTests {
    static let folder = Paths.repository.appendingPathComponent("shaders")
    static let goldenFolder = Paths.repository.appendingPathComponent("Tests/KilnRenderTests/Golden")

    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".metal") }.sorted()
    }()

    /// Compiles one gallery file together with the headers next to it.
    static func library(_ file: String, options: CompileOptions = .init()) throws -> Library {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var sources = [SourceFile(name: file, text: try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))]
        for header in names.filter({ $0.hasSuffix(".h") }).sorted() {
            sources.append(SourceFile(name: header, text: try String(contentsOf: folder.appendingPathComponent(header), encoding: .utf8)))
        }
        let result = Compiler.compile(sources, options: options)
        guard let library = result.library else {
            throw RenderError(DiagnosticRenderer.text(result.diagnostics, files: result.files))
        }
        return library
    }

    /// The functions a user can pick: everything except fragment functions that belong to a
    /// vertex function of the same file (they are drawn through it).
    static func entries(_ library: Library) -> [Function] {
        let hasVertex = library.functions.contains { $0.kind == .vertex }
        return library.functions.filter { !(hasVertex && $0.kind == .fragment) }
    }

    /// Arguments an entry needs that have no `@arg` default: a vertex buffer has none (its
    /// comment shows the command line that draws the red, green and blue triangle).
    static let required: [String: [String: [Float]]] = [
        "triangleVertex": ["vertices": [0, 0.8, 0, 1, 1, 0, 0, 1, -0.8, -0.7, 0, 1, 0, 1, 0, 1, 0.8, -0.7, 0, 1, 0, 0, 1, 1]],
        // World coordinates with the default (identity) projection: a triangle in clip space.
        "mapTriangleVertex": ["vertices": [-0.6, -0.5, 0, 0, 1, 0.5, 0, 1, 0.7, -0.4, 0, 0, 0, 0.6, 1, 1, 0, 0.7, 0, 0, 1, 1, 1, 1]],
    ]

    static func render(_ library: Library, _ function: String, threads: Int = 0) throws -> RGBAImage {
        try Renderer.render(RenderRequest(library: library, functionName: function, width: 128, height: 128,
                                          content: BuiltinContent.make("rainbow", width: 128, height: 128),
                                          content2: BuiltinContent.make("checker", width: 128, height: 128),
                                          arguments: required[function] ?? [:], threads: threads))
    }

    @Test func theGalleryIsThere() {
        #expect(Self.files.count >= 12)
    }

    @Test(arguments: files)
    func everyEntryRendersANonConstantImage(_ file: String) throws {
        let library = try Self.library(file)
        let entries = Self.entries(library)
        #expect(!entries.isEmpty)
        for function in entries {
            let image = try Self.render(library, function.name)
            #expect(image.width == 128 && image.height == 128)
            let varies = !image.isConstant
            #expect(varies, "\(file): \(function.name) (\(function.kind.name)) rendered a constant image")
        }
    }

    /// Golden images: exact bytes. Regenerate with `KILN_UPDATE_GOLDEN=1 swift test` after a
    /// change that is meant to alter them, and look at the new images before committing.
    @Test(arguments: [("rotate.metal", "spinBlur"), ("rounded_rect.metal", "roundedRect"), ("melt.metal", "screenMelt")])
    func matchesItsGoldenImage(_ file: String, _ function: String) throws {
        let library = try Self.library(file)
        let actual = try Self.render(library, function)
        // Golden PNGs hold the premultiplied bytes as they are, like the conformance references.
        let mismatch = Golden.mismatch(bytes: Data(try PNG.encode(actual)), at: Self.goldenFolder.appendingPathComponent("\(function).png")) { stored in
            guard let expected = try? PNG.decode(Array(stored)) else { return "not a PNG" }
            guard actual != expected else { return nil }
            let difference = ImageDifference(actual, expected)
            let folder = writeArtifacts("golden/\(function)", [
                "actual.png": actual, "expected.png": expected, "diff.png": ImageDifference.heatMap(actual, expected),
            ])
            return "up to \(difference.maxAbs) levels; images in \(folder)"
        }
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }
}
