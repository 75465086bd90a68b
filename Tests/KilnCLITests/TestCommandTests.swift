import Foundation
import KilnRender
import Testing
@testable import KilnCLI

@Suite("kiln test")
struct TestCommandTests {
    /// The examples' own goldens (shaders/kiln-test.json, shaders/golden/) pass.
    @Test func theExampleGoldensPass() {
        let outcome = Kiln.run(arguments: ["test", TestSupport.path("shaders")])
        #expect(outcome.exitCode == 0, "\(outcome.output)\(outcome.errorOutput)")
        #expect(outcome.output.contains("7 of 7 passed"))
    }

    static let shader = """
        [[ stitchable ]] half4 bands(float2 position, float level) {
            float v = fract(position.x / 16.0) * level;
            return half4(v, 0.5, 1.0 - v, 1.0);
        }
        """

    /// Bless, pass, break the shader: a FAIL with the numbers, the render and a difference
    /// heatmap written, exit status 1; a tolerance that covers it passes again.
    @Test func blessPassAndFail() throws {
        let folder = try TestSupport.temporaryDirectory()
        try Self.shader.write(to: folder.appendingPathComponent("bands.metal"), atomically: true, encoding: .utf8)
        let manifest = folder.appendingPathComponent("kiln-test.json")
        try #"{"cases": [{"name": "bands", "shader": "bands.metal", "size": [32, 16], "args": {"level": 1}}]}"#
            .write(to: manifest, atomically: true, encoding: .utf8)
        let missing = Kiln.run(arguments: ["test", folder.path])
        #expect(missing.exitCode == 1 && missing.output.contains("no golden image"))

        #expect(Kiln.run(arguments: ["test", folder.path, "--bless"]).exitCode == 0)
        let golden = try PNG.decode([UInt8](try #require(FileManager.default.contents(atPath: folder.appendingPathComponent("golden/bands.png").path))))
        #expect(golden.width == 32 && golden.height == 16)
        let passed = Kiln.run(arguments: ["test", folder.path])
        #expect(passed.exitCode == 0 && passed.output.contains("1 of 1 passed"))

        try Self.shader.replacingOccurrences(of: "0.5, 1.0 - v", with: "0.52, 1.0 - v")
            .write(to: folder.appendingPathComponent("bands.metal"), atomically: true, encoding: .utf8)
        let failed = Kiln.run(arguments: ["test", folder.path, "--json"])
        #expect(failed.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(failed.output.utf8)) as? [String: Any])
        let result = try #require((object["cases"] as? [[String: Any]])?.first)
        #expect(object["passed"] as? Bool == false && result["result"] as? String == "FAIL")
        #expect(result["maxDifference"] as? Int == 5 && result["differentPixels"] as? Int == 32 * 16)  // 0.5 → 0.52: 128 → 133
        let diff = try PNG.decode([UInt8](try #require(FileManager.default.contents(atPath: folder.appendingPathComponent("failures/bands.diff.png").path))))
        #expect(diff.width == 32 && !FileManager.default.contents(atPath: folder.appendingPathComponent("failures/bands.actual.png").path).isNil)

        try #"{"tolerance": 5, "cases": [{"name": "bands", "shader": "bands.metal", "size": [32, 16], "args": {"level": 1}}]}"#
            .write(to: manifest, atomically: true, encoding: .utf8)
        #expect(Kiln.run(arguments: ["test", folder.path]).exitCode == 0)
    }

    @Test func manifestErrorsNameTheField() throws {
        let cases: [(String, String)] = [
            (#"{"cases": [{"name": "a"}]}"#, "cases[0].shader"),
            (#"{"cases": [{"name": "../x", "shader": "a.metal"}]}"#, "cases[0].name"),
            (#"{"cases": [{"name": "a", "shader": "a.metal", "size": [0, 4]}]}"#, "cases[0].size"),
            (#"{"cases": [{"name": "a", "shader": "a.metal", "size": [99999, 4]}]}"#, "cases[0].size[0]"),
            (#"{"tolerance": 300, "cases": []}"#, "tolerance"),
            (#"{"cases": [{"name": "a", "shader": "a.metal", "args": {"k": "x"}}]}"#, "cases[0].args.k"),
            (#"[1, 2]"#, "not a JSON object"),
        ]
        for (json, field) in cases {
            #expect(throws: RenderError.self) { _ = try GoldenCheck.cases(fromJSON: Data(json.utf8)) }
            do { _ = try GoldenCheck.cases(fromJSON: Data(json.utf8)) } catch {
                #expect(error.message.contains(field), "\(json): \(error.message)")
            }
        }
    }
}

extension Optional {
    fileprivate var isNil: Bool { self == nil }
}
