import Testing
import Foundation
import KilnBytecode
import KilnLanguage
import KilnCompiler
@testable import KilnVM

/// Shader source → `Compiler.compile` → VM, checked against the same computation written
/// in Swift (same binary32 operations, `KilnMath` for builtins).
@Suite struct EndToEndTests {
    struct Compiled {
        var prepared: PreparedFunction
        var function: Function { prepared.function }

        init(_ source: String, entry: String, file: String = "shader.metal") throws {
            let result = Compiler.compile([SourceFile(name: file, text: source)])
            let library = try #require(result.library, "\(result.diagnostics.map(\.message))")
            let index = try #require(library.functions.firstIndex { $0.name == entry })
            prepared = PreparedFunction(library: library, functionIndex: index)
        }

        /// Runs one batch with `position` per lane and the given uniform words; returns the
        /// four components of `result` per lane.
        func run(positions: [(Float, Float)], uniforms: [UInt32], limits: ExecutionLimits = ExecutionLimits(),
                 color: [(Float, Float, Float, Float)]? = nil) throws -> [[Float]] {
            let executor = try Executor(prepared, resources: DrawResources(uniforms: uniforms, limits: limits))
            for slot in function.inputs {
                for component in 0..<slot.type.componentCount {
                    let lanes = executor.floatLanes(slot.register + UInt16(component))
                    for l in 0..<laneCount {
                        let p = positions[l % positions.count]
                        let c = color?[l % color!.count] ?? (0, 0, 0, 0)
                        let values = slot.name == "position" ? [p.0, p.1] : [c.0, c.1, c.2, c.3]
                        lanes[l] = values[component]
                    }
                }
            }
            try executor.run()
            let result = try #require(function.outputs.first)
            return (0..<laneCount).map { l in
                (0..<result.type.componentCount).map { executor.floatLanes(result.register + UInt16($0))[l] }
            }
        }
    }

    /// Divergent loop with per-lane trip counts, `break`, and a divergent `if`.
    @Test func divergentLoopMatchesScalarSwift() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 steps(float2 position, float limit) {
            int n = int(position.x) % 7;
            float acc = 0;
            for (int i = 0; i < n; i++) {
                acc += 1.5;
                if (acc > limit) break;
            }
            if (position.y > 10) acc = -acc;
            return half4(acc, float(n), 0, 1);
        }
        """
        let compiled = try Compiled(source, entry: "steps")
        let positions: [(Float, Float)] = (0..<laneCount).map { (lane: Int) -> (Float, Float) in
            (Float(lane) + 0.5, lane % 3 == 0 ? 20.5 : 5.5)
        }
        let limit: Float = 4
        let out = try compiled.run(positions: positions, uniforms: [limit.bitPattern])
        for (l, p) in positions.enumerated() {
            let n = Int(p.0) % 7
            var acc: Float = 0
            for _ in 0..<n { acc += 1.5; if acc > limit { break } }
            if p.1 > 10 { acc = -acc }
            #expect(out[l] == [acc, Float(n), 0, 1], "lane \(l)")
        }
    }

    /// The conformance `sparkle` hash, bit for bit against Swift with Kiln's `sin`.
    /// The hash everyone copies, through the compiler and the VM, against the same steps in
    /// scalar Swift: plain `sin` is the binary32 version, `precise::sin` the binary64 one.
    @Test(arguments: ["sin", "precise::sin"])
    func sparkleHashMatchesScalarSwift(sine: String) throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        float hash21(float2 p) {
            return fract(\(sine)(dot(p, float2(12.9898, 78.233))) * 43758.5453);
        }
        [[ stitchable ]] half4 hashed(float2 position, half4 color) {
            return half4(hash21(floor(position / 8.0)), 0, 0, 1);
        }
        """
        let compiled = try Compiled(source, entry: "hashed")
        let positions: [(Float, Float)] = (0..<laneCount).map { (lane: Int) -> (Float, Float) in
            (Float(lane * 2) + 0.5, Float(lane * 5 % 128) + 0.5)
        }
        let out = try compiled.run(positions: positions, uniforms: [], color: [(0, 0, 0, 1)])
        let sin: (Float) -> Float = sine == "sin" ? KilnMath.fastSinAny : KilnMath.sin
        for (l, p) in positions.enumerated() {
            let cellX: Float = KilnMath.floor(p.0 / 8)
            let cellY: Float = KilnMath.floor(p.1 / 8)
            let productX: Float = cellX * 12.9898
            let productY: Float = cellY * 78.233
            let dot: Float = productX + productY
            let scaled: Float = sin(dot) * 43758.5453
            let expected: Float = KilnMath.fract(scaled)
            #expect(out[l][0] == expected, "lane \(l)")
        }
    }

    @Test func runawayLoopFromSourceNamesItsLine() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 spin(float2 position, float k) {
            float x = position.x;
            while (x > -1) {
                x = x + k;
            }
            return half4(x, 0, 0, 1);
        }
        """
        let compiled = try Compiled(source, entry: "spin", file: "spin.metal")
        var limits = ExecutionLimits()
        limits.instructionBudgetPerLane = 10_000
        let start = Date()
        #expect {
            _ = try compiled.run(positions: [(1, 1)], uniforms: [Float(1).bitPattern], limits: limits)
        } throws: { error in
            let message = (error as? VMError)?.message ?? ""
            return message.contains("spin.metal:") && message.contains("instructionBudgetPerLane = 10000")
                && ((error as? VMError)?.location?.line ?? 0) >= 5 && ((error as? VMError)?.location?.line ?? 99) <= 7
        }
        #expect(Date().timeIntervalSince(start) < 1)
    }

    /// 8-bit integers wrap like C's `char`/`uchar` on a GPU: each value is computed as an
    /// `int` and narrowed when stored, per lane, with a position-dependent input.
    @Test func eightBitIntegersWrapPerLane() throws {
        let shader = try Compiled("""
            [[ stitchable ]] half4 f(float2 position) {
                int x = int(position.x);
                uchar a = uchar(x * 37);          // wraps mod 256
                char b = char(x * 37);            // wraps into -128…127
                uchar c = a; c += 250;
                char4 v = char4(int4(x, -x, x * 100, 200));
                return half4(float4(float(a), float(b), float(c), float(v.z + v.w)));   // half is binary32 in Kiln
            }
            """, entry: "f")
        let positions = (0..<laneCount).map { (Float($0), Float(0)) }
        let results = try shader.run(positions: positions, uniforms: [])
        for (lane, result) in results.enumerated() {
            let x = lane
            let a = UInt8(truncatingIfNeeded: x * 37), b = Int8(truncatingIfNeeded: x * 37)
            let c = UInt8(truncatingIfNeeded: Int(a) + 250)
            let z = Int(Int8(truncatingIfNeeded: x * 100)) + Int(Int8(truncatingIfNeeded: 200))
            #expect(result == [Float(a), Float(b), Float(c), Float(z)], "lane \(lane)")
        }
    }

    /// `half3(v4)` / `float2(v4)` take the first components (Apple's compiler does).
    @Test func longerVectorsTruncateInConstructors() throws {
        let shader = try Compiled("""
            [[ stitchable ]] half4 f(float2 position) {
                float4 v = float4(position, position.x * 2.0, 7.0);
                float3 t = float3(v);
                int2 i = int2(float3(2.7, -1.5, 9));
                return half4(float4(float2(v), t.z + float(i.x), float(i.y)));
            }
            """, entry: "f")
        let results = try shader.run(positions: [(3, 5)], uniforms: [])
        #expect(results[0] == [3, 5, 8, -1])
    }
}
