import Foundation

/// Finds the package root (the folder with `Package.swift` and `shaders/`), so the
/// benchmarks find `shaders/` and `bench/` wherever `kiln` is started from.
enum ProjectPaths {
    /// The package root: the current folder or one of its parents, else the folder the
    /// executable was built into (`<root>/.build/<config>/kiln`) or one of its parents.
    static func packageRoot() -> String? {
        let fileManager = FileManager.default
        var starts = [fileManager.currentDirectoryPath]
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL
            .resolvingSymlinksInPath().deletingLastPathComponent().path
        starts.append(executable)
        for start in starts {
            var directory = URL(fileURLWithPath: start).standardizedFileURL
            for _ in 0..<8 {
                if fileManager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                   fileManager.fileExists(atPath: directory.appendingPathComponent("shaders").path) {
                    return directory.path
                }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        return nil
    }

    /// `relative` under the package root, or `relative` itself when no root is found.
    static func resolve(_ relative: String) -> String {
        guard let root = packageRoot() else { return relative }
        return URL(fileURLWithPath: root).appendingPathComponent(relative).standardizedFileURL.path
    }

    /// The `.metal` files of a folder, sorted by name; `.h` files are returned separately
    /// as they are include-only.
    static func shaderFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".metal") }.sorted()
            .map { (directory as NSString).appendingPathComponent($0) }
    }
}
