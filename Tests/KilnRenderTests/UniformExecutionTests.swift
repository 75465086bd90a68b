import Foundation
import KilnBytecode
import KilnCompiler
import KilnRender
import KilnVM
import Testing

/// Running uniform instructions once per batch (`ExecutionLimits.uniformExecution`) must not
/// change a single bit of any picture: the broadcast has to equal what every lane would
/// have computed. Checked on every conformance case and every benchmark shader, whose
/// loops mix uniform and varying work under divergence.
@Suite struct UniformExecutionTests {
    /// The body instructions the VM would broadcast in `function`.
    static func scalarized(_ library: Library, _ name: String) -> Int {
        guard let index = library.functions.firstIndex(where: { $0.name == name }) else { return 0 }
        let function = library.functions[index]
        let analysis = UniformityAnalysis(library: library, function: function)
        let body = library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)]
        return zip(analysis.uniform, body).filter { $0.0 && UniformityAnalysis.isScalarizable($0.1.opcode) }.count
    }

    @Test(arguments: ConformanceCase.all)
    func conformanceCasesGiveTheSameBytes(_ testCase: ConformanceCase) throws {
        let request = try conformanceRequest(testCase)
        let (broadcast, lanes) = try renderBothWays(request, \.uniformExecution)
        let same = broadcast.bytes == lanes.bytes
        #expect(same, "\(testCase.id): \(ImageDifference(broadcast, lanes).maxAbs) levels apart at most")
    }

    struct BenchCase: CustomTestStringConvertible, Sendable {
        var file: String
        var function: String
        var time: Float
        var testDescription: String { function }

        /// The case at 83×47 (a partial batch on every row), on its bench contents, 2 threads.
        func request(_ library: Library, function name: String) -> RenderRequest {
            let width = 83, height = 47
            return RenderRequest(library: library, functionName: name, width: width, height: height,
                                 content: BuiltinContent.make("rainbow", width: width, height: height),
                                 content2: BuiltinContent.make("checker", width: width, height: height),
                                 time: time, threads: 2)
        }
    }

    static let benchCases = [
        BenchCase(file: "raymarch.metal", function: "raymarch", time: 1), BenchCase(file: "fbm.metal", function: "clouds", time: 1),
        BenchCase(file: "sdf2d.metal", function: "sdf2d", time: 1), BenchCase(file: "swirl.metal", function: "swirl", time: 1),
        BenchCase(file: "wave.metal", function: "wave", time: 1), BenchCase(file: "box9.metal", function: "box9", time: 1),
        BenchCase(file: "melt.metal", function: "melt", time: 0.25), BenchCase(file: "tint.metal", function: "tint", time: 1),
    ]

    /// The benchmark shaders, at a size with a partial batch per row, compiled with loops
    /// unrolled (the default) and kept; the shader-art cases' kept loops must actually
    /// broadcast something (else this test would prove nothing).
    @Test(arguments: benchCases)
    func benchmarkShadersGiveTheSameBytes(_ bench: BenchCase) throws {
        let url = Paths.repository.appendingPathComponent("bench/\(bench.file)")
        for options in [CompileOptions(), .loopsKept] {
            let library = try compile(try String(contentsOf: url, encoding: .utf8), name: bench.file, options: options)
            let name = try #require(library.functions.first { $0.name == bench.function }?.name ?? library.functions.first?.name)
            let request = bench.request(library, function: name)
            let (broadcast, lanes) = try renderBothWays(request, \.uniformExecution)
            #expect(!broadcast.isConstant)
            let same = broadcast.bytes == lanes.bytes
            #expect(same, "\(bench.file): \(ImageDifference(broadcast, lanes).maxAbs) levels apart at most")
            if options == .loopsKept && ["raymarch", "sdf2d", "swirl"].contains(bench.function) {
                #expect(Self.scalarized(library, name) > 0, "\(bench.file) broadcasts nothing")
            }
        }
    }

    /// A prepared draw keeps its executors, so the second frame's uniform transcendentals
    /// come from `UniformMemo` filled by the first: the bytes stay the lane-wide ones.
    @Test func aWarmMemoGivesTheSameFrame() throws {
        for file in ["raymarch.metal", "sdf2d.metal"] {
            let url = Paths.repository.appendingPathComponent("bench/\(file)")
            let library = try compile(try String(contentsOf: url, encoding: .utf8), name: file, options: .loopsKept)
            let name = try #require(library.functions.first?.name)
            var request = RenderRequest(library: library, functionName: name, width: 72, height: 40,
                                        content: BuiltinContent.make("rainbow", width: 72, height: 40), time: 1, threads: 1)
            let draw = try Renderer.prepare(request)
            let first = try draw.render(), second = try draw.render()
            request.executionLimits.uniformExecution = false
            let lanes = try Renderer.render(request)
            let same = first.bytes == lanes.bytes && second.bytes == lanes.bytes
            #expect(same, "\(file)")
        }
    }

    /// The counts a frame reports: the uniform share is there when broadcasting, and gone
    /// (with the same instruction count) when not.
    @Test func frameCountsReportTheUniformShare() throws {
        let url = Paths.repository.appendingPathComponent("bench/raymarch.metal")
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: "raymarch.metal", options: .loopsKept)
        var request = RenderRequest(library: library, functionName: "raymarch", width: 64, height: 16,
                                    content: BuiltinContent.make("rainbow", width: 64, height: 16), time: 1)
        let on = try Renderer.prepare(request)
        _ = try on.render()
        request.executionLimits.uniformExecution = false
        let off = try Renderer.prepare(request)
        _ = try off.render()
        #expect(on.lastFrameCounts.laneInstructions == off.lastFrameCounts.laneInstructions)
        #expect(on.lastFrameCounts.uniformLaneInstructions > on.lastFrameCounts.laneInstructions / 10)
        #expect(off.lastFrameCounts.uniformLaneInstructions == 0)
        #expect(on.lastFrameCounts.work < off.lastFrameCounts.work)
    }
}
