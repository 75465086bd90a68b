import Foundation
import KilnBytecode
import Testing
@testable import KilnCLI

@Suite("kiln compile")
struct CompileCommandTests {
    @Test("a good shader compiles to a library the reader accepts")
    func compileWritesLibrary() throws {
        let folder = try TestSupport.temporaryDirectory()
        let output = folder.appendingPathComponent("wave.kilnlib").path
        let outcome = TestSupport.kiln("compile", TestSupport.path("shaders/wave.metal"), "-o", output)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        #expect(outcome.errorOutput.isEmpty)
        let bytes = try #require(FileManager.default.contents(atPath: output))
        let library = try LibraryReader.decode([UInt8](bytes))
        #expect(library.functions.map(\.name).sorted() == ["flagShade", "wave"])
    }

    @Test("a shader with an error exits 1 with clang-style diagnostics and writes nothing")
    func compileErrorExitsOne() throws {
        let folder = try TestSupport.temporaryDirectory()
        let shader = folder.appendingPathComponent("bad.metal")
        try """
            #include <metal_stdlib>
            using namespace metal;

            [[ stitchable ]] float2 bad(float2 position, float amplitude) {
                position.y += amplitud * sin(position.x);
                return position;
            }
            """.write(to: shader, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("bad.kilnlib").path
        let outcome = TestSupport.kiln("compile", shader.path, "-o", output)
        #expect(outcome.exitCode == 1)
        #expect(outcome.errorOutput.contains("bad.metal:5:"))
        #expect(outcome.errorOutput.contains("error:"))
        #expect(outcome.errorOutput.contains("amplitud"))
        #expect(outcome.errorOutput.contains("^"))                  // the caret line
        #expect(!outcome.errorOutput.contains("\u{1B}["))           // no colour when not a terminal
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("--json reports the functions of wave.metal with their kinds and arguments")
    func compileJSON() throws {
        let outcome = TestSupport.kiln("compile", TestSupport.path("shaders/wave.metal"), "--json")
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        let diagnostics = try #require(object["diagnostics"] as? [Any])
        #expect(diagnostics.isEmpty)
        let functions = try #require(object["functions"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: functions.map { ($0["name"] as? String ?? "", $0) })
        let wave = try #require(byName["wave"])
        #expect(wave["kind"] as? String == "distortion")
        #expect((wave["instructions"] as? Int ?? 0) > 0)
        #expect((wave["registers"] as? Int ?? 0) > 0)
        let shade = try #require(byName["flagShade"])
        #expect(shade["kind"] as? String == "color")

        let arguments = try #require(wave["arguments"] as? [[String: Any]])
        let names = arguments.compactMap { $0["name"] as? String }
        #expect(names == ["position", "bounds", "time", "amplitude", "wavelength", "speed"])
        let amplitude = try #require(arguments.first { $0["name"] as? String == "amplitude" })
        #expect(amplitude["type"] as? String == "float")
        #expect(amplitude["binding"] as? String == "uniform")
        #expect(amplitude["min"] as? Double == 0)
        #expect(amplitude["max"] as? Double == 30)
        #expect(amplitude["default"] as? [Double] == [8])
        #expect(amplitude["help"] as? String == "height of the waves in points")

        let library = try #require(object["library"] as? [String: Any])
        #expect((library["bytes"] as? Int ?? 0) > 0)
        let hashes = try #require(library["sha256"] as? [String])
        #expect(hashes.count == 1 && hashes[0].count == 64)
    }

    @Test("--json on a failing shader still prints a report, with the error")
    func compileJSONFailure() throws {
        let folder = try TestSupport.temporaryDirectory()
        let shader = folder.appendingPathComponent("broken.metal")
        try "[[ stitchable ]] half4 broken(float2 position, half4 color) { return color }\n"
            .write(to: shader, atomically: true, encoding: .utf8)
        let outcome = TestSupport.kiln("compile", shader.path, "--json")
        #expect(outcome.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.contains { $0["severity"] as? String == "error" })
        #expect(object["library"] is NSNull)
    }

    @Test("headers are include-only and found next to the including file")
    func headersAreFound() throws {
        let folder = try TestSupport.temporaryDirectory()
        let output = folder.appendingPathComponent("grain.kilnlib").path
        let outcome = TestSupport.kiln("compile", TestSupport.path("shaders/grain.metal"), "-o", output)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let library = try LibraryReader.decode([UInt8](try #require(FileManager.default.contents(atPath: output))))
        #expect(library.sources.map(\.name).contains("common.h"))

        let onlyHeader = TestSupport.kiln("compile", TestSupport.path("shaders/common.h"), "-o", output)
        #expect(onlyHeader.exitCode == 1)
        #expect(onlyHeader.errorOutput.contains("include-only"))
    }

    @Test("a missing file is a clear error")
    func missingFile() {
        let outcome = TestSupport.kiln("compile", "/nonexistent/shader.metal")
        #expect(outcome.exitCode == 1)
        #expect(outcome.errorOutput.contains("no such file"))
    }

    @Test("every example shader compiles without diagnostics", arguments: TestSupport.exampleShaders)
    func exampleCompiles(path: String) throws {
        let outcome = TestSupport.kiln("compile", path, "--json")
        #expect(outcome.exitCode == 0, "\(path): \(outcome.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        let diagnostics = try #require(object["diagnostics"] as? [Any])
        #expect(diagnostics.isEmpty, "\(path): \(diagnostics)")
        let functions = try #require(object["functions"] as? [[String: Any]])
        #expect(!functions.isEmpty)
    }

    @Test("there are at least 12 examples covering every kind")
    func examplesCoverEveryKind() throws {
        #expect(TestSupport.exampleShaders.count >= 12)
        var kinds = Set<String>()
        for path in TestSupport.exampleShaders {
            let outcome = TestSupport.kiln("compile", path, "--json")
            let object = try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any]
            for function in object?["functions"] as? [[String: Any]] ?? [] {
                kinds.insert(function["kind"] as? String ?? "")
            }
        }
        #expect(kinds.isSuperset(of: ["distortion", "color", "layer", "shape", "vertex", "fragment"]), "\(kinds)")
    }
}
