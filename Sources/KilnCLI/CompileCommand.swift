import ArgumentParser
import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage

/// `kiln compile FILE… [-o out.kilnlib] [--json]`
///
/// Compiles one or more shader files into one library. Diagnostics go to stderr in
/// clang's format (coloured on a terminal); any error means exit status 1 and no
/// library. With `--json`, stdout gets one JSON object describing the diagnostics, the
/// entry functions and the library.
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

    func run() throws {
        let sources = try ShaderSources.load(files, includeDirectories: includeDirectories)
        let result = ShaderBuild.compile(sources.files, searchPaths: sources.searchPaths, printDiagnostics: !json)
        var libraryBytes: [UInt8]?
        if let library = result.library {
            let bytes = LibraryWriter.encode(library)
            libraryBytes = bytes
            if let path = outputPath {
                try ShaderBuild.write(bytes, to: path)
            }
        }
        if json {
            Console.current.line(CompileReport.json(result: result, libraryBytes: libraryBytes))
        }
        if result.library == nil {
            throw ExitCode.failure
        }
    }

    /// The library's path: `-o`, or `<first file>.kilnlib` in the current directory
    /// unless only a JSON report was asked for.
    var outputPath: String? {
        if let output { return output }
        if json { return nil }
        let first = files.first { !ShaderSources.isHeader($0) } ?? files[0]
        let base = ((first as NSString).lastPathComponent as NSString).deletingPathExtension
        return base + ".kilnlib"
    }
}
