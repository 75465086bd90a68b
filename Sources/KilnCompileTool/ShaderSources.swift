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
public enum ShaderSources {
    /// Limits on what is read, so a stray argument cannot pull in a huge tree.
    public struct Limits {
        /// Files read in all, including found headers.
        public var maxFiles = 256
        /// Bytes of one file (the compiler has its own, smaller total limit).
        public var maxFileBytes = 16 << 20

        public init() {}
    }

    /// The files of one compile, where they are on disk, and the search paths by name.
    public struct Loaded {
        public var files: [SourceFile]
        /// The disk path of each file (what `kiln live` watches).
        public var diskPaths: [String]
        /// The `-I` folders as the compiler sees them (relative to the first input's folder).
        public var searchPaths: [String]
    }

    /// Loads `paths` in order, then the headers they include. Files ending in `.h` are
    /// include-only; at least one other file must be given.
    public static func load(_ paths: [String], includeDirectories: [String] = [], limits: Limits = Limits()) throws -> Loaded {
        guard let firstPath = paths.first else { throw CommandFailure("no input files") }
        let base = FileSystem.directory(of: absolute(firstPath))
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
            let directory = FileSystem.directory(of: loaded.diskPaths[index])
            for include in includes(in: loaded.files[index].text) {
                let folders = (include.isSystem ? [] : [directory]) + includeDirectories
                for folder in folders {
                    let candidate = FileSystem.join(folder, include.path)
                    guard FileSystem.isReadable(candidate) else { continue }
                    if !seenNames.contains(relativePath(from: base, to: absolute(candidate))) { try read(candidate) }
                    break
                }
            }
            index += 1
        }
        return loaded
    }

    /// `path` as an absolute path with `.` and `..` resolved.
    /// Lexically, as `URL.standardizedFileURL` does (symbolic links are not resolved).
    /// Byte by byte: with `split` and `joined` over substrings, the first call in a process
    /// paid for the generic code's metadata — 200 000 instructions of a `kiln compile`.
    public static func absolute(_ path: String) -> String {
        let full = Array(path.utf8.first == UInt8(ascii: "/") ? path.utf8 : (FileSystem.currentDirectory + "/" + path).utf8)
        var kept: [Range<Int>] = []
        for component in components(full) {
            let count = component.count
            if count == 1, full[component.lowerBound] == UInt8(ascii: ".") { continue }
            if count == 2, full[component.lowerBound] == UInt8(ascii: "."), full[component.lowerBound + 1] == UInt8(ascii: ".") {
                if !kept.isEmpty { kept.removeLast() }
            } else {
                kept.append(component)
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(full.count + 1)
        if kept.isEmpty { out.append(UInt8(ascii: "/")) }
        for component in kept {
            out.append(UInt8(ascii: "/"))
            out.append(contentsOf: full[component])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The path of `target` seen from folder `base` (both absolute): `a/b.h`, `../c/d.h`.
    public static func relativePath(from base: String, to target: String) -> String {
        let fromBytes = Array(base.utf8), toBytes = Array(target.utf8)
        let from = components(fromBytes), to = components(toBytes)
        var common = 0
        while common < from.count, common < to.count - 1, fromBytes[from[common]].elementsEqual(toBytes[to[common]]) {
            common += 1
        }
        var out: [UInt8] = []
        out.reserveCapacity(toBytes.count + 3 * (from.count - common))
        for _ in common..<from.count {
            if !out.isEmpty { out.append(UInt8(ascii: "/")) }
            out.append(UInt8(ascii: ".")); out.append(UInt8(ascii: "."))
        }
        for component in to[common...] {
            if !out.isEmpty { out.append(UInt8(ascii: "/")) }
            out.append(contentsOf: toBytes[component])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The non-empty `/`-separated components of `path`, as byte ranges.
    private static func components(_ path: [UInt8]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for index in 0...path.count where index == path.count || path[index] == UInt8(ascii: "/") {
            if index > start { result.append(start..<index) }
            start = index + 1
        }
        return result
    }

    /// Whether a file is include-only.
    public static func isHeader(_ name: String) -> Bool { name.hasSuffix(".h") }

    /// Reads a UTF-8 text file with a clear error for every way that can fail. A leading
    /// byte-order mark (editors on Windows write one) is dropped, as Foundation's UTF-8
    /// decoding did before this module stopped using it.
    public static func readText(_ path: String, limit: Int) throws -> String {
        var bytes = try readData(path, limit: limit)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure("\(path): not UTF-8 text")
        }
        return text
    }

    /// Reads a whole file, refusing directories, missing files and files over `limit` bytes.
    public static func readData(_ path: String, limit: Int) throws -> [UInt8] {
        switch FileSystem.read(path, limit: limit) {
        case .success(let bytes): return bytes
        case .failure(.missing): throw CommandFailure("\(path): no such file")
        case .failure(.directory): throw CommandFailure("\(path): is a directory")
        case .failure(.tooLarge(let size)): throw CommandFailure("\(path): file too large (\(size) bytes, limit \(limit))")
        case .failure(.unreadable): throw CommandFailure("\(path): cannot be read")
        }
    }

    /// The `#include "path"` and `#include <path>` directives of `text`. A light scan: it may
    /// see an include inside a comment or an `#if 0` block, which only means a header is
    /// read that the compiler ignores.
    ///
    /// It scans bytes, not `Character`s: splitting the text into grapheme clusters cost as
    /// much as the whole compile's lexer (1.3 M instructions for `gradient.metal` and
    /// `common.h`), and a CRLF file's `"\r\n"` is one `Character`, so its lines never split.
    public static func includes(in text: String) -> [(path: String, isSystem: Bool)] {
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
