import Testing
import KilnCompiler
import KilnLanguage
import KilnVM

/// Compiler bugs the differential tests found, as small programs run through the VM and
/// checked against values worked out by hand (not against the reference evaluator, so a
/// bug shared by both would still show).
@Suite struct CompilerRegressionVMTests {
    /// One batch: lane `l` at pixel centre (l % 8 + 0.5, l / 8 + 0.5), a = 1.5, b = 0, k = 3.
    static let inputs: DifferentialHarness.Inputs = {
        var positions: [(Float, Float)] = []
        for lane in 0..<laneCount {
            let x = Float(lane % 8) + 0.5, y = Float(lane / 8) + 0.5
            positions.append((x, y))
        }
        let colors = [[Float]](repeating: [0, 0, 0, 1], count: laneCount)
        return DifferentialHarness.Inputs(positions: positions, colors: colors, a: 1.5, b: 0, k: 3)
    }()

    /// Runs `body` as `half4 f(float2 position, float a, float b, float kf)` and compares
    /// every lane's result with `expected(x, y)`.
    static func check(_ body: String, sourceLocation: Testing.SourceLocation = #_sourceLocation,
                      expected: (Float, Float) -> [Float]) {
        let source = "#include <metal_stdlib>\nusing namespace metal;\n"
            + "[[ stitchable ]] half4 f(float2 position, float a, float b, float kf) {\n\(body)\n}\n"
        let harness = DifferentialHarness(source: source, isColorEffect: false)
        let compiled = Compiler.compile([SourceFile(name: "regression.metal", text: source)])
        guard let library = compiled.library else {
            Issue.record("does not compile: \(compiled.diagnostics.map(\.message))", sourceLocation: sourceLocation)
            return
        }
        switch harness.runVM(library, inputs) {
        case .failure(let failure):
            Issue.record("VM failed: \(failure)", sourceLocation: sourceLocation)
        case .success(let lanes):
            var wrong: [String] = []
            for (lane, words) in lanes.enumerated() {
                let (x, y) = inputs.positions[lane]
                let got = words.map { Float(bitPattern: $0) }
                let want = expected(x, y)
                if got != want { wrong.append("lane \(lane) (\(x), \(y)): got \(got), expected \(want)") }
            }
            #expect(wrong.isEmpty, "\(wrong.count) lanes wrong; first: \(wrong.prefix(4))", sourceLocation: sourceLocation)
        }
    }

    /// DifferentialTests "conditional return followed by break inside a loop" (random seed
    /// 30): lanes that returned used to continue after the loop and be overwritten.
    @Test func divergentReturnThenBreak() {
        Self.check("""
            float f0 = 1.0;
            for (int j = 0; j < 7; j++) {
                if (position.y > 3.0) return half4(f0, 0, 0, 1);
                break;
            }
            f0 = 2.0;
            return half4(f0, 1, 0, 1);
            """) { _, y in y > 3 ? [1, 0, 0, 1] : [2, 1, 0, 1] }
    }

    /// The same with `continue`: the returned lanes used to run the next iteration too.
    @Test func divergentReturnThenContinue() {
        Self.check("""
            float s = 0.0;
            for (int j = 0; j < 4; j++) {
                if (position.y > 3.0 + float(j)) return half4(s, float(j), 0, 1);
                s += 1.0;
                continue;
            }
            return half4(s, 9, 0, 1);
            """) { _, y in y > 3 ? [0, 0, 0, 1] : [4, 9, 0, 1] }
    }

    /// DifferentialTests "vector assignment reading its own target under a divergent if"
    /// (and random seed 180): a masked multi-component write read components it had
    /// already overwritten.
    @Test func selfReadingAssignmentUnderDivergentIf() {
        Self.check("""
            float2 v = position;
            float4 w = float4(position, 7.0, 9.0);
            if (position.x > position.y) {
                v = v.yx;
                w.xz = float2(-w.z, w.x);
                w = float4(w.x, w.y, w.w, w.z);
            }
            return half4(v.x, v.y, w.x + w.w, w.z);
            """) { x, y in x > y ? [y, x, -7 + x, 9] : [x, y, x + 9, 7] }
    }

    /// The same through a dynamically indexed array (a register group written by `str`).
    @Test func selfReadingStoreIntoRegisterGroup() {
        Self.check("""
            float2 arr[3] = {float2(1.0, 2.0), float2(3.0, 4.0), float2(5.0, 6.0)};
            int i = int(position.x) % 3;
            arr[i] = arr[1].yx;
            return half4(arr[0].x + arr[0].y * 10.0, arr[1].x + arr[1].y * 10.0, arr[2].x + arr[2].y * 10.0, float(i));
            """) { x, _ in
            let i = Int(x) % 3
            var result: [Float] = [21, 43, 65, Float(i)]
            result[i] = 34
            return result
        }
    }
}
