import ArgumentParser
import Foundation
import KilnCompileTool
import KilnCompiler
import KilnJSON
import KilnRender

/// `kiln bench shader FILE`: how fast any shader renders — milliseconds per frame, pixels
/// per second, and what a pixel costs in VM instructions — with no PNG encoding in the
/// timing (rendering into memory only), so a real shader can be measured, not libpng.
struct BenchShaderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shader",
        abstract: "Measure how fast a shader's entry functions render.")

    @Argument(help: "Shader files (.metal, .h) or one .kilnlib.")
    var files: [String]

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    @Option(help: "Entry function to measure (default: every function that draws on its own).")
    var function: String?

    @Option(help: "Output size WIDTHxHEIGHT.")
    var size = ImageSize(width: 512, height: 512)

    @Option(help: "The clock for time arguments, in seconds.")
    var time: Float = 1

    @Option(help: "Seconds of steady rendering per function (at least 3 frames).")
    var seconds: Double = 2

    @Option(help: "Worker threads (default: the number of cores).")
    var threads: Int?

    @Flag(help: "Run every instruction over all lanes (no uniform broadcast), to see what it saves.")
    var noUniformExecution = false

    @Flag(help: "Run every instruction on its own (no fused pairs), to see what fusing saves.")
    var noFusion = false

    @Flag(help: "Run float arithmetic in the interpreter (no native segments), to see what they save.")
    var noNative = false

    @Flag(help: "Also time the pixel debugger (a trace of each of 9 pixels) and the cost heatmap against a frame.")
    var inspect = false

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be in (0, 3600]") }
        if let threads, threads < 1 || threads > 256 { throw ValidationError("--threads must be in 1...256") }
    }

    func run() throws {
        let sources = try ShaderSources.load(files, includeDirectories: includeDirectories)
        let build = ShaderBuild.compile(sources.files, searchPaths: sources.searchPaths)
        guard let library = build.library else { throw CommandFailure("the shader does not compile") }
        let workers = threads ?? ProcessInfo.processInfo.activeProcessorCount
        var renderer = FrameRenderer(threads: workers)
        renderer.maxFrameWork = .max
        renderer.uniformExecution = !noUniformExecution
        renderer.pairFusion = !noFusion
        renderer.nativeSegments = !noNative
        let contents = try renderer.loadContents("photo", "checker", size: size)
        var table = TextTable([("function", .left), ("kind", .left), ("size", .left), ("ms/frame (median)", .right),
                               ("Mpix/s", .right), ("fps", .right), ("first frame ms", .right), ("instructions/pixel", .right),
                               ("uniform", .right), ("work/pixel", .right), ("frames", .right)])
        var records: [[String: Any]] = []
        var inspections = TextTable([("function", .left), ("frame ms", .right), ("heatmap ms", .right), ("heatmap/frame", .right),
                                     ("trace ms (median of 9)", .right), ("trace ms (max)", .right),
                                     ("unrecorded centre ms", .right)])
        var inspectRecords: [[String: Any]] = []
        for function in try RenderCommand.selectFunctions(in: library, named: function) {
            // The first frame includes preparing the draw (binding, the prologue per worker).
            var draw = try renderer.prepare(library: library, function: function, size: size, contents: contents,
                                            arguments: [:], time: time)
            let first = try Measurement.time {
                draw = try renderer.prepare(library: library, function: function, size: size, contents: contents,
                                            arguments: [:], time: time)
                _ = try renderer.render(draw)
            }
            let samples = try Measurement.repeated(seconds: seconds, minimumRuns: 3) { _ = try renderer.render(draw) }
            let median = Measurement.median(samples)
            let image = try renderer.render(draw)
            let pixels = Double(image.width * image.height)
            let counts = renderer.counts(of: draw)
            let perPixel = Double(counts.laneInstructions) / pixels, workPerPixel = Double(counts.work) / pixels
            let uniformShare = counts.uniformShare
            table.add([function.name, function.kind.name, "\(image.width)x\(image.height)", Format.fixed(median * 1e3, 2),
                       Format.fixed(pixels / median / 1e6, 1), Format.fixed(1 / median, 1), Format.fixed(first * 1e3, 2),
                       Format.fixed(perPixel, 1), Format.fixed(uniformShare * 100, 0) + "%",
                       Format.fixed(workPerPixel, 1), "\(samples.count)"])
            if inspect, Renderer.hasCoarseFrames(function.kind) {
                let request = renderer.request(library: library, function: function, size: size, contents: contents,
                                               arguments: [:], time: time)
                let heat = try Measurement.repeated(seconds: seconds, minimumRuns: 3) {
                    do { _ = try Renderer.heatmap(request) } catch { throw CommandFailure("\(error)") }
                }
                // A 3×3 grid of pixels: each trace builds its draw, as the server's does.
                var traces: [Double] = []
                for gy in 0..<3 {
                    for gx in 0..<3 {
                        let x = (2 * gx + 1) * image.width / 6, y = (2 * gy + 1) * image.height / 6
                        traces.append(try Measurement.time {
                            do { _ = try PixelDebugger.debug(request, x: x, y: y) } catch { throw CommandFailure("\(error)") }
                        })
                    }
                }
                // The draw's set-up alone: a trace that records one step (the batch still runs).
                let setUp = try Measurement.time {
                    do { _ = try PixelDebugger.debug(request, x: image.width / 2, y: image.height / 2, limits: .init(maxSteps: 1)) }
                    catch { throw CommandFailure("\(error)") }
                }
                inspections.add([function.name, Format.fixed(median * 1e3, 2), Format.fixed(Measurement.median(heat) * 1e3, 2),
                                 Format.fixed(Measurement.median(heat) / median, 2) + "×",
                                 Format.fixed(Measurement.median(traces) * 1e3, 2), Format.fixed((traces.max() ?? 0) * 1e3, 2),
                                 Format.fixed(setUp * 1e3, 2)])
                inspectRecords.append(["function": function.name, "heatmap_ms": JSONText.rounded(Measurement.median(heat) * 1e3, digits: 3),
                                       "heatmap_per_frame": JSONText.rounded(Measurement.median(heat) / median, digits: 3),
                                       "trace_ms_median": JSONText.rounded(Measurement.median(traces) * 1e3, digits: 3),
                                       "trace_ms_max": JSONText.rounded((traces.max() ?? 0) * 1e3, digits: 3)])
            }
            records.append(["function": function.name, "kind": function.kind.name, "width": image.width, "height": image.height,
                            "ms_per_frame": JSONText.rounded(median * 1e3, digits: 3),
                            "mpix_per_s": JSONText.rounded(pixels / median / 1e6, digits: 2),
                            "frames_per_s": JSONText.rounded(1 / median, digits: 2),
                            "first_frame_ms": JSONText.rounded(first * 1e3, digits: 3),
                            "instructions_per_pixel": JSONText.rounded(perPixel, digits: 2),
                            "uniform_share": JSONText.rounded(uniformShare, digits: 4),
                            "work_per_pixel": JSONText.rounded(workPerPixel, digits: 2), "frames": samples.count,
                            // Which build measured: v4's lane loops take twice v3's lanes a step.
                            "build": Kiln.cpuLevel])
        }
        if json {
            Console.current.line(JSONText.serialize(inspect ? ["frames": records, "inspect": inspectRecords] as Any : records))
        } else {
            Console.current.line("kiln bench shader: \(Kiln.cpuLevel) build, \(workers) threads, ≥ \(seconds) s per function, no PNG encoding")
            Console.current.write(table.text)
            Console.current.line("(instructions/pixel: lane-instructions over all batches ÷ pixels, helper and masked lanes "
                                 + "included; uniform: the share of them the VM ran once per batch and broadcast; "
                                 + "work/pixel weighs each by its cost, as the frame budget does)")
            if inspect {
                Console.current.line("")
                Console.current.write(inspections.text)
                Console.current.line("(heatmap: a counted frame, Renderer.heatmap; trace: PixelDebugger.debug of one pixel, "
                                     + "set-up included, single-threaded)")
            }
        }
    }
}
