import Foundation
import KilnBytecode
import KilnTestSupport
import Testing
@testable import KilnCLI
@testable import KilnCompileTool

/// Shader projects laid out and written as public SwiftUI shader collections are
/// (`Tests/Projects/`): every `.metal` file compiles unchanged, and every stitchable or kernel entry
/// renders a non-constant image with nothing but the automatic arguments (clock, size,
/// rectangle under the names those projects use).
@Suite struct ProjectFixtureTests {
    /// Each project's shader files, with the project's include folder when it has one.
    static let shaders: [(path: String, includeDirectory: String?)] = {
        let root = RepositoryFiles.url("Tests/Projects")
        let projects = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
        var result: [(String, String?)] = []
        for project in projects {
            let folder = root.appendingPathComponent(project)
            guard let walker = FileManager.default.enumerator(atPath: folder.path) else { continue }
            let include = ["Include", "Common"].map { folder.appendingPathComponent($0).path }
                .first { FileManager.default.fileExists(atPath: $0) }
            for case let file as String in walker where file.hasSuffix(".metal") {
                result.append((folder.appendingPathComponent(file).path, include))
            }
        }
        return result.sorted { $0.0 < $1.0 }
    }()

    @Test func theProjectsAreThere() {
        #expect(Self.shaders.count >= 4)
    }

    @Test(arguments: shaders.map(\.path)) func compilesAndRendersWithAutomaticArguments(_ path: String) throws {
        let include = Self.shaders.first { $0.path == path }?.includeDirectory
        let sources = try ShaderSources.load([path], includeDirectories: include.map { [$0] } ?? [])
        let result = ShaderBuild.compile(sources.files, searchPaths: sources.searchPaths, printDiagnostics: false)
        let library = try #require(result.library, "\(path): \(result.diagnostics.map(\.message))")
        let renderer = FrameRenderer(threads: 1)
        let size = ImageSize(width: 48, height: 40)
        let contents = try renderer.loadContents("rainbow", "checker", size: size)
        let entries = library.functions.filter { $0.kind != .vertex && $0.kind != .fragment }
        #expect(!entries.isEmpty)
        for function in entries {
            // Every user argument here is automatic: no value is given.
            let manual = function.parameters.filter { $0.isUserArgument && $0.automatic == nil }
            #expect(manual.isEmpty, "\(function.name) has arguments without automatic values: \(manual.map(\.name))")
            let draw = try renderer.prepare(library: library, function: function, size: size, contents: contents,
                                            arguments: [:], time: 1.25)
            let image = try renderer.render(draw)
            #expect(!image.isConstant, "\(function.name) rendered a constant image")
        }
    }

    @Test func automaticArgumentsFollowOneTable() {
        func parameter(_ name: String, _ components: UInt8) -> Parameter {
            Parameter(name: name, typeName: "float", valueType: ValueType(.float, rows: components), binding: .uniform(word: 0))
        }
        #expect(["iTime", "secs", "t", "time"].map { parameter($0, 1).automatic } == Array(repeating: .time, count: 4))
        #expect(["viewSize", "uiSize", "size", "resolution"].map { parameter($0, 2).automatic } == Array(repeating: .size, count: 4))
        #expect(["bounds", "boundingRect", "box", "rect"].map { parameter($0, 4).automatic } == Array(repeating: .bounds, count: 4))
        #expect(parameter("viewSize", 4).automatic == nil)     // the wrong shape is not guessed at
        #expect(parameter("amount", 1).automatic == nil)
    }
}
