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
