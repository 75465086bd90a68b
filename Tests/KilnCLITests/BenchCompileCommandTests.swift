import Foundation
import Testing
@testable import KilnCLI

/// `kiln bench compile`: the table of per-file medians (with the process's header cache and
/// without it), and under it each folder's median of them (issue 10's compile target is the
/// one over `shaders/`).
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
        // The table's compile columns (with and without the header cache), per folder.
        func column(_ folder: String, _ index: Int = 3) -> [Double] {
            lines.filter { $0.hasPrefix("\(folder)/") }.compactMap { Double($0.split(separator: " ", omittingEmptySubsequences: true)[index]) }
        }
        let exampleTimes = column("examples").sorted(), uncachedTimes = column("examples", 4).sorted()
        #expect(exampleTimes.count == 3 && uncachedTimes.count == 3)
        #expect(column("cases").count == 1)
        let summary = try #require(lines.first { $0.hasPrefix("median over examples/ (3 files): ") })
        let words = summary.split(separator: " ")
        let stated = try #require(Double(words[5])), statedUncached = try #require(Double(words[7].dropFirst()))
        // The median of three rounded values is the middle one, as printed.
        #expect(stated == exampleTimes[1], "\(summary) against \(exampleTimes)")
        #expect(statedUncached == uncachedTimes[1], "\(summary) against \(uncachedTimes)")
        #expect(summary.hasSuffix(" µs without the header cache)"))
        #expect(lines.contains { $0.hasPrefix("median over cases/ (1 file): ") })
    }
}
