import Foundation
import KilnBytecode
import KilnRender
@testable import KilnVM
import Testing

/// Running float arithmetic as machine code (`ExecutionLimits.nativeSegments`,
/// `NativeSegments`) must not change a bit of any picture: the same operations in the same
/// order, and every value live after a segment stored. Checked on every conformance case,
/// benchmark shader and example (whose segments hold most of their instructions), and on
/// special values through every kind of operation a segment compiles.
@Suite(.enabled(if: NativeSegments.supported, "native segments need x86-64 with AVX"))
struct NativeSegmentTests {
    static func nativeInstructions(_ library: Library, _ name: String) -> Int {
        guard let index = library.functions.firstIndex(where: { $0.name == name }) else { return 0 }
        return PreparedFunction(library: library, functionIndex: index).nativeInstructionCount
    }

    @Test(arguments: ConformanceCase.all)
    func conformanceCasesGiveTheSameBytes(_ testCase: ConformanceCase) throws {
        let request = try conformanceRequest(testCase)
        let (native, interpreted) = try renderBothWays(request, \.nativeSegments)
        #expect(native.bytes == interpreted.bytes, "\(testCase.id): \(ImageDifference(native, interpreted).maxAbs) levels apart at most")
    }

    /// The benchmark shaders with and without uniform execution and pair fusion (both
    /// change which instructions form segments); the shader-art cases must have segments.
    @Test(arguments: UniformExecutionTests.benchCases)
    func benchmarkShadersGiveTheSameBytes(_ bench: UniformExecutionTests.BenchCase) throws {
        let url = Paths.repository.appendingPathComponent("bench/\(bench.file)")
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: bench.file)
        let name = try #require(library.functions.first { $0.name == bench.function }?.name ?? library.functions.first?.name)
        var request = bench.request(library, function: name)
        for (uniform, fusion) in [(true, true), (false, true), (true, false)] {
            request.executionLimits.uniformExecution = uniform
            request.executionLimits.pairFusion = fusion
            let (native, interpreted) = try renderBothWays(request, \.nativeSegments)
            #expect(!native.isConstant)
            #expect(native.bytes == interpreted.bytes,
                    "\(bench.file), uniform \(uniform), fusion \(fusion): \(ImageDifference(native, interpreted).maxAbs) levels apart")
        }
        let minimum = ["raymarch": 500, "clouds": 500, "sdf2d": 300][bench.function] ?? 0
        #expect(Self.nativeInstructions(library, name) >= minimum, "\(bench.file): too few instructions in segments")
    }

    @Test(arguments: ShaderGalleryTests.files)
    func examplesGiveTheSameBytes(_ file: String) throws {
        let library = try ShaderGalleryTests.library(file)
        for request in exampleRequests(library) {
            let (native, interpreted) = try renderBothWays(request, \.nativeSegments)
            #expect(native.bytes == interpreted.bytes, "\(file) \(request.functionName)")
        }
    }

    /// A segment's cell work run once per batch (`BatchUniformInputs`) where the batch's
    /// tile lies inside one grid cell, and over every group where it does not, gives the bytes
    /// of the interpreter. Cells of 40 pixels hold whole 16 × 8 tiles and cut others, so one
    /// frame takes both ways; the cell's hash reads the id's two registers, which the test
    /// checks.
    @Test func cellWorkOncePerBatchGivesTheSameBytes() throws {
        let library = try compile("""
            #include <metal_stdlib>
            using namespace metal;
            [[ stitchable ]] half4 cells(float2 position, half4 color, float time) {
                float2 id = floor(position / 40.0);
                // A sine of a per-pixel value ends the segment, so the next one starts from
                // the cell id, as starfield's layers do.
                float wave = sin(position.x * 0.05 + time);
                float2 p = fract(id * float2(123.34, 456.21));
                p += dot(p, p + 45.32);
                float n = fract(p.x * p.y);
                float size = fract(n * 345.32) * 0.5 + 0.25;
                float hue = fract(n * 72.9 + time * 0.1) * 0.8 + 0.1;
                float2 gv = fract(position / 40.0) - 0.5;
                float d = length(gv - (float2(n, fract(n * 34.0)) - 0.5) * 0.5);
                float glow = smoothstep(size, size * 0.5, d);
                return half4(glow * hue, glow * size, fract(d * n * 7.0 + wave), 1);
            }
            """, name: "cells.metal")
        let prepared = PreparedFunction(library: library, functionIndex: 0)
        #expect((prepared.nativeCode?.batchUniformRuns ?? 0) >= 1, "no segment has a batch-uniform version")
        // Untested operands are only ever registers every lane holds alike: never a slot.
        let function = try #require(library.functions.first)
        let body = Array(library.code[library.clampedRange(function.body)])
        #expect(BatchUniformInputs.uniformRegisters(of: function, body: body).isDisjoint(with: BatchUniformInputs.slots(of: function)))
        let request = RenderRequest(library: library, functionName: "cells", width: 200, height: 120,
                                    content: BuiltinContent.make("rainbow", width: 200, height: 120), time: 0.7)
        let (native, interpreted) = try renderBothWays(request, \.nativeSegments)
        #expect(!native.isConstant)
        #expect(native.bytes == interpreted.bytes, "\(ImageDifference(native, interpreted).maxAbs) levels apart")
    }

    /// The shader-art examples whose cells are larger than a tile at this size (star
    /// layers, Voronoi and Truchet cells, ink's lattice) through both ways, so the
    /// batch-uniform segments they have run both their versions.
    @Test(arguments: ["art_starfield.metal", "art_voronoi.metal", "art_truchet.metal", "art_ink.metal"])
    func cellShadersAtSizeGiveTheSameBytes(_ file: String) throws {
        let library = try ShaderGalleryTests.library(file)
        for function in ShaderGalleryTests.entries(library) {
            let request = RenderRequest(library: library, functionName: function.name, width: 256, height: 192,
                                        content: BuiltinContent.make("rainbow", width: 256, height: 192), time: 3.7)
            let (native, interpreted) = try renderBothWays(request, \.nativeSegments)
            #expect(native.bytes == interpreted.bytes, "\(file) \(function.name): \(ImageDifference(native, interpreted).maxAbs) levels apart")
        }
        // Starfield's star cells are what the versions are for.
        if file == "art_starfield.metal" {
            let prepared = PreparedFunction(library: library, functionIndex: 0)
            #expect((prepared.nativeCode?.batchUniformRuns ?? 0) >= 5, "the star cells have no batch-uniform segments")
        }
    }

    /// NaN, ±∞ and ±0 (`v` is all of them across the frame) through every kind a segment
    /// compiles: arithmetic, `fmin`/`fmax` (whose rule differs from `vminps`/`vmaxps` on NaN),
    /// `floor` (a NaN keeps its bits) and `fract` (capped below 1), in runs long enough to
    /// be segments.
    @Test func specialValuesKeepTheirRules() throws {
        let request = try specialValuesRequest(body: """
                float a = clamp(v * 2.0 - 1.0, -0.0, 0.0) * 3.0 + 1.0;
                float b = min(v, v * 0.5 + 1.0) - max(v * 0.25, -0.0) / 3.0;
                float c = floor(v * 1.5 + 0.25) * 0.125 - fract(v * 7.3 - 0.5);
                float d = fract(-v * 1e-8 + 0.5) + floor(-v / 3.0) * 0.01;
            """, result: "half4(fract(1.0 / a * 0.001), fract(b), fract(c), fract(d))")
        let (native, interpreted) = try renderBothWays(request, \.nativeSegments)
        #expect(!native.isConstant)
        #expect(native.bytes == interpreted.bytes, "\(ImageDifference(native, interpreted).maxAbs) levels apart")
        #expect(Self.nativeInstructions(request.library, "edges") >= 10)
    }

    /// The registers segments treat as constants (`NativeSegments.knownConstants`, which
    /// lets `min`/`max` skip their NaN fix-up) are the prologue's `const`s written nowhere
    /// else — never a slot the renderer fills or reads between batches.
    @Test func knownConstantsAreThePrologueConstantsWrittenOnce() throws {
        let library = try compile("""
            #include <metal_stdlib>
            using namespace metal;
            [[ stitchable ]] half4 fade(float2 position, half4 color, float time) {
                float a = smoothstep(0.2, 0.7, fract(position.x * 0.01 + time));
                float b = clamp(position.y * 0.02 - 1.0, 0.0, 1.0);
                return half4(a, b, max(a, 0.25), 1);
            }
            """, name: "fade.metal")
        let function = try #require(library.functions.first)
        let known = NativeSegments.knownConstants(of: function, in: library)
        let slots = Set((function.inputs + function.outputs).flatMap { Int($0.register)..<Int($0.register) + $0.type.componentCount })
        let code = library.code[library.clampedRange(function.prologue)] + library.code[library.clampedRange(function.body)]
        for (register, word) in known {
            #expect(!slots.contains(Int(register)), "r\(register) is a slot")
            let writers = code.filter { UniformityAnalysis.destinations($0).contains(Int(register)) }
            #expect(writers.count == 1 && writers.first?.opcode == .const && writers.first.map { library.constants[Int($0.imm)] } == word,
                    "r\(register)")
        }
        // smoothstep's and clamp's 0 and 1, and max's 0.25, are there to be used.
        let values = Set(known.values.map { Float(bitPattern: $0) })
        #expect(values.isSuperset(of: [0, 1, 0.25]), "\(values)")
    }
}
