import Foundation
import KilnTestSupport
import Testing
@testable import KilnCLI

/// Golden disassembly of a few example shaders: any change to what the compiler emits
/// for them shows up as a diff here. Regenerate on purpose with
/// `KILN_UPDATE_GOLDEN=1 swift test --filter GoldenDisassemblyTests`, and read the diff.
@Suite("golden disassembly")
struct GoldenDisassemblyTests {
    static let shaders = ["pixellate", "vignette", "triangle"]

    @Test("disassembly matches the golden file", arguments: shaders)
    func golden(name: String) throws {
        let outcome = TestSupport.kiln("disasm", TestSupport.path("shaders/\(name).metal"))
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let mismatch = Golden.mismatch(text: outcome.output, at: RepositoryFiles.url("Tests/KilnCLITests/Golden/\(name).disasm.txt"))
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }
}
