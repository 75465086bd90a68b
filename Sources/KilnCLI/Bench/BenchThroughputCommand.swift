import ArgumentParser
import Foundation
import KilnBytecode
import KilnCompileTool
import KilnCompiler
import KilnJSON
import KilnLanguage
import KilnVM

/// `kiln bench [--json] [--seconds 2] [--sizes 512,1024]`: the cases of `bench/README.md`.
///
/// For every size and case:
/// - **VM Mpix/s**: the compiled shader rendered again and again into an RGBA8
///   framebuffer for at least `--seconds`; throughput is w·h over the median frame time.
/// - **native Mpix/s**: the same shader hand-written as SIMD Swift (`Native*.swift`,
///   eight pixels at a time), with the same sampling and the same tile scheduler,
///   measured the same way.
/// - **ratio**: VM / native.
/// - **first frame**: from source text to the first finished frame (compile, prepare,
///   render), the median of several runs: what a live editor waits after a keystroke.
/// - **max diff**, **diff >1**: the largest difference between the VM's and the native
///   frame in 8-bit levels, and the share of pixels differing by more than one level, as a
///   check that both compute the same picture (expected 0, and tested: the twins run the
///   VM's own binary32 `sin`/`cos`/`exp` in the compiler's order of operations).
struct BenchThroughputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "throughput",
        abstract: "VM vs native Swift rendering throughput and time to first frame (the default).")

    @Flag(help: "Run every instruction over all lanes (no uniform broadcast), to see what it saves.")
    var noUniformExecution = false

    @Flag(help: "Run every instruction on its own (no fused pairs), to see what fusing saves.")
    var noFusion = false

    @Flag(help: "Run float arithmetic in the interpreter (no native segments), to see what they save.")
    var noNative = false

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: "Seconds of steady rendering per measurement.")
    var seconds: Double = 2

    @Option(help: "Square output sizes, comma-separated.")
    var sizes = "512,1024"

    @Option(help: "Worker threads (default: the number of cores).")
    var threads: Int?

    @Option(help: "Folder of the benchmark shaders (default: bench/ in the package root).")
    var benchDir: String?

    @Option(help: "Only these cases, comma-separated (wave, color, layer9, melt, loop, raymarch, fbm, sdf2d).")
    var cases: String?

    @Option(help: "Runs for the time-to-first-frame median.")
    var firstFrameRuns = 7

    func validate() throws {
        guard seconds.isFinite, seconds >= 0, seconds <= 3600 else {
            throw ValidationError("--seconds must be in 0...3600")
        }
        guard firstFrameRuns >= 1, firstFrameRuns <= 1000 else {
            throw ValidationError("--first-frame-runs must be in 1...1000")
        }
        if let threads, threads < 1 || threads > 256 { throw ValidationError("--threads must be in 1...256") }
        _ = try parsedSizes()
        _ = try selectedCases()
    }

    func parsedSizes() throws -> [ImageSize] {
        try sizes.split(separator: ",").map { part in
            let text = String(part).trimmingSpaces
            return text.contains("x") ? try ImageSize(parsing: text) : try ImageSize(parsing: "\(text)x\(text)")
        }
    }

    func selectedCases() throws -> [BenchCase] {
        guard let cases else { return BenchCase.all }
        return try cases.split(separator: ",").map { name in
            guard let found = BenchCase.all.first(where: { $0.name == String(name).trimmingSpaces }) else {
                throw ValidationError("unknown case '\(name)': the cases are \(BenchCase.all.map(\.name).joined(separator: ", "))")
            }
            return found
        }
    }

    /// One row of results.
    struct Result {
        var benchCase: BenchCase
        var size: ImageSize
        var vmMpixPerSecond: Double
        var nativeMpixPerSecond: Double
        var firstFrameMilliseconds: Double
        var maxDifference: Int
        /// Share of pixels (in %) where the two frames differ by more than one level.
        var percentOverOne: Double
        var vmFrames: Int
        var nativeFrames: Int
        /// Share of the frame's lane-instructions the VM ran once per batch (uniform).
        var uniformShare: Double
        var ratio: Double { vmMpixPerSecond / nativeMpixPerSecond }
    }

    func run() throws {
        let folder = benchDir ?? ProjectPaths.resolve("bench")
        let workerCount = threads ?? ProcessInfo.processInfo.activeProcessorCount
        var renderer = FrameRenderer(threads: workerCount)
        renderer.uniformExecution = !noUniformExecution
        renderer.pairFusion = !noFusion
        renderer.nativeSegments = !noNative
        let console = Console.current
        if !json {
            console.line("kiln bench: \(Kiln.cpuLevel) build, \(workerCount) thread\(workerCount == 1 ? "" : "s"), ≥ \(Format.fixed(seconds, 1)) s per measurement, shaders from \(folder)")
        }
        var results: [Result] = []
        for size in try parsedSizes() {
            for benchCase in try selectedCases() {
                let result = try measure(benchCase, size: size, folder: folder, renderer: renderer)
                results.append(result)
                if !json && console.errorIsTerminal {
                    console.error("\(benchCase.name) \(size): \(Format.fixed(result.vmMpixPerSecond, 1)) Mpix/s\n")
                }
            }
        }
        if json {
            console.line(JSONText.serialize(results.map(jsonObject)))
        } else {
            console.write(table(results).text)
        }
    }

    func measure(_ benchCase: BenchCase, size: ImageSize, folder: String, renderer: FrameRenderer) throws -> Result {
        let path = (folder as NSString).appendingPathComponent(benchCase.file)
        let text = try ShaderSources.readText(path, limit: 1 << 20)
        let source = SourceFile(name: benchCase.file, text: text)
        let arguments = benchCase.arguments(width: size.width, height: size.height)
        let contents = try renderer.loadContents(benchCase.content, benchCase.content2 ?? "checker", size: size)

        func compile() throws -> (Library, Function) {
            let result = ShaderBuild.compile([source])
            guard let library = result.library else { throw CommandFailure("\(path) does not compile") }
            guard let function = library.function(named: benchCase.function) else {
                throw CommandFailure("\(path) has no function '\(benchCase.function)'")
            }
            return (library, function)
        }
        // The README's inputs, restricted to the arguments the function declares.
        func bound(_ function: Function) -> [String: [Float]] {
            let names = Set(function.parameters.map(\.name))
            return arguments.filter { names.contains($0.key) }
        }

        // Time to first frame, from source text. The first run also warms caches.
        var firstFrames: [Double] = []
        for _ in 0...firstFrameRuns {
            let elapsed = try Measurement.time {
                let (library, function) = try compile()
                let draw = try renderer.prepare(library: library, function: function, size: size,
                                                contents: contents, arguments: bound(function), time: benchCase.time)
                _ = try renderer.render(draw)
            }
            firstFrames.append(elapsed)
        }
        firstFrames.removeFirst()

        // Steady VM rendering: one prepared draw, frame after frame.
        let (library, function) = try compile()
        let draw = try renderer.prepare(library: library, function: function, size: size,
                                        contents: contents, arguments: bound(function), time: benchCase.time)
        let vmFrame = try renderer.render(draw).bytes
        let uniformShare = renderer.counts(of: draw).uniformShare
        let vmSamples = try Measurement.repeated(seconds: seconds, minimumRuns: 3) { _ = try renderer.render(draw) }

        let pixels = Double(size.pixelCount)
        // The same shader in Swift, on the same tile scheduler.
        let native = benchCase.native(size: size, contents: contents)
        let nativeFrame = renderer.renderNative(native, size: size)
        let nativeSamples = Measurement.repeated(seconds: seconds, minimumRuns: 3) {
            _ = renderer.renderNative(native, size: size)
        }

        var maxDifference = 0
        var pixelsOverOne = 0
        for pixel in stride(from: 0, to: min(vmFrame.count, nativeFrame.count) - 3, by: 4) {
            var largest = 0
            for channel in 0..<4 {
                largest = max(largest, abs(Int(vmFrame[pixel + channel]) - Int(nativeFrame[pixel + channel])))
            }
            maxDifference = max(maxDifference, largest)
            if largest > 1 { pixelsOverOne += 1 }
        }
        return Result(benchCase: benchCase, size: size,
                      vmMpixPerSecond: pixels / Measurement.median(vmSamples) / 1e6,
                      nativeMpixPerSecond: pixels / Measurement.median(nativeSamples) / 1e6,
                      firstFrameMilliseconds: Measurement.median(firstFrames) * 1000,
                      maxDifference: maxDifference,
                      percentOverOne: 100 * Double(pixelsOverOne) / Double(max(1, size.pixelCount)), vmFrames: vmSamples.count, nativeFrames: nativeSamples.count,
                      uniformShare: uniformShare)
    }

    func table(_ results: [Result]) -> TextTable {
        var table = TextTable([("case", .left), ("size", .left), ("VM Mpix/s", .right), ("native Mpix/s", .right),
                               ("VM/native", .right), ("first frame ms", .right), ("max diff", .right), ("diff >1", .right),
                               ("uniform", .right)])
        for result in results {
            table.add([result.benchCase.name, result.size.description,
                       Format.fixed(result.vmMpixPerSecond, 1), Format.fixed(result.nativeMpixPerSecond, 1),
                       Format.fixed(result.ratio, 2), Format.fixed(result.firstFrameMilliseconds, 2),
                       "\(result.maxDifference)", Format.fixed(result.percentOverOne, 2) + "%",
                       Format.fixed(result.uniformShare * 100, 0) + "%"])
        }
        return table
    }

    func jsonObject(_ result: Result) -> [String: Any] {
        return [
            "case": result.benchCase.name,
            "width": result.size.width,
            "height": result.size.height,
            "vm_mpix_s": JSONText.rounded(result.vmMpixPerSecond, digits: 2),
            "native_mpix_s": JSONText.rounded(result.nativeMpixPerSecond, digits: 2),
            "ratio": JSONText.rounded(result.ratio, digits: 3),
            "first_frame_ms": JSONText.rounded(result.firstFrameMilliseconds, digits: 3),
            "max_diff_8bit": result.maxDifference,
            "pct_pixels_over_1": JSONText.rounded(result.percentOverOne, digits: 3),
            "vm_frames": result.vmFrames,
            "native_frames": result.nativeFrames,
            "uniform_share": JSONText.rounded(result.uniformShare, digits: 4),
        ]
    }
}
