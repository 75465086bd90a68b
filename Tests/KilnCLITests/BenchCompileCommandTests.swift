import Foundation
import Testing
@testable import KilnCLI

/// `kiln bench compile`: the table of per-file medians, and under it each folder's median
/// of them (issue 10's compile target is the one over `shaders/`).
@Suite("kiln bench compile") struct BenchCompileCommandTests {
    @Test("each folder's median of the per-file medians follows the table")
    func summarizesEachFolder() throws {
        let root = try TestSupport.temporaryDirectory()
        let examples = root.appendingPathComponent("examples"), cases = root.appendingPathComponent("cases")
        for folder in [examples, cases] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        for name in ["pixellate", "vignette", "ripple"] {
            try FileManager.default.copyItem(atPath: TestSupport.path("shaders/\(name).metal"),
                                             toPath: examples.appendingPathComponent("\(name).metal").path)
        }
        try FileManager.default.copyItem(atPath: TestSupport.path("bench/wave.metal"), toPath: cases.appendingPathComponent("wave.metal").path)

        let outcome = TestSupport.kiln("bench", "compile", "--shaders-dir", examples.path, "--bench-dir", cases.path, "--runs", "3")
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        // The table's compile column, per folder.
        func column(_ folder: String) -> [Double] {
            lines.filter { $0.hasPrefix("\(folder)/") }.compactMap { Double($0.split(separator: " ", omittingEmptySubsequences: true)[3]) }
        }
        let exampleTimes = column("examples").sorted()
        #expect(exampleTimes.count == 3)
        #expect(column("cases").count == 1)
        let summary = try #require(lines.first { $0.hasPrefix("median over examples/ (3 files): ") })
        let stated = try #require(Double(summary.split(separator: " ")[5]))
        // The median of three rounded values is the middle one, as printed.
        #expect(stated == exampleTimes[1], "\(summary) against \(exampleTimes)")
        #expect(summary.hasSuffix(" µs"))
        #expect(lines.contains { $0.hasPrefix("median over cases/ (1 file): ") })
    }
}
