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
    ///
    /// It scans bytes, not `Character`s: splitting the text into grapheme clusters cost as
    /// much as the whole compile's lexer (1.3 M instructions for `gradient.metal` and
    /// `common.h`), and a CRLF file's `"\r\n"` is one `Character`, so its lines never split.
    static func includes(in text: String) -> [(path: String, isSystem: Bool)] {
        let bytes = Array(text.utf8)
        var found: [(path: String, isSystem: Bool)] = []
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if let include = includeDirective(bytes[lineStart..<lineEnd]) { found.append(include) }
            lineStart = lineEnd + 1
        }
        return found
    }

    /// The path of `line` if it is `# include "path"` or `# include <path>` (blanks allowed
    /// around the `#`).
    private static func includeDirective(_ line: ArraySlice<UInt8>) -> (path: String, isSystem: Bool)? {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var rest = line.drop(while: isBlank)
        guard rest.first == UInt8(ascii: "#") else { return nil }
        rest = rest.dropFirst().drop(while: isBlank)
        guard rest.starts(with: "include".utf8) else { return nil }
        rest = rest.dropFirst("include".utf8.count).drop(while: isBlank)
        guard let open = rest.first, open == UInt8(ascii: "\"") || open == UInt8(ascii: "<") else { return nil }
        rest = rest.dropFirst()
        let isSystem = open == UInt8(ascii: "<")
        guard let close = rest.firstIndex(of: isSystem ? UInt8(ascii: ">") : open), close > rest.startIndex else { return nil }
        return (String(decoding: rest[..<close], as: UTF8.self), isSystem)
    }
}
