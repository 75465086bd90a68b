import ArgumentParser
import Foundation
import KilnCompileTool
import KilnCompiler
import KilnJSON
import KilnLanguage

/// `kiln bench compile`: how long compiling each example and benchmark shader takes.
///
/// For every `.metal` file in `shaders/` and the benchmark folder: source lines, the
/// median of at least `--runs` in-process compiles (parse, check, lower, optimize,
/// allocate, encode nothing), and the size of the result (instructions and registers,
/// summed and maximized over the file's entry functions). Compiles run as a live-editing
/// server's do, with the process's `HeaderCache` (a file that starts with
/// `#include "common.h"` finds the header checked already); the median without it is
/// measured and shown too.
struct BenchCompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Measure compile times of the example and benchmark shaders.")

    @Option(help: "Folder of example shaders (default: shaders/ in the package root).")
    var shadersDir: String?

    @Option(help: "Folder of the benchmark shaders (default: bench/ in the package root).")
    var benchDir: String?

    @Option(help: "Compiles per file; the median is reported.")
    var runs = 200

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        guard runs >= 1, runs <= 1_000_000 else { throw ValidationError("--runs must be in 1...1000000") }
    }

    func run() throws {
        let folders = [shadersDir ?? ProjectPaths.resolve("shaders"),
                       benchDir ?? ProjectPaths.resolve("bench")]
        // Each file with its folder, for the summary under the table.
        var paths: [(folder: String, path: String)] = []
        for folder in folders {
            let files = ProjectPaths.shaderFiles(in: folder)
            if files.isEmpty {
                Console.current.error("warning: no .metal files in \(folder)\n")
            }
            paths += files.map { (folder, $0) }
        }
        guard !paths.isEmpty else { throw CommandFailure("no shaders to compile") }

        var table = TextTable([("file", .left), ("lines", .right), ("functions", .right),
                               ("compile µs (median)", .right), ("without header cache", .right),
                               ("instructions", .right), ("registers", .right)])
        var records: [[String: Any]] = []
        var medians: [(folder: String, microseconds: Double, withoutCache: Double)] = []
        var uncached = CompileOptions()
        uncached.headerCache = nil
        for (folder, path) in paths {
            let sources = try ShaderSources.load([path]).files
            let lines = sources[0].lineStarts.count
            // One compile outside the timing: it reports errors and warms caches.
            let first = Compiler.compile(sources)
            guard let library = first.library else {
                _ = ShaderBuild.compile(sources)       // prints the diagnostics
                throw CommandFailure("\(path) does not compile")
            }
            let samples = Measurement.repeated(seconds: 0, minimumRuns: runs) {
                _ = Compiler.compile(sources)
            }
            let withoutCache = Measurement.repeated(seconds: 0, minimumRuns: runs) {
                _ = Compiler.compile(sources, options: uncached)
            }
            let median = Measurement.median(samples), medianWithoutCache = Measurement.median(withoutCache)
            let instructions = library.functions.reduce(0) { $0 + $1.instructionCount }
            let registers = library.functions.map { Int($0.registerCount) }.max() ?? 0
            medians.append((folder, median * 1e6, medianWithoutCache * 1e6))
            let name = displayName(path)
            table.add([name, "\(lines)", "\(library.functions.count)", Format.fixed(median * 1e6, 1),
                       Format.fixed(medianWithoutCache * 1e6, 1), "\(instructions)", "\(registers)"])
            records.append(["file": name, "lines": lines, "functions": library.functions.count,
                            "compile_us": JSONText.rounded(median * 1e6, digits: 1),
                            "compile_without_header_cache_us": JSONText.rounded(medianWithoutCache * 1e6, digits: 1),
                            "runs": samples.count, "instructions": instructions, "registers": registers])
        }
        if json {
            Console.current.line(JSONText.serialize(records))
        } else {
            Console.current.write(table.text)
            Console.current.write(summary(medians, folders: folders))
        }
    }

    /// The median of the per-file medians of each folder — for `shaders/` the figure issue 10
    /// sets a target for ("median in-process ≤ 100 µs over shaders/"), so nobody has to
    /// compute it from the table by hand.
    func summary(_ medians: [(folder: String, microseconds: Double, withoutCache: Double)], folders: [String]) -> String {
        var text = "\n"
        for folder in folders {
            let values = medians.filter { $0.folder == folder }
            guard !values.isEmpty else { continue }
            let name = URL(fileURLWithPath: folder).lastPathComponent
            text += "median over \(name)/ (\(values.count) file\(values.count == 1 ? "" : "s")): "
                + "\(Format.fixed(Measurement.median(values.map(\.microseconds)), 1)) µs "
                + "(\(Format.fixed(Measurement.median(values.map(\.withoutCache)), 1)) µs without the header cache)\n"
        }
        return text
    }

    /// `shaders/wave.metal`, `bench/wave.metal`: the folder name tells the two sets apart.
    private func displayName(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent
    }
}
