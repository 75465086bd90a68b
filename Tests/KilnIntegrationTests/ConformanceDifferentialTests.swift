import Foundation
import KilnTestSupport
import Testing
import KilnVM

/// The real shape and color shaders of the conformance set, run by the VM and by the
/// reference evaluator with the manifest's arguments, over several 8×8 blocks of the
/// image. A check of the oracle on real code as much as of the VM: both must agree to
/// within transcendental-builtin error (references: `Tests/Conformance/cases.json`).
@Suite struct ConformanceDifferentialTests {
    struct Case: CustomStringConvertible, Sendable {
        var id: String
        var function: String
        var isColorEffect: Bool
        var source: String
        var arguments: [String: [Float]]
        var description: String { id }
    }

    static let cases: [Case] = {
        let folder = RepositoryFiles.conformance
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("cases.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = json["cases"] as? [[String: Any]] else { return [] }
        var result: [Case] = []
        for entry in entries {
            guard let kind = entry["kind"] as? String, kind == "shape" || kind == "color",
                  let id = entry["id"] as? String, let function = entry["function"] as? String,
                  let file = entry["file"] as? String,
                  let source = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else { continue }
            var arguments: [String: [Float]] = [:]
            for argument in entry["args"] as? [[String: Any]] ?? [] {
                guard let name = argument["name"] as? String else { continue }
                if let number = argument["value"] as? Double { arguments[name] = [Float(number)] }
                if let numbers = argument["value"] as? [Double] { arguments[name] = numbers.map { Float($0) } }
            }
            result.append(Case(id: id, function: function, isColorEffect: kind == "color", source: source, arguments: arguments))
        }
        return result
    }()

    @Test func manifestFound() {
        #expect(Self.cases.count >= 10, "expected the 10 shape/color conformance cases")
    }

    @Test(arguments: cases) func conformanceShaderAgreesWithReference(_ testCase: Case) {
        var harness = DifferentialHarness(source: testCase.source, isColorEffect: testCase.isColorEffect)
        harness.entryName = testCase.function
        harness.tolerances = Array(repeating: .approximate(ulps: 64, absolute: 1e-4), count: 4)
        for (blockX, blockY) in [(0, 0), (56, 48), (120, 120), (24, 96)] {
            var inputs = DifferentialHarness.Inputs.make(seed: 7)
            // The 8×8 block in every 64 lanes, whatever the batch holds.
            inputs.positions = (0..<laneCount).map { (Float(blockX + $0 % 8) + 0.5, Float(blockY + $0 % 64 / 8) + 0.5) }
            inputs.named = testCase.arguments
            let problems = harness.mismatches(inputs)
            #expect(problems.isEmpty, Comment(rawValue: "\(testCase.id) block (\(blockX), \(blockY)):\n"
                                              + problems.prefix(6).joined(separator: "\n")))
            if !problems.isEmpty { break }
        }
    }
}
