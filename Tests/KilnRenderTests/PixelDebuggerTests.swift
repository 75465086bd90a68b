import Foundation
import KilnBytecode
import KilnRender
import KilnTestSupport
import Testing

/// The pixel debugger's promise: its answer is the picture's. For random pixels of every
/// conformance case, benchmark shader and example, the trace ends in the frame's own bytes;
/// and on shaders small enough to work out by hand, the variable values, loop iterations,
/// skipped branches and "optimised away" are what a person computes.
@Suite struct PixelDebuggerTests {
    /// Debugs `count` seeded random pixels of the frame `request` draws and checks each
    /// against the rendered frame.
    static func checkPixels(_ request: RenderRequest, count: Int, seed: UInt64, _ name: String) throws {
        let frame = try Renderer.render(request)
        var random = SeededRandom(seed: seed)
        for _ in 0..<count {
            let x = random.below(frame.width), y = random.below(frame.height)
            let report = try PixelDebugger.debug(request, x: x, y: y)
            let offset = (y * frame.width + x) * 4
            #expect(report.pixel == Array(frame.bytes[offset..<offset + 4]), "\(name) at (\(x), \(y))")
            #expect(!report.steps.isEmpty && !report.truncated, "\(name) at (\(x), \(y))")
        }
    }

    @Test(arguments: ConformanceCase.all)
    func conformanceTracesEndInTheFramesPixel(_ testCase: ConformanceCase) throws {
        let source = try String(contentsOf: Paths.conformance.appendingPathComponent(testCase.file), encoding: .utf8)
        let library = try compile(source, name: testCase.id + ".metal")
        let request = try testCase.request(library)
        guard let function = library.function(named: request.functionName), Renderer.hasCoarseFrames(function.kind) else { return }
        try Self.checkPixels(request, count: 6, seed: UInt64(testCase.id.utf8.count), testCase.id)
    }

