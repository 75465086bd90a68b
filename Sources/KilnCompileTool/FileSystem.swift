#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file and path operations `kiln compile` needs, on POSIX calls and strings.
///
/// Not Foundation's `FileManager`, `NSString` paths and `FileHandle`: linking Foundation
/// statically costs every process about 1.4 ms of start-up (its relocations and
/// CoreFoundation's initialisers run before `main`), a third of a whole `kiln compile` of a
/// small shader, and this module is everything the `kiln` executable links
/// (docs/benchmarks.md, "`kiln compile` in its own executable"). The path functions are
/// lexical, as `NSString`'s are: no symbolic link is resolved.
public enum FileSystem {
    /// Why a file could not be read.
    public enum ReadError: Error, Equatable {
        case missing, directory, tooLarge(size: Int), unreadable
    }

    /// The whole contents of the file at `path`, refusing missing files, directories and
    /// files over `limit` bytes.
    public static func read(_ path: String, limit: Int) -> Result<[UInt8], ReadError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(.missing) }
        guard info.st_mode & S_IFMT != S_IFDIR else { return .failure(.directory) }
        let size = Int(info.st_size)
        guard size <= limit else { return .failure(.tooLarge(size: size)) }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return .failure(.unreadable) }
        defer { close(descriptor) }
        // Read to the end rather than trusting `st_size`: the file may change underneath,
        // and a pipe or /proc file reports no size. One byte past the limit is enough to know.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(min(size, limit) + 1, 4096))
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .failure(.unreadable) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else { return .failure(.tooLarge(size: bytes.count)) }
        }
        return .success(bytes)
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; false
    /// on an error.
    @discardableResult
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    /// Whether the file at `path` exists and this process may read it.
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Whether `path` names something other than a regular file or a folder — a device
    /// such as `/dev/null` or `/dev/stdout`, a pipe, a socket — following symbolic links.
    public static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }

    /// The process's current folder.
    public static var currentDirectory: String {
        guard let pointer = getcwd(nil, 0) else { return "." }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Creates the folder `path` and any missing parents; false if it does not exist after.
    @discardableResult
    public static func makeDirectories(_ path: String) -> Bool {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { return false }
            prefix += "/"
        }
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The folder part of `path`, as `NSString.deletingLastPathComponent`: `a/b.metal` → `a`,
    /// `b.metal` → ``, `/b.metal` → `/`, trailing slashes ignored.
    public static func directory(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[0..<end], as: UTF8.self)
    }

    /// The last component of `path`, as `NSString.lastPathComponent`: `a/b.metal` → `b.metal`.
    public static func lastComponent(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? (path.hasPrefix("/") ? "/" : "")
    }

    /// `name` without its extension, as `NSString.deletingPathExtension`: `b.metal` → `b`,
    /// `.hidden` and `noext` unchanged.
    public static func deletingExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `component` appended to `folder`, with exactly one slash between them.
    public static func join(_ folder: String, _ component: String) -> String {
        if folder.isEmpty { return component }
        return folder.hasSuffix("/") ? folder + component : folder + "/" + component
    }
}

// The C calls under other names: inside `FileSystem`, `read` and `write` are its own.
#if canImport(Glibc)
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif
