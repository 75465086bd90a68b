import Foundation
import KilnLanguage

/// Reads the shader files named on the command line, plus the headers they include.
///
/// The compiler never reads the disk: it resolves `#include` among the files of one request
/// by their names (`IncludePath`). So the command line names every file by its path
/// relative to the folder of the first input (`wave.metal`, `../Headers/Types.h`), brings
/// along every header an include reaches — next to the including file, then in each `-I`
/// folder, exactly as the compiler will look — and passes the `-I` folders as search paths
/// named the same way. A missing header is left for the compiler to report at the
/// `#include` line.
enum ShaderSources {
    /// Limits on what is read, so a stray argument cannot pull in a huge tree.
    struct Limits {
        /// Files read in all, including found headers.
        var maxFiles = 256
        /// Bytes of one file (the compiler has its own, smaller total limit).
        var maxFileBytes = 16 << 20
    }

    /// The files of one compile, where they are on disk, and the search paths by name.
    struct Loaded {
        var files: [SourceFile]
        /// The disk path of each file (what `kiln live` watches).
        var diskPaths: [String]
        /// The `-I` folders as the compiler sees them (relative to the first input's folder).
        var searchPaths: [String]
    }

    /// Loads `paths` in order, then the headers they include. Files ending in `.h` are
    /// include-only; at least one other file must be given.
    static func load(_ paths: [String], includeDirectories: [String] = [], limits: Limits = Limits()) throws -> Loaded {
        guard let firstPath = paths.first else { throw CommandFailure("no input files") }
        let base = (absolute(firstPath) as NSString).deletingLastPathComponent
        var loaded = Loaded(files: [], diskPaths: [],
                            searchPaths: includeDirectories.map { relativePath(from: base, to: absolute($0)) })
        var seenNames = Set<String>()

        func read(_ path: String) throws {
            guard loaded.files.count < limits.maxFiles else {
                throw CommandFailure("too many source files (limit \(limits.maxFiles))")
            }
            let text = try readText(path, limit: limits.maxFileBytes)
            let name = relativePath(from: base, to: absolute(path))
            loaded.files.append(SourceFile(name: name, text: text))
            loaded.diskPaths.append(path)
            seenNames.insert(name)
        }

        for path in paths {
            let name = relativePath(from: base, to: absolute(path))
            guard !seenNames.contains(name) else {
                throw CommandFailure("'\(path)' is given twice")
            }
            try read(path)
        }
        guard loaded.files.contains(where: { !isHeader($0.name) }) else {
            throw CommandFailure("only headers given: '.h' files are include-only; name a .metal file")
        }
        // Breadth-first over the include graph; `files` grows while we walk it.
        var index = 0
        while index < loaded.files.count {
            let directory = (loaded.diskPaths[index] as NSString).deletingLastPathComponent
            for include in includes(in: loaded.files[index].text) {
                let folders = (include.isSystem ? [] : [directory]) + includeDirectories
                for folder in folders {
                    let candidate = folder.isEmpty ? include.path : (folder as NSString).appendingPathComponent(include.path)
                    guard FileManager.default.isReadableFile(atPath: candidate) else { continue }
                    if !seenNames.contains(relativePath(from: base, to: absolute(candidate))) { try read(candidate) }
                    break
                }
            }
            index += 1
        }
        return loaded
    }

    /// `path` as an absolute path with `.` and `..` resolved.
    /// Lexically, as `URL.standardizedFileURL` does (symbolic links are not resolved), but
    /// without `URL`, whose first use costs a protocol-conformance scan of the whole binary.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var components: [Substring] = []
        for component in full.split(separator: "/") where component != "." {
            if component == ".." {
                if !components.isEmpty { components.removeLast() }
            } else {
                components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// The path of `target` seen from folder `base` (both absolute): `a/b.h`, `../c/d.h`.
    static func relativePath(from base: String, to target: String) -> String {
        let from = base.split(separator: "/"), to = target.split(separator: "/")
        var common = 0
        while common < from.count, common < to.count - 1, from[common] == to[common] { common += 1 }
        let up = Array(repeating: "..", count: from.count - common)
        return (up + to[common...].map(String.init)).joined(separator: "/")
    }

    /// Whether a file is include-only.
    static func isHeader(_ name: String) -> Bool { name.hasSuffix(".h") }

    /// Reads a UTF-8 text file with a clear error for every way that can fail.
    static func readText(_ path: String, limit: Int) throws -> String {
        let data = try readData(path, limit: limit)
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("\(path): not UTF-8 text")
        }
        return text
    }

    /// Reads a whole file, refusing directories, missing files and files over `limit` bytes.
    static func readData(_ path: String, limit: Int) throws -> Data {
        // `stat` rather than `FileManager.attributesOfItem`: its `[FileAttributeKey: Any]`
        // and the `as? Int` cast each cost a protocol-conformance scan of the whole binary
        // (~1 ms of a whole-process `kiln compile`).
        var info = stat()
        guard stat(path, &info) == 0 else { throw CommandFailure("\(path): no such file") }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw CommandFailure("\(path): is a directory") }
        let size = Int(info.st_size)
        guard size <= limit else {
            throw CommandFailure("\(path): file too large (\(size) bytes, limit \(limit))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot be read")
        }
        return data
    }

    /// The `#include "path"` and `#include <path>` directives of `text`. A light scan: it may
    /// see an include inside a comment or an `#if 0` block, which only means a header is
    /// read that the compiler ignores.
    static func includes(in text: String) -> [(path: String, isSystem: Bool)] {
        var found: [(path: String, isSystem: Bool)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            var rest = line.drop { $0 == " " || $0 == "\t" }
            guard rest.first == "#" else { continue }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard rest.hasPrefix("include") else { continue }
            rest = rest.dropFirst("include".count).drop { $0 == " " || $0 == "\t" }
            guard let open = rest.first, open == "\"" || open == "<" else { continue }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: open == "<" ? ">" : "\"") else { continue }
            let path = String(rest[..<close])
            if !path.isEmpty { found.append((path, open == "<")) }
        }
        return found
    }
}
