import ArgumentParser
import Foundation
import KilnBytecode
import KilnCompileTool
import KilnRender

/// `kiln render FILE(.metal|.kilnlib) [--function NAME] --size WxH --content … -o out.png|out/`
///
/// Runs entry functions over a framebuffer with the renderer and writes PNGs: one frame of
/// one function to a `.png`, or several functions and/or frames into a folder.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render entry functions of a shader or library to PNG files.",
        discussion: """
            Content: rainbow, checker, gradient, photo (generated at the output size) or a \
            PNG file. Arguments: --arg name=1.5, --arg tint=0.2,0.4,1,1, --arg tint=#ff8000ff, \
            --arg weights=1,2,3 (a float array fills its pointer argument and the count \
            after it). time/t, bounds/rect and size/resolution are filled in unless given.
            """)

    /// Limits of the command itself (the renderer has its own).
    struct Limits {
        /// Most frames one `--frames` run writes.
        var maxFrames = 100_000
        /// Most worker threads.
        var maxThreads = 256
    }

    @Argument(help: "Shader files (.metal, .h) or one .kilnlib.")
    var files: [String] = []

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    @Option(help: "Render a scene document (docs/scenes.md) instead of shader files.")
    var scene: String?

    @Option(help: "Entry function to render (default: every function; a vertex function is drawn with the library's fragment function).")
    var function: String?

    @Option(help: "Output size WIDTHxHEIGHT (default: a PNG content's size, else 256x256).")
    var size: String?

    @Option(help: "Content under the effect / texture 0: rainbow, checker, gradient, photo or a PNG path.")
    var content = "photo"

    @Option(help: "Texture 1 of a two-texture fragment pass (same choices).")
    var content2 = "checker"

    @Option(name: .customLong("arg"), help: "An argument value, NAME=VALUE (repeatable).")
    var arguments: [String] = []

    @Option(help: "The clock for time/t arguments, in seconds (default: their @arg default, else 0).")
    var time: Float?

    @Option(help: "Render this many frames, at time + i / fps.")
    var frames: Int = 1

    @Option(help: "Frames per second of the clock for --frames.")
    var fps: Float = 30

    @Flag(help: "Write premultiplied RGBA bytes as they are, instead of straight alpha.")
    var premultiplied = false

    @Option(help: "Worker threads (default: the number of cores).")
    var threads: Int?

    @Option(help: "Most work one frame may do, in weighted lane-instructions (about 10^10 per second of one core).")
    var maxFrameWork = FrameRenderer.defaultMaxFrameWork

    @Flag(help: "Write the cost heatmap instead of the image: per pixel, the instructions its lane executed.")
    var heatmap = false

    @Flag(help: "With --heatmap: also print the per-line totals as JSON on stdout.")
    var json = false

    @Option(name: .shortAndLong, help: "Output: a .png file for a single image, else a folder.")
    var output: String

    func validate() throws {
        let limits = Limits()
        guard frames >= 1, frames <= limits.maxFrames else {
            throw ValidationError("--frames must be in 1...\(limits.maxFrames)")
        }
        guard fps.isFinite, fps > 0 else { throw ValidationError("--fps must be a positive number") }
        if let time, !time.isFinite { throw ValidationError("--time must be a number") }
        if let threads, threads < 1 || threads > limits.maxThreads {
            throw ValidationError("--threads must be in 1...\(limits.maxThreads)")
        }
        if heatmap && frames > 1 { throw ValidationError("--heatmap counts one frame; leave out --frames") }
        if json && !heatmap { throw ValidationError("--json goes with --heatmap") }
    }

    func run() throws {
        if let scene {
            try SceneRendering.writePNG(try SceneRendering.render(file: scene, threads: threads ?? 0),
                                        premultiplied: premultiplied, to: output)
            return
        }
        guard !files.isEmpty else { throw ValidationError("give shader files (or a library), or --scene FILE") }
        let values = try ArgumentValues.parse(arguments)
        let explicitSize = try size.map { try ImageSize(parsing: $0) }
        let loaded = try ShaderBuild.load(files, includeDirectories: includeDirectories)
        let library = loaded.library
        let targets = try selectFunctions(in: library)

        let writesFile = output.lowercased().hasSuffix(".png")
        if writesFile && (targets.count > 1 || frames > 1) {
            throw CommandFailure("-o \(output) names one PNG, but \(targets.count * frames) images would be written; give a folder")
        }
        if !writesFile {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        }

        let workerCount = threads ?? ProcessInfo.processInfo.activeProcessorCount
        var renderer = FrameRenderer(threads: workerCount)
        renderer.maxFrameWork = maxFrameWork
        let outputSize = try explicitSize ?? renderer.naturalSize(content: content)
        let images = try renderer.loadContents(content, content2, size: outputSize)

        // Rendering several functions, an argument goes to those that declare it (and to a
        // vertex function, whose fragment function may declare it); a name no function of
        // the library declares is still an error.
        if self.function == nil && targets.count > 1 {
            let declared = Set(library.functions.flatMap { $0.parameters.map(\.name) })
            if let unknown = values.keys.sorted().first(where: { !declared.contains($0) }) {
                throw CommandFailure("--arg \(unknown): no function of the library has an argument called '\(unknown)'")
            }
        }

        let console = Console.current
        for function in targets {
            let names = Set(function.parameters.map(\.name))
            let functionValues = targets.count > 1 && function.kind != .vertex
                ? values.filter { names.contains($0.key) } : values
            let progress = ProgressBar(total: frames, label: function.name, console: console)
            for frame in 0..<frames {
                let offset = Float(frame) / fps
                let clock = time.map { $0 + offset } ?? (frames > 1 ? offset : nil)
                if heatmap {
                    let path = writesFile ? output : outputPath(function: function.name, frame: frame)
                    try writeHeatmap(library: library, function: function, renderer: renderer, size: outputSize,
                                     contents: images, arguments: functionValues, time: clock, to: path)
                    progress.update(frame + 1)
                    continue
                }
                // The clock is a uniform, so each frame is its own draw.
                let draw = try renderer.prepare(library: library, function: function, size: outputSize,
                                                contents: images, arguments: functionValues, time: clock)
                let image = try renderer.render(draw)
                let path = writesFile ? output : outputPath(function: function.name, frame: frame)
                try renderer.writePNG(image, premultiplied: premultiplied, to: path)
                progress.update(frame + 1)
            }
            if frames > 1 { progress.finish() }
            if !console.errorIsTerminal || frames == 1 {
                let target = writesFile ? output : (frames == 1 ? outputPath(function: function.name, frame: 0) : output + "/")
                console.error("\(function.name): \(frames == 1 ? "wrote" : "wrote \(frames) frames to") \(target)\n")
            }
        }
    }

    /// Counts the frame's cost per pixel, writes the heatmap PNG to `path` and, with
    /// `--json`, prints the totals per source line.
    func writeHeatmap(library: Library, function: Function, renderer: FrameRenderer, size: ImageSize,
                      contents: FrameRenderer.Contents, arguments: [String: [Float]], time: Float?, to path: String) throws {
        let request = renderer.request(library: library, function: function, size: size, contents: contents,
                                       arguments: arguments, time: time)
        let map: CostHeatmap
        do { map = try Renderer.heatmap(request) } catch { throw CommandFailure(error.message) }
        try renderer.writePNG(map.image(), premultiplied: true, to: path)
        guard json else { return }
        let shares = map.shares()
        let lines: [[String: Any]] = zip(map.lines, shares).map { line, share in
            ["file": line.file < map.files.count ? map.files[line.file] : "", "line": line.line,
             "lanes": line.lanes, "uniform": line.uniform, "share": share.share]
        }
        let object: [String: Any] = [
            "function": function.name, "width": map.width, "height": map.height, "maximum": Int(map.maximum),
            "total": map.total, "unknownMasks": map.unknownMasks, "lines": lines,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        Console.current.line(String(decoding: data, as: UTF8.self))
    }

    /// The functions to render: `--function`, or every entry that draws on its own.
    func selectFunctions(in library: Library) throws -> [Function] {
        try Self.selectFunctions(in: library, named: function)
    }

    /// `named`, or every entry of `library` that draws on its own (`kiln bench shader` too).
    static func selectFunctions(in library: Library, named function: String?) throws -> [Function] {
        if let function {
            guard let found = library.function(named: function) else {
                let names = library.functions.map(\.name).joined(separator: ", ")
                throw CommandFailure("no entry function '\(function)' in the library (it has: \(names))")
            }
            return [found]
        }
        // A fragment function that colours a vertex function's triangles (its stage_in is
        // what the vertex function returns) is drawn with that vertex function, not alone.
        let vertexOutputs = Set(library.functions.filter { $0.kind == .vertex }.map(\.returnTypeName))
        let drawable = library.functions.filter { function in
            function.kind != .fragment || !function.parameters.contains {
                $0.binding == .stageIn && vertexOutputs.contains($0.typeName)
            }
        }
        guard !drawable.isEmpty else {
            throw CommandFailure("the library has no function that can be rendered on its own")
        }
        return drawable
    }

    /// `OUT/<function>.png`, or `OUT/<function>-0007.png` for a sequence.
    func outputPath(function: String, frame: Int) -> String {
        var name = function
        if frames > 1 {
            let number = String(frame)
            name += "-" + String(repeating: "0", count: max(0, 4 - number.count)) + number
        }
        return (output as NSString).appendingPathComponent(name + ".png")
    }
}
