import KilnBytecode
import KilnCompiler

/// One `kiln compile`: what ArgumentParser's `compile` command (KilnCLI) and the `kiln`
/// executable's own reading of plain compile command lines (`QuickCompileArguments`) both
/// run, so the two cannot drift apart.
public struct CompileJob: Equatable, Sendable {
    /// Shader files (`.metal`) and headers (`.h`), in command-line order.
    public var files: [String]
    /// `-o`: where to write the library.
    public var output: String?
    /// `--json`: a JSON report on stdout.
    public var json: Bool
    /// `-I` folders, searched by `#include` after the including file's own.
    public var includeDirectories: [String]

    public init(files: [String], output: String? = nil, json: Bool = false, includeDirectories: [String] = []) {
        self.files = files
        self.output = output
        self.json = json
        self.includeDirectories = includeDirectories
    }

    /// Compiles, prints diagnostics (or the JSON report) and writes the library. A compile
    /// with errors throws `CompileFailed` after its diagnostics are printed; unreadable
    /// inputs and unwritable outputs throw `CommandFailure`.
    public func run() throws {
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
            throw CompileFailed()
        }
    }

    /// The library's path: `-o`, or `<first file>.kilnlib` in the current directory
    /// unless only a JSON report was asked for.
    public var outputPath: String? {
        if let output { return output }
        if json { return nil }
        let first = files.first { !ShaderSources.isHeader($0) } ?? files[0]
        let base = FileSystem.deletingExtension(FileSystem.lastComponent(of: first))
        return base + ".kilnlib"
    }
}
