import ArgumentParser
import Foundation
import KilnBytecode
import KilnCompileTool
import KilnCompiler
import KilnJSON
import KilnRender
import KilnVM

/// `kiln test DIR [--bless] [--manifest FILE] [--json]`
///
/// Golden-image tests for a folder of shaders (`GoldenCheck`): renders every case of
/// `DIR/kiln-test.json`, compares it with `DIR/golden/<case>.png` (premultiplied RGBA8,
/// within the case's tolerance), prints a table, writes `DIR/failures/<case>.actual.png` and
/// `.diff.png` for each failure, and exits 1 when any case fails — for CI. `--bless`
/// (re)writes the goldens from what renders now.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Render the cases of a golden-image manifest and compare them with their stored images.",
        discussion: """
            DIR/kiln-test.json lists the cases: {"tolerance": 0, "cases": [{"name", "shader", \
            "function", "size": [w, h], "content", "content2", "time", "args": {…}, \
            "tolerance", "maxDifferentPixels"}]}. Goldens live in DIR/golden/, failures go to \
            DIR/failures/ (the render and a difference heatmap). Exit status 1 when a case fails.
            """)

    @Argument(help: "The folder with the shaders, kiln-test.json and golden/.")
    var directory: String

    @Option(help: "The manifest (default: DIR/kiln-test.json).")
    var manifest: String?

    @Flag(help: "Write the goldens from what renders now instead of comparing.")
    var bless = false

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    @Option(help: "Worker threads (default: the number of cores).")
    var threads: Int?

    @Flag(help: "Print the results as JSON instead of a table.")
    var json = false

    func run() throws {
        let folder = URL(fileURLWithPath: directory)
        let manifestPath = manifest ?? folder.appendingPathComponent("kiln-test.json").path
        let data = try ShaderSources.readData(manifestPath, limit: ShaderSources.Limits().maxFileBytes)
        let cases: [GoldenCheck.Case]
        do { cases = try GoldenCheck.cases(fromJSON: Data(data)) } catch { throw CommandFailure("\(manifestPath): \(error.message)") }
        let goldens = folder.appendingPathComponent("golden"), failures = folder.appendingPathComponent("failures")
        var libraries: [String: Library] = [:]
        var table = TextTable([("case", .left), ("result", .left), ("size", .left), ("max diff", .right),
                               ("pixels over", .right), ("ms", .right)])
        var records: [[String: Any]] = []
        var failed = 0
        for testCase in cases {
            let started = Date()
            var result = "pass", maxDifference = 0, different = 0
            var note: String?
            do {
                let shaderPath = folder.appendingPathComponent(testCase.shader).path
                let library: Library
                if let cached = libraries[shaderPath] {
                    library = cached
                } else {
                    library = try ShaderBuild.load([shaderPath], includeDirectories: includeDirectories + [folder.path]).library
                    libraries[shaderPath] = library
                }
                let image = try GoldenCheck.render(testCase, library: library, content: try content(testCase.content, in: folder),
                                                   content2: try content(testCase.content2, in: folder), threads: threads ?? 0)
                let goldenPath = goldens.appendingPathComponent(testCase.name + ".png").path
                if bless {
                    try FrameRenderer(threads: 1).writePNG(image, premultiplied: true, to: goldenPath)
                    result = "blessed"
                } else if !FileManager.default.fileExists(atPath: goldenPath) {
                    result = "FAIL"
                    note = "no golden image \(goldenPath) (run kiln test --bless)"
                    try FrameRenderer(threads: 1).writePNG(image, premultiplied: true,
                                                           to: failures.appendingPathComponent(testCase.name + ".actual.png").path)
                } else {
                    let golden = try FrameRenderer.readPNG(goldenPath)
                    let comparison = GoldenCheck.compare(image, golden: golden, tolerance: testCase.tolerance,
                                                         maxDifferentPixels: testCase.maxDifferentPixels)
                    (maxDifference, different) = (comparison.maxDifference, comparison.differentPixels)
                    if !comparison.passed {
                        result = "FAIL"
                        note = comparison.reason
                        let writer = FrameRenderer(threads: 1)
                        try writer.writePNG(image, premultiplied: true, to: failures.appendingPathComponent(testCase.name + ".actual.png").path)
                        if let diff = comparison.diff {
                            try writer.writePNG(diff, premultiplied: true, to: failures.appendingPathComponent(testCase.name + ".diff.png").path)
                        }
                    }
                }
            } catch let error as CommandFailure {
                (result, note) = ("FAIL", error.message)
            } catch is CompileFailed {
                (result, note) = ("FAIL", "\(testCase.shader) does not compile")
            } catch {
                (result, note) = ("FAIL", "\(error)")
            }
            if result == "FAIL" { failed += 1 }
            let milliseconds = Date().timeIntervalSince(started) * 1e3
            table.add([testCase.name, result + (note.map { ": " + $0 } ?? ""), "\(testCase.width)x\(testCase.height)",
                       "\(maxDifference)", "\(different)", Format.fixed(milliseconds, 1)])
            var record: [String: Any] = ["name": testCase.name, "result": result, "maxDifference": maxDifference,
                                         "differentPixels": different, "ms": JSONText.rounded(milliseconds, digits: 2)]
            if let note { record["note"] = note }
            records.append(record)
        }
        if json {
            Console.current.line(JSONText.serialize(["passed": failed == 0, "cases": records] as [String: Any]))
        } else {
            Console.current.write(table.text)
            let verb = bless ? "blessed" : "passed"
            Console.current.line("\(cases.count - failed) of \(cases.count) \(verb)" + (failed > 0 ? "; failures in \(failures.path)/" : ""))
        }
        if failed > 0 { throw ExitCode.failure }
    }

    /// A built-in content name, or a PNG next to the manifest (premultiplied on load).
    func content(_ name: String, in folder: URL) throws -> Texture? {
        guard name.lowercased().hasSuffix(".png") else { return nil }
        return try FrameRenderer.readPNG(folder.appendingPathComponent(name).path).premultipliedTexture()
    }
}
