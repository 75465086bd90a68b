import Foundation
import Testing
@testable import KilnCLI

@Suite("kiln disasm")
struct DisasmCommandTests {
    @Test("disassembling a .metal file prints every function")
    func disasmSource() {
        let outcome = TestSupport.kiln("disasm", TestSupport.path("shaders/rotate.metal"))
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        #expect(outcome.output.contains("rotate"))
        #expect(outcome.output.contains("spinBlur"))
    }

    @Test("a library next to its sources is listed with the source lines")
    func disasmLibraryWithSources() throws {
        let folder = try TestSupport.temporaryDirectory()
        let shader = folder.appendingPathComponent("pixellate.metal")
        try FileManager.default.copyItem(atPath: TestSupport.path("shaders/pixellate.metal"), toPath: shader.path)
        let library = folder.appendingPathComponent("pixellate.kilnlib").path
        #expect(TestSupport.kiln("compile", shader.path, "-o", library).exitCode == 0)

        let withSources = TestSupport.kiln("disasm", library)
        #expect(withSources.exitCode == 0, "\(withSources.errorOutput)")
        #expect(withSources.output.contains("pixellate"))
        #expect(withSources.output.contains("floor(position / size)"))      // a source line

        // Changed sources no longer match the recorded SHA-256: no source lines then.
        try "// edited\n".write(to: shader, atomically: true, encoding: .utf8)
        let without = TestSupport.kiln("disasm", library)
        #expect(without.exitCode == 0)
        #expect(!without.output.contains("floor(position / size)"))
    }

    @Test("a file that is not a library is a clear error")
    func disasmGarbage() throws {
        let folder = try TestSupport.temporaryDirectory()
        let path = folder.appendingPathComponent("junk.kilnlib").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a library".utf8)))
        let outcome = TestSupport.kiln("disasm", path)
        #expect(outcome.exitCode == 1)
        #expect(outcome.errorOutput.contains("not a valid Kiln library"))
    }
}