    @Test(arguments: UniformExecutionTests.benchCases)
    func benchmarkTracesEndInTheFramesPixel(_ bench: UniformExecutionTests.BenchCase) throws {
        let url = Paths.repository.appendingPathComponent("bench/\(bench.file)")
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: bench.file)
        let name = library.functions.first { $0.name == bench.function }?.name ?? library.functions[0].name
        let (width, height) = (45, 37)
        let request = RenderRequest(library: library, functionName: name, width: width, height: height,
                                    content: BuiltinContent.make("rainbow", width: width, height: height),
                                    content2: BuiltinContent.make("checker", width: width, height: height),
                                    time: bench.time, threads: 2)
        try Self.checkPixels(request, count: 5, seed: 7, bench.file)
    }

    @Test(arguments: ShaderGalleryTests.files)
    func exampleTracesEndInTheFramesPixel(_ file: String) throws {
        let library = try ShaderGalleryTests.library(file)
        for function in ShaderGalleryTests.entries(library) where Renderer.hasCoarseFrames(function.kind) {
            let request = RenderRequest(library: library, functionName: function.name, width: 40, height: 30,
                                        content: BuiltinContent.make("photo", width: 40, height: 30),
                                        content2: BuiltinContent.make("checker", width: 40, height: 30),
                                        time: 0.5, threads: 1)
            try Self.checkPixels(request, count: 4, seed: 11, "\(file) \(function.name)")
        }
    }

    static let loopShader = """
        float bump(float x, float k) {
            float y = x * k;
            return y * y;
        }

        [[ stitchable ]] half4 loopy(float2 position) {
            float unused = position.y * 3.0;
            float sum = 0.0;
            int n = int(position.x) % 5;
            for (int i = 0; i < n; i++) {
                sum += bump(float(i), 0.5);
                if (sum > 1.0) {
                    sum -= 0.25;
                }
            }
            float shade = sum / 4.0;
            return half4(shade, shade * 0.5, 0.0, 1.0);
        }
        """

    static func loopReport(x: Int, y: Int) throws -> PixelDebugReport {
        let library = try compile(loopShader, name: "loopy.metal")
        let request = RenderRequest(library: library, functionName: "loopy", width: 16, height: 8, threads: 1)
        return try PixelDebugger.debug(request, x: x, y: y)
    }

    /// The values of `name` each time the pixel's lane assigned it, as text.
    static func history(_ report: PixelDebugReport, _ name: String) -> [[String?]] {
        guard let index = report.variables.firstIndex(where: { $0.name == name }) else { return [] }
        return report.steps.filter(\.active).flatMap { $0.changes.filter { $0.variable == index }.map(\.values) }
    }

    /// x = 4: n = 4; sum after each iteration 0, 0.25, 1.25 − 0.25 = 1, 1 + 2.25 − 0.25 = 3.
    @Test func valuesAndIterationsAreWhatAPersonComputes() throws {
        let report = try Self.loopReport(x: 4, y: 3)
        #expect(Self.history(report, "n") == [["4"]])
        #expect(Self.history(report, "sum") == [["0.0"], ["0.0"], ["0.25"], ["1.25"], ["1.0"], ["3.25"], ["3.0"]])
        #expect(Self.history(report, "shade") == [["0.75"]])
        #expect(Self.history(report, "y") == [["0.0"], ["0.5"], ["1.0"], ["1.5"]])
        // The helper's statements run inside its own activation, one level down.
        let bump = try #require(report.activations.firstIndex { $0.function == "bump" })
        #expect(report.activations[bump].depth == 1)
        #expect(report.steps.contains { $0.activation == bump && $0.line == 3 })
        // Iterations 1…4 of the loop on line 10, and the `sum -= 0.25` branch taken twice.
        let iterations = Set(report.steps.filter { $0.line == 12 && $0.active }.compactMap { $0.loops.last?.iteration })
        #expect(iterations == [1, 2, 3, 4])
        #expect(report.steps.filter { $0.line == 13 && $0.active }.count == 2)
        #expect(report.pixel == [191, 96, 0, 255])
    }

    /// x = 0: n = 0, but other lanes of the batch loop: the loop body runs for them and is
    /// skipped for this pixel. x = 1: one iteration, the branch `sum > 1` not taken.
    @Test func branchesNotTakenAreSkippedSteps() throws {
        let idle = try Self.loopReport(x: 0, y: 0)
        #expect(idle.steps.contains { $0.line == 11 && !$0.active })
        #expect(!idle.steps.contains { $0.line == 11 && $0.active })
        #expect(Self.history(idle, "sum") == [["0.0"]])
        let once = try Self.loopReport(x: 1, y: 0)
        #expect(once.steps.contains { $0.line == 13 && !$0.active })
        #expect(!once.steps.contains { $0.line == 13 && $0.active })
    }

    /// `unused` feeds nothing, so the compiler deleted it: the debugger says so instead of
    /// showing a stale register.
    @Test func deletedValuesAreOptimisedAway() throws {
        let report = try Self.loopReport(x: 2, y: 5)
        #expect(Self.history(report, "unused") == [[nil]])
        #expect(Self.history(report, "position") == [["2.5", "5.5"]])
    }

    /// A loop that never ends: the frame fails over the instruction budget, and the trace
    /// shows the loop running (the steps up to the bound) with the error naming its line.
    @Test func aRunawayLoopIsShownRunningAway() throws {
        let library = try compile("""
            [[ stitchable ]] half4 runaway(float2 position) {
                float s = 0.0;
                for (int i = 0; i >= 0; i += 0) {
                    s += 1.0;
                }
                return half4(s, 0.0, 0.0, 1.0);
            }
            """, name: "runaway.metal")
        var request = RenderRequest(library: library, functionName: "runaway", width: 8, height: 8, threads: 1)
        request.executionLimits.instructionBudgetPerLane = 20_000
        #expect(throws: RenderError.self) { _ = try Renderer.render(request) }
        let report = try PixelDebugger.debug(request, x: 3, y: 3, limits: .init(maxSteps: 5_000, maxReportSteps: 300))
        let failure = try #require(report.failure)
        #expect(failure.contains("runaway loop at runaway.metal:3"))
        #expect(report.pixel.isEmpty && report.truncated)
        #expect(report.steps.count == 300)
        #expect((report.steps.last?.loops.last?.iteration ?? 0) > 100)
    }

    @Test func longRunsAreTruncatedButFinish() throws {
        let library = try compile(Self.loopShader, name: "loopy.metal")
        let request = RenderRequest(library: library, functionName: "loopy", width: 16, height: 8, threads: 1)
        let report = try PixelDebugger.debug(request, x: 4, y: 3, limits: .init(maxSteps: 10))
        #expect(report.truncated)
        #expect(report.pixel == [191, 96, 0, 255])
        #expect(throws: RenderError.self) { _ = try PixelDebugger.debug(request, x: 16, y: 0) }
    }
}
