import Foundation
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
        let goldenPath = TestSupport.path("Tests/KilnCLITests/Golden/\(name).disasm.txt")
        if ProcessInfo.processInfo.environment["KILN_UPDATE_GOLDEN"] == "1" {
            try outcome.output.write(toFile: goldenPath, atomically: true, encoding: .utf8)
            return
        }
        let expected = try #require(try? String(contentsOfFile: goldenPath, encoding: .utf8),
                                    "missing \(goldenPath): run with KILN_UPDATE_GOLDEN=1 to create it")
        if outcome.output != expected {
            Issue.record("disassembly of \(name).metal differs from \(goldenPath):\n\(Self.firstDifference(expected, outcome.output))")
        }
    }

    /// The first differing line, for a readable failure.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? String(a[index]) : "<end>"
            let right = index < b.count ? String(b[index]) : "<end>"
            if left != right {
                return "line \(index + 1):\n  expected: \(left)\n  actual:   \(right)"
            }
        }
        return "(no line differs)"
    }
}
