#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KilnBytecode
import KilnCompiler
import KilnLanguage

/// The steps several commands share: compile sources and report diagnostics, load a
/// library from either a `.kilnlib` or shader sources, write files.
public enum ShaderBuild {
    /// Compiles `sources`, printing every diagnostic to stderr clang-style (coloured when
    /// stderr is a terminal) unless `printDiagnostics` is false.
    public static func compile(_ sources: [SourceFile], searchPaths: [String] = [], printDiagnostics: Bool = true) -> CompileResult {
        let result = Compiler.compile(sources, options: CompileOptions(includeSearchPaths: searchPaths))
        if printDiagnostics, !result.diagnostics.isEmpty {
            let console = Console.current
            var text = DiagnosticRenderer.text(result.diagnostics, files: result.files,
                                               color: console.errorIsTerminal)
            if !text.hasSuffix("\n") { text += "\n" }
            console.error(text)
            let errors = result.diagnostics.filter { $0.severity == .error }.count
            if errors > 0 {
                console.error("\(errors) error\(errors == 1 ? "" : "s") generated.\n")
            }
        }
        return result
    }

    /// A library together with the sources it came from, when they are at hand.
    public struct LoadedLibrary {
        public var library: Library
        /// The source files, for interleaving in disassembly and for debug output; empty
        /// when a `.kilnlib` was loaded and its sources were not found next to it.
        public var sources: [SourceFile]
    }

    /// Largest `.kilnlib` the commands read.
    public static var maxLibraryBytes: Int { LibraryLimits.default.maxLibraryBytes }

    /// Whether `path` names a compiled library rather than shader source.
    public static func isLibrary(_ path: String) -> Bool { path.hasSuffix(".kilnlib") }

    /// Loads `paths`: one `.kilnlib`, or shader files compiled on the spot (compile errors
    /// are printed and end the command with exit status 1).
    public static func load(_ paths: [String], includeDirectories: [String] = []) throws -> LoadedLibrary {
        if let first = paths.first, isLibrary(first) {
            guard paths.count == 1 else {
                throw CommandFailure("give either one .kilnlib or shader files, not both")
            }
            return try readLibrary(first)
        }
        let sources = try ShaderSources.load(paths, includeDirectories: includeDirectories)
        let result = compile(sources.files, searchPaths: sources.searchPaths)
        guard let library = result.library else {
            throw CompileFailed()
        }
        return LoadedLibrary(library: library, sources: result.files)
    }

    /// Reads and verifies a `.kilnlib`, and picks up its sources from the same folder when
    /// they are there and unchanged (their SHA-256 matches the library's record).
    public static func readLibrary(_ path: String) throws -> LoadedLibrary {
        let bytes = try ShaderSources.readData(path, limit: maxLibraryBytes)
        let library: Library
        do {
            library = try LibraryReader.decode(bytes)
        } catch {
            throw CommandFailure("\(path): not a valid Kiln library: \(error)")
        }
        let directory = FileSystem.directory(of: path)
        var sources: [SourceFile] = []
        for record in library.sources {
            let candidate = FileSystem.join(directory, record.name)
            guard let text = try? ShaderSources.readText(candidate, limit: ShaderSources.Limits().maxFileBytes),
                  SHA256Digest.hash(Array(text.utf8)) == record.sha256 else {
                sources = []       // all or nothing: the debug table indexes files by position
                break
            }
            sources.append(SourceFile(name: record.name, text: text))
        }
        return LoadedLibrary(library: library, sources: sources)
    }

    /// Writes `bytes` to `path`, creating the parent folder.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        // A device or pipe (`-o /dev/null`, `-o /dev/stdout`) is written to, not replaced:
        // renaming a file over it would put a regular file where `/dev/null` was (as root,
        // every later write to /dev/null then lands in that file). A file is written whole
        // or not at all: a temporary file beside it, renamed over it.
        let special = FileSystem.isSpecialFile(path)
        let directory = FileSystem.directory(of: path)
        if !special && !directory.isEmpty {
            FileSystem.makeDirectories(directory)
        }
        let target = special ? path : path + ".partial-\(getpid())"
        let descriptor = open(target, special ? O_WRONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw CommandFailure("\(path): cannot be written") }
        let complete = bytes.withUnsafeBytes { FileSystem.writeAll($0, to: descriptor) }
        let closed = close(descriptor) == 0
        guard complete, closed, special || rename(target, path) == 0 else {
            if !special { unlink(target) }
            throw CommandFailure("\(path): cannot be written")
        }
    }
}
