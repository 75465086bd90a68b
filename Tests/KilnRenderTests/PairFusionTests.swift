import Foundation
import KilnBytecode
import KilnRender
@testable import KilnVM
import Testing

/// Running dependent float pairs as one step (`ExecutionLimits.pairFusion`, `PairFusion`)
/// must not change a bit of any picture: the fused loop computes the same two roundings,
/// and the pass may only drop the intermediate where nothing reads it again — on any path,
/// in this batch or the next. Checked on every conformance case, benchmark shader and
/// example, and on shaders written to tempt a wrong liveness. With native segments off
/// (`ExecutionLimits.nativeSegments`): they take most pairs' instructions where the CPU
/// has AVX, and pairs are what runs where it has not.
@Suite struct PairFusionTests {
    static func fusedPairs(_ library: Library, _ name: String) -> Int {
        guard let index = library.functions.firstIndex(where: { $0.name == name }) else { return 0 }
        return PreparedFunction(library: library, functionIndex: index, nativeSegments: false).fusedPairCount
    }

    /// `request` without native segments.
    static func interpreted(_ request: RenderRequest) -> RenderRequest {
        var request = request
        request.executionLimits.nativeSegments = false
        return request
    }

    @Test(arguments: ConformanceCase.all)
    func conformanceCasesGiveTheSameBytes(_ testCase: ConformanceCase) throws {
        let request = try conformanceRequest(testCase)
        let (fused, apart) = try renderBothWays(Self.interpreted(request), \.pairFusion)
        let same = fused.bytes == apart.bytes
        #expect(same, "\(testCase.id): \(ImageDifference(fused, apart).maxAbs) levels apart at most")
    }

    /// The benchmark shaders, with and without uniform execution (scalar instructions change
    /// which pairs are candidates); the shader-art cases must actually fuse.
    @Test(arguments: UniformExecutionTests.benchCases)
    func benchmarkShadersGiveTheSameBytes(_ bench: UniformExecutionTests.BenchCase) throws {
        let url = Paths.repository.appendingPathComponent("bench/\(bench.file)")
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: bench.file)
        let name = try #require(library.functions.first { $0.name == bench.function }?.name ?? library.functions.first?.name)
        var request = bench.request(library, function: name)
        for uniform in [true, false] {
            request.executionLimits.uniformExecution = uniform
            let (fused, apart) = try renderBothWays(Self.interpreted(request), \.pairFusion)
            #expect(!fused.isConstant)
            let same = fused.bytes == apart.bytes
            #expect(same, "\(bench.file), uniform execution \(uniform): \(ImageDifference(fused, apart).maxAbs) levels apart")
        }
        let minimum = ["raymarch": 10, "clouds": 10, "sdf2d": 10, "swirl": 3][bench.function] ?? 0
        #expect(Self.fusedPairs(library, name) >= minimum, "\(bench.file) fuses too little")
    }

    @Test(arguments: ShaderGalleryTests.files)
    func examplesGiveTheSameBytes(_ file: String) throws {
        let library = try ShaderGalleryTests.library(file)
        for request in exampleRequests(library) {
            let (fused, apart) = try renderBothWays(Self.interpreted(request), \.pairFusion)
            #expect(fused.bytes == apart.bytes, "\(file) \(request.functionName)")
        }
    }

    /// `clamp` fuses its `fmax` and `fmin`: the fused lane loop must keep their rules on
    /// NaN (the other operand), ±0 (the order decides: `1 / x` shows the sign) and ±∞ —
    /// `v` below is all of those across the frame (0/0, ±x/0, −0). Divisions fuse with
    /// their neighbours too (`(v − 0.5) / w`, `v / 3 + 0.25`).
    @Test func clampsKeepTheirRulesOnSpecialValues() throws {
        let request = try specialValuesRequest(body: """
                float a = clamp(v, -0.0, 0.0);                          // −0 against +0: the order decides
                float b = clamp(v, -2.5, 3.5);
                float c = min(max(v, 0.0), -0.0);
                float d = max(min(v * 0.5, 1.0), -1.0);
                float e = fract((v - 0.5) / (position.x - 24.0)) + fract(v / 3.0 + 0.25);   // division pairs
            """, result: "half4(fract(1.0 / a * 0.001), fract(b), fract(1.0 / c * 0.001), d * 0.25 + 0.5 + e * 0.1)")
        let (fused, apart) = try renderBothWays(Self.interpreted(request), \.pairFusion)
        #expect(!fused.isConstant)
        let same = fused.bytes == apart.bytes
        #expect(same, "\(ImageDifference(fused, apart).maxAbs) levels apart")
        #expect(Self.fusedPairs(request.library, "edges") >= 4)
    }

    /// Vector arithmetic is lowered component by component — `p * 2.0 + offset` on a
    /// `float2` is two `fmul`s, then two `fadd`s — and `PairScheduling` moves a consumer up
    /// behind its producer where nothing in between touches their registers, so the pairs
    /// fuse. On art_ink (three domain-warped fbms) and art_metaballs that is over a third
    /// more pairs. (The pictures stay the same bytes: every example renders both ways above.)
    @Test(arguments: ["shaders/art_ink.metal", "shaders/art_metaballs.metal"])
    func consumersMoveUpToTheirProducers(_ file: String) throws {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent(file), encoding: .utf8)
        let library = try compile(text, name: (file as NSString).lastPathComponent)
        let function = try #require(library.functions.first)
        let prepared = PreparedFunction(library: library, functionIndex: 0, nativeSegments: false)
        let code = Array(library.code[library.clampedRange(function.body)])
        var unscheduled = prepared.body
        let blocks = BasicBlocks(code[...], start: Int(function.body.lowerBound))
        let without = PairFusion.fuse(&unscheduled, code: code, blocks: blocks, function: function)
        #expect(prepared.fusedPairCount * 3 > without * 4, "\(prepared.fusedPairCount) pairs, \(without) unscheduled")
    }

    /// Intermediates that stay live: read in the next iteration before being written
    /// (`carried`), read in another block (`kept`), an output (`t` in `.g`), read by the
    /// next batch (none can be: the body writes no prologue register). Every pair whose
    /// intermediate stays live must not fuse, or the picture changes.
    @Test func liveIntermediatesAreKept() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 tempt(float2 position, half4 color, float time) {
            float x = position.x * 0.01, y = position.y * 0.02;
            float acc = 0, carried = 0.25, kept = 0;
            for (int i = 0; i < 7; i++) {
                acc = acc + carried * 0.5;      // reads last iteration's product
                carried = x * float(i);
                acc = carried + acc;
                if (x > 0.3) { kept = y - acc; acc = acc * 0.75; }
                acc = acc - kept * 0.125;
            }
            float t = x * y;
            float z = t + acc;
            return half4(fract(z), t, fract(kept), 1);
        }
        """
        let library = try compile(source, name: "tempt.metal")
        let request = RenderRequest(library: library, functionName: "tempt", width: 70, height: 30,
                                    content: BuiltinContent.make("rainbow", width: 70, height: 30), time: 1)
        let (fused, apart) = try renderBothWays(Self.interpreted(request), \.pairFusion)
        #expect(!fused.isConstant)
        #expect(fused.bytes == apart.bytes, "\(ImageDifference(fused, apart).maxAbs) levels apart")
        #expect(Self.fusedPairs(library, "tempt") > 0)
    }
}
