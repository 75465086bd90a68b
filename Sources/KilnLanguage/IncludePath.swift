/// How `#include` finds a file among the files of a compile request, as clang does on
/// disk: files are named by relative paths (`Effects/ripple.metal`, `Headers/Types.h`,
/// `../Common/Uniforms.h`), and resolution is lexical on those names, so a request carries
/// a folder's worth of files and no compile ever reads the disk.
///
/// `#include "p"` looks first next to the including file (`dirname(includer)/p`), then in
/// each search path (`S/p`, from `kiln compile -I S`); `#include <p>` looks only in the
/// search paths. As a last resort a file whose whole name is `p`, or whose last path
/// component is `p`'s, is taken (requests that name files by bare name keep working).
public enum IncludePath {
    /// `path` with `.` and empty components removed and `dir/..` folded; leading `..`
    /// components stay (`a/./b/../c.h` → `a/c.h`, `../x/../y.h` → `../y.h`).
    public static func normalize(_ path: String) -> String {
        // Names are nearly always normal already (`common.h`, `Shaders/ripple.metal`), and
        // every `#include` normalizes each file name of the request to compare it: splitting
        // and joining them was ~25 000 instructions an include, 2 % of compiling a shader
        // that includes one header.
        isNormal(path) ? path : normalizeComponents(path)
    }

    /// `normalize` component by component.
    static func normalizeComponents(_ path: String) -> String {
        var parts: [Substring] = []
        let absolute = path.hasPrefix("/")
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else if part == "..", absolute, parts.isEmpty {
                continue
            } else {
                parts.append(part)
            }
        }
        return (absolute ? "/" : "") + parts.joined(separator: "/")
    }

    /// True when `normalize` returns `path` unchanged: no empty, `.` or `..` component and
    /// no trailing slash (a leading one is kept by `normalize`).
    static func isNormal(_ path: String) -> Bool {
        var length = 0, dots = 0, first = true
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                defer { first = false }
                if first { continue }
                if length == 0 || (length == dots && dots <= 2) { return false }
                length = 0
                dots = 0
            } else {
                first = false
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        if length == 0 { return path.utf8.count <= 1 }
        return !(length == dots && dots <= 2)
    }

    /// The folder part of a file name (`a/b/c.h` → `a/b`; `c.h` → empty).
    public static func directory(of name: String) -> String {
        guard let slash = name.lastIndex(of: "/") else { return "" }
        return String(name[..<slash])
    }

    /// `path` inside `directory`, normalized.
    public static func join(_ directory: String, _ path: String) -> String {
        if path.hasPrefix("/") || directory.isEmpty { return normalize(path) }
        return normalize(directory + "/" + path)
    }

    /// The index in `files` of the file `#include` names, or nil. `includer` is the name of
    /// the file holding the directive; `system` is true for `<…>`.
    public static func resolve(_ path: String, from includer: String, system: Bool,
                               searchPaths: [String], files: [SourceFile]) -> Int? {
        func find(_ name: String) -> Int? { files.firstIndex { normalize($0.name) == name } }
        if !system, let found = find(join(directory(of: includer), path)) { return found }
        for searchPath in searchPaths {
            if let found = find(join(searchPath, path)) { return found }
        }
        if let exact = files.firstIndex(where: { $0.name == path }) { return exact }
        let last = path.split(separator: "/").last.map(String.init) ?? path
        return files.firstIndex { $0.name.split(separator: "/").last.map(String.init) == last }
    }
}
