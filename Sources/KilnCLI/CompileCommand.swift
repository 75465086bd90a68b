import ArgumentParser
import KilnCompileTool

/// `kiln compile FILE… [-o out.kilnlib] [--json]`
///
/// Compiles one or more shader files into one library. Diagnostics go to stderr in
/// clang's format (coloured on a terminal); any error means exit status 1 and no
/// library. With `--json`, stdout gets one JSON object describing the diagnostics, the
/// entry functions and the library. The work is `CompileJob`'s, which the `kiln`
/// executable also runs on its own for plain command lines (`QuickCompileArguments`).
struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile shader files into a .kilnlib library.",
        discussion: """
            Every file except '.h' headers is a translation unit; headers are only \
            included. `#include "path"` is found next to the file that includes it, then \
            in each -I folder; `#include <path>` only in the -I folders. Without -o the library is written to <first file>.kilnlib \
            in the current directory; with --json and no -o nothing is written.
            """)

    @Argument(help: "Shader files (.metal) and headers (.h).")
    var files: [String]

    @Option(name: .shortAndLong, help: "Where to write the library.")
    var output: String?

    @Flag(help: "Print a JSON report (diagnostics, functions, library) on stdout.")
    var json = false

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    /// The compile these options describe.
    var job: CompileJob {
        CompileJob(files: files, output: output, json: json, includeDirectories: includeDirectories)
    }

    func run() throws {
        try job.run()
    }
}
