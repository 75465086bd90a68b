import Foundation
import Testing

/// A debugging aid: `KILN_PROBE=path/to/shader.metal swift test --filter DifferentialProbe`
/// runs one shader (same entry shape as the random programs) through the VM and the
/// reference and prints every disagreement; `KILN_PROBE_SEEDS=30,37` does the same for
/// random programs by seed (printing the program too). Does nothing without the variables.
@Suite struct DifferentialProbeTests {
    @Test func probeSeeds() {
        guard let list = ProcessInfo.processInfo.environment["KILN_PROBE_SEEDS"] else { return }
        for seed in list.split(separator: ",").compactMap({ UInt64($0) }) {
            let program = ProgramGenerator.generate(seed: seed)
            let problems = DifferentialTests.harness(program).mismatches(.make(seed: seed))
            print("seed \(seed): \(problems.count) problems; first: \(problems.first ?? "none")")
            if ProcessInfo.processInfo.environment["KILN_PROBE_PRINT"] != nil { print(program.source) }
        }
    }

    @Test func probe() throws {
        guard let path = ProcessInfo.processInfo.environment["KILN_PROBE"] else { return }
        let source = try String(contentsOfFile: path, encoding: .utf8)
        let harness = DifferentialHarness(source: source, isColorEffect: source.contains("half4 color"))
        for seed in [UInt64(1), 2, 3] {
            let problems = harness.mismatches(.make(seed: seed))
            print("probe inputs \(seed): \(problems.isEmpty ? "agree" : problems.prefix(8).joined(separator: "\n"))")
        }
    }
}
