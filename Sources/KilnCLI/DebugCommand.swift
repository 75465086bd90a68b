import ArgumentParser
import Foundation
import KilnBytecode
import KilnCompileTool
import KilnLanguage
import KilnRender

/// `kiln debug FILE --function F --pixel X,Y [--size --arg --time --content] [--json]`
///
/// Traces one pixel through the bytecode that draws the frame (`PixelDebugger`) and prints
/// each statement its lane reached, with loop iterations, inlined calls and the values of
/// the variables it assigned. The colour at the end is the frame's own pixel.
struct DebugCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Show why a pixel has its colour: the pixel's run, statement by statement, with variable values.",
        discussion: """
            The trace runs the same instructions as `kiln render` with the same arguments, \
            so its final colour is the rendered pixel, bit for bit. Values the optimizer \
            removed are shown as "optimised away". Steps of statements the pixel's lane did \
            not run (a branch not taken, a loop it already left) are shown as skipped.
            """)

    @Argument(help: "Shader files (.metal, .h) or one .kilnlib.")
    var files: [String] = []

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    @Option(help: "Entry function (default: the library's only drawable function).")
    var function: String?

    @Option(help: "The pixel, X,Y from the top left.")
    var pixel: String

    @Option(help: "Frame size WIDTHxHEIGHT (default: a PNG content's size, else 256x256).")
    var size: String?

    @Option(help: "Content under the effect: rainbow, checker, gradient, photo or a PNG path.")
    var content = "photo"

    @Option(help: "Texture 1 of a two-texture fragment pass.")
    var content2 = "checker"

    @Option(name: .customLong("arg"), help: "An argument value, NAME=VALUE (repeatable).")
    var arguments: [String] = []

    @Option(help: "The clock for time/t arguments, in seconds.")
    var time: Float?

    @Option(help: "Most instructions recorded (PixelDebugger.Limits.maxSteps); the run completes past it.")
    var maxSteps = PixelDebugger.Limits().maxSteps

    @Flag(help: "Print the report as JSON (the WebSocket debug reply's shape).")
    var json = false

    func run() throws {
        guard !files.isEmpty else { throw ValidationError("give shader files or a library") }
        let coordinates = pixel.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard coordinates.count == 2, let x = coordinates[0], let y = coordinates[1] else {
            throw ValidationError("--pixel must be X,Y (e.g. 128,64)")
        }
        guard maxSteps >= 1 else { throw ValidationError("--max-steps must be at least 1") }
        let values = try ArgumentValues.parse(arguments)
        let loaded = try ShaderBuild.load(files, includeDirectories: includeDirectories)
        let targets = try RenderCommand.selectFunctions(in: loaded.library, named: function)
        guard targets.count == 1, let target = targets.first else {
            throw CommandFailure("the library has \(targets.count) functions; choose one with --function (\(targets.map(\.name).joined(separator: ", ")))")
        }
        let renderer = FrameRenderer(threads: 1)
        let outputSize = try size.map { try ImageSize(parsing: $0) } ?? renderer.naturalSize(content: content)
        let contents = try renderer.loadContents(content, content2, size: outputSize)
        let request = renderer.request(library: loaded.library, function: target, size: outputSize, contents: contents,
                                       arguments: values, time: time)
        let report: PixelDebugReport
        do {
            report = try PixelDebugger.debug(request, x: x, y: y, limits: .init(maxSteps: maxSteps))
        } catch {
            throw CommandFailure(error.message)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            Console.current.line(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Console.current.write(DebugReportText.render(report, sources: loaded.sources))
        }
        // The frame fails the same way (a runaway loop): the steps show it, the status says it.
        if report.failure != nil { throw ExitCode.failure }
    }
}

/// The text form of a `PixelDebugReport`: one line per statement, source beside values.
enum DebugReportText {
    static func render(_ report: PixelDebugReport, sources: [SourceFile]) -> String {
        var out = ""
        let p = report.pixel.map(String.init).joined(separator: ", ")
        out += "\(report.function) at pixel (\(report.x), \(report.y)) of \(report.width)×\(report.height) (batch lane \(report.lane))\n"
        if report.failure == nil {
            out += "pixel RGBA8 (premultiplied) = (\(p)); result = (\(report.result.map { "\($0)" }.joined(separator: ", ")))\n"
        } else {
            out += "no pixel: the run stopped before the end (below)\n"
        }
        out += "\(report.steps.count) steps, \(report.executed) instructions in the batch\n\n"
        let width = report.steps.map { String($0.line).count }.max() ?? 1
        for step in report.steps {
            let file = step.file < report.files.count ? report.files[step.file] : "?"
            let source = sources.first { $0.name == file }.map { $0.lineText(step.line).trimmingCharacters(in: .whitespaces) } ?? ""
            let depth = step.activation < report.activations.count ? report.activations[step.activation].depth : 0
            let indent = String(repeating: "  ", count: depth)
            var line = String(repeating: " ", count: width - String(step.line).count) + "\(step.line)  \(indent)\(source)"
            if !step.loops.isEmpty {
                line += "   [" + step.loops.map { "iteration \($0.iteration)" }.joined(separator: ", ") + "]"
            }
            if depth > 0, step.activation < report.activations.count {
                line += "   (in \(report.activations[step.activation].function))"
            }
            if !step.active { line += "   — skipped: this pixel's lane does not run it" }
            out += line + "\n"
            for change in step.changes where change.variable < report.variables.count {
                let variable = report.variables[change.variable]
                let values = zip(variable.components, change.values).map { label, value in
                    (label.isEmpty ? "" : label + "=") + (value ?? "optimised away")
                }
                out += String(repeating: " ", count: width + 2) + indent + "    \(variable.name) = " + values.joined(separator: " ") + "\n"
            }
        }
        if let failure = report.failure {
            out += "the run stopped: \(failure)\n"
        } else if report.truncated {
            out += "(trace truncated at --max-steps; the run completed)\n"
        }
        return out
    }
}
