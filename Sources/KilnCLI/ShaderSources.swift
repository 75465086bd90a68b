import Foundation
import KilnLanguage

/// Reads the shader files named on the command line, plus the headers they include.
///
/// The compiler resolves `#include "name"` only among the files of one request, so the
/// command line has to bring the headers along: for every `#include "name"` in a file
/// read here, `name` is looked up next to that file and added (once) when it exists.
/// A missing header is left for the compiler to report at the `#include` line.
enum ShaderSources {
    /// Limits on what is read, so a stray argument cannot pull in a huge tree.
    struct Limits {
        /// Files read in all, including found headers.
        var maxFiles = 256
        /// Bytes of one file (the compiler has its own, smaller total limit).
        var maxFileBytes = 16 << 20
    }

    /// Loads `paths` in order, then the headers they include. Files ending in `.h` are
    /// include-only; at least one other file must be given.
    static func load(_ paths: [String], limits: Limits = Limits()) throws -> [SourceFile] {
        guard !paths.isEmpty else { throw CommandFailure("no input files") }
        var files: [SourceFile] = []
        var directories: [String] = []
        var seenNames = Set<String>()

        func read(_ path: String, as name: String) throws {
            guard files.count < limits.maxFiles else {
                throw CommandFailure("too many source files (limit \(limits.maxFiles))")
            }
            let text = try readText(path, limit: limits.maxFileBytes)
            files.append(SourceFile(name: name, text: text))
            directories.append((path as NSString).deletingLastPathComponent)
            seenNames.insert(name)
        }

        for path in paths {
            let name = (path as NSString).lastPathComponent
            guard !seenNames.contains(name) else {
                throw CommandFailure("two input files are called '\(name)'; file names must be unique")
            }
            try read(path, as: name)
        }
        guard files.contains(where: { !isHeader($0.name) }) else {
            throw CommandFailure("only headers given: '.h' files are include-only; name a .metal file")
        }
        // Breadth-first over the include graph; `files` grows while we walk it.
        var index = 0
        while index < files.count {
            for included in includedNames(in: files[index].text) where !seenNames.contains(included) {
                let directory = directories[index]
                let candidate = directory.isEmpty ? included : (directory as NSString).appendingPathComponent(included)
                if FileManager.default.isReadableFile(atPath: candidate) {
                    try read(candidate, as: included)
                }
            }
            index += 1
        }
        return files
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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw CommandFailure("\(path): is a directory") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= limit else {
            throw CommandFailure("\(path): file too large (\(size) bytes, limit \(limit))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot be read")
        }
        return data
    }

    /// The names of `#include "name"` directives in `text` (system `<...>` includes are
    /// the compiler's business). A light scan: it may see an include inside a comment or
    /// an `#if 0` block, which only means a header is read that the compiler ignores.
    static func includedNames(in text: String) -> [String] {
        var names: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            var rest = line.drop { $0 == " " || $0 == "\t" }
            guard rest.first == "#" else { continue }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard rest.hasPrefix("include") else { continue }
            rest = rest.dropFirst("include".count).drop { $0 == " " || $0 == "\t" }
            guard rest.first == "\"" else { continue }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else { continue }
            let name = String(rest[..<close])
            // Only plain names: the compiler matches includes by file name.
            if !name.isEmpty, !name.contains("/") { names.append(name) }
        }
        return names
    }
}
