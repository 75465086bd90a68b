import Foundation
import KilnBytecode
import KilnCompiler
import KilnRender
import KilnVM
import Testing

/// Loops with a known trip count are lowered as copies of their body
/// (`FunctionLowerer+Unrolling`, `CompileOptions.maxUnrolledIterations`). The copies must
/// compute exactly what the loop computed: every conformance case, benchmark shader and
/// example renders the same bytes unrolled and not, and so do loops written to trip an
/// unroller up (a body that moves its own counter, do-while, nested and divergent loops).
@Suite struct LoopUnrollingTests {
    static let rolled = CompileOptions.loopsKept

    static func render(_ request: RenderRequest, _ rolledLibrary: Library) throws -> (unrolled: RGBAImage, rolled: RGBAImage) {
        var other = request
        other.library = rolledLibrary
        return (try Renderer.render(request), try Renderer.render(other))
    }

    /// Jumps in a function's body (uniform and masked): what unrolling removes.
    static func jumps(_ library: Library, _ name: String) -> Int {
        guard let function = library.functions.first(where: { $0.name == name }) else { return -1 }
        return library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)]
            .filter { [.jmp, .jz, .jnz, .jany, .jnone].contains($0.opcode) }.count
    }

    @Test(arguments: ConformanceCase.all)
    func conformanceCasesGiveTheSameBytes(_ testCase: ConformanceCase) throws {
        let source = try String(contentsOf: Paths.conformance.appendingPathComponent(testCase.file), encoding: .utf8)
        let library = try compile(source, name: testCase.id + ".metal")
        let (unrolled, rolled) = try Self.render(try testCase.request(library),
                                                 try compile(source, name: testCase.id + ".metal", options: Self.rolled))
        #expect(unrolled.bytes == rolled.bytes, "\(testCase.id): \(ImageDifference(unrolled, rolled).maxAbs) levels apart")
    }

    @Test(arguments: UniformExecutionTests.benchCases)
    func benchmarkShadersGiveTheSameBytes(_ bench: UniformExecutionTests.BenchCase) throws {
        let source = try String(contentsOf: Paths.repository.appendingPathComponent("bench/\(bench.file)"), encoding: .utf8)
        let library = try compile(source, name: bench.file)
        let request = bench.request(library, function: bench.function)
        let (unrolled, rolled) = try Self.render(request, try compile(source, name: bench.file, options: Self.rolled))
        #expect(!unrolled.isConstant)
        #expect(unrolled.bytes == rolled.bytes, "\(bench.file): \(ImageDifference(unrolled, rolled).maxAbs) levels apart")
    }

    @Test(arguments: ShaderGalleryTests.files)
    func examplesGiveTheSameBytes(_ file: String) throws {
        let library = try ShaderGalleryTests.library(file)
        let rolledLibrary = try ShaderGalleryTests.library(file, options: Self.rolled)
        for request in exampleRequests(library) {
            let (unrolled, rolled) = try Self.render(request, rolledLibrary)
            #expect(unrolled.bytes == rolled.bytes, "\(file) \(request.functionName)")
        }
    }

    /// What unrolls and what does not: layer9's 3×3 taps and sdf2d's sixteen shapes become
    /// straight-line code (sdf2d's `(i & 1) == 0 ? box : circle` one arm per copy, not a
    /// branch), and the sphere centres of raymarch, computed from the counter and `time`
    /// alone, move to the prologue: once per draw; raymarch's march (it can `break`: a
    /// masked loop, `jany` back) and swirl's 32 iterations (above the limit) stay loops.
    @Test func knownTripCountsUnroll() throws {
        func library(_ file: String) throws -> Library {
            try compile(try String(contentsOf: Paths.repository.appendingPathComponent("bench/\(file)"), encoding: .utf8), name: file)
        }
        #expect(Self.jumps(try library("box9.metal"), "box9") == 0)
        #expect(Self.jumps(try library("sdf2d.metal"), "sdf2d") == 0)
        #expect(Self.jumps(try library("fbm.metal"), "clouds") == 0)
        #expect(Self.jumps(try library("swirl.metal"), "swirl") > 0)
        let raymarch = try library("raymarch.metal")
        #expect(Self.jumps(raymarch, "raymarch") > 0)
        let function = try #require(raymarch.functions.first)
        let sines = raymarch.code[Int(function.prologue.lowerBound)..<Int(function.prologue.upperBound)]
            .filter { $0.opcode == .fsin || $0.opcode == .fcos }.count
        #expect(sines >= 24, "the 8 sphere centres' sin/cos belong in the prologue, found \(sines)")
    }

    /// Loops that look unrollable and are not quite, or only just: each must render as the
    /// rolled loop does, and the ones the limits exclude must keep their jumps.
    @Test func trickyLoopsGiveTheSameBytes() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 tricky(float2 position, half4 color, float time, float count) {
            float x = position.x * 0.01, y = position.y * 0.02;
            float acc = 0;
            for (int i = 0; i < 10; i++) { acc += x * float(i); if (i == 3) i += 2; }      // moves its counter
            int k = 0;
            do { acc = acc * 0.9 + y; k++; } while (k < 4);                               // do-while
            for (int j = 0; j < 3; j++)                                                   // nested, inner unknown
                for (int m = 0; m < int(count); m++) acc += 0.01 * float(j + m);
            if (x > 0.4) { for (int n = 0; n < 5; n++) acc -= y * 0.1; }                  // under a divergent mask
            for (int big = 0; big < 17; big++) acc += 0.001;                              // one over the limit
            for (float f = 0.0; f < 1.0; f += 0.25) acc += f * x;                         // float counter
            int e = 0;
            while (e < 6) { e += 2; acc += sin(float(e) + time) * x; }                    // while, step in the body
            return half4(fract(acc), fract(acc * 3.1), fract(acc * 7.7), 1);
        }
        """
        let library = try compile(source, name: "tricky.metal")
        var request = RenderRequest(library: library, functionName: "tricky", width: 70, height: 40,
                                    content: BuiltinContent.make("rainbow", width: 70, height: 40), time: 0.6, threads: 2)
        request.arguments = ["count": [3]]
        let (unrolled, rolled) = try Self.render(request, try compile(source, name: "tricky.metal", options: Self.rolled))
        #expect(!unrolled.isConstant)
        #expect(unrolled.bytes == rolled.bytes, "\(ImageDifference(unrolled, rolled).maxAbs) levels apart")
        // The 17-iteration loop and the nested loop with an unknown bound (and its outer
        // loop) keep jumps; the rest do not, so fewer jumps than rolled but not none.
        let jumps = Self.jumps(library, "tricky"), rolledJumps = Self.jumps(try compile(source, options: Self.rolled), "tricky")
        #expect(jumps > 0 && jumps < rolledJumps, "\(jumps) jumps unrolled, \(rolledJumps) rolled")
    }
}
