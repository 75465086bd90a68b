import Foundation
import KilnBytecode
import Testing

/// A few cases through the real `kiln` binary, as a user or a script runs it: exit
/// statuses, stdout/stderr separation, and files written.
@Suite("the kiln executable", .enabled(if: TestSupport.kilnExecutable != nil, "the kiln executable is not built"))
struct ExecutableTests {
    @Test("compile writes a library and exits 0")
    func compileSucceeds() throws {
        let folder = try TestSupport.temporaryDirectory()
        let output = folder.appendingPathComponent("ripple.kilnlib").path
        let run = try TestSupport.runExecutable(["compile", "shaders/ripple.metal", "-o", output])
        #expect(run.status == 0, "\(run.error)")
        let bytes = try #require(FileManager.default.contents(atPath: output))
        let library = try LibraryReader.decode([UInt8](bytes))
        #expect(library.function(named: "ripple")?.kind == .distortion)
    }

    @Test("a compile error exits 1 with clang-style text on stderr")
    func compileFails() throws {
        let folder = try TestSupport.temporaryDirectory()
        let shader = folder.appendingPathComponent("typo.metal")
        try """
            #include <metal_stdlib>
            using namespace metal;
            [[ stitchable ]] half4 typo(float2 position, half4 color) {
                return colour;
            }
            """.write(to: shader, atomically: true, encoding: .utf8)
        let run = try TestSupport.runExecutable(["compile", shader.path, "-o", folder.appendingPathComponent("typo.kilnlib").path])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.error.contains("typo.metal:4:"))
        #expect(run.error.contains("error: "))
        #expect(run.error.contains("colour"))
    }

    @Test("--json goes to stdout and parses")
    func json() throws {
        let run = try TestSupport.runExecutable(["compile", "shaders/tone.metal", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let names = (object?["functions"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names?.sorted() == ["duotone", "sepia"])
    }

    @Test("render with an absurd size fails with one clear line")
    func hugeRender() throws {
        let run = try TestSupport.runExecutable(["render", "shaders/vignette.metal", "--size", "100000x100000",
                                                 "-o", NSTemporaryDirectory() + "kiln-never.png"])
        #expect(run.status == 1)
        #expect(run.error.contains("too large"))
        #expect(run.error.split(separator: "\n").count == 1)
    }

    @Test("an unknown option is a usage error")
    func usage() throws {
        let run = try TestSupport.runExecutable(["compile", "--no-such-option", "shaders/wave.metal"])
        #expect(run.status == 64)
        #expect(run.error.contains("Usage"))
    }
}
