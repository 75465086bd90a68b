import Foundation

/// Files of this repository that tests read: the example shaders, the conformance set
/// (`Tests/Conformance/`, copied in from the team's reference material) and the benchmark
/// shaders (`bench/`). Everything a test needs lives inside the repository, so a fresh
/// clone with nothing beside it runs every test.
public enum RepositoryFiles {
    /// The package root (the folder holding `Package.swift`).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The conformance set: `cases.json`, `errors.json`, `shaders/`, `errors/`, `refs/`, `content/`.
    public static let conformance = root.appendingPathComponent("Tests/Conformance")
    /// The benchmark shaders of `kiln bench`.
    public static let bench = root.appendingPathComponent("bench")
    /// The example shaders the page and `make examples` show.
    public static let shaders = root.appendingPathComponent("shaders")

    /// `path` (relative to the package root) as a URL.
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// The text of `path` (relative to the package root); a missing file is a test setup
    /// error, so it stops the test run with the path rather than yielding an empty shader.
    public static func text(_ path: String) -> String {
        do { return try String(contentsOf: url(path), encoding: .utf8) }
        catch { fatalError("test fixture \(path) is missing from the repository: \(error)") }
    }

    /// The `.metal` files of `folder` (relative to the package root), sorted, as paths
    /// relative to the package root (`Tests/Conformance/shaders/bands.metal`, …).
    public static func metalFiles(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url(folder).path)) ?? []
        return names.filter { $0.hasSuffix(".metal") }.sorted().map { "\(folder)/\($0)" }
    }

    /// Every conformance shader and benchmark shader: the "real shaders" many suites run over.
    public static var realShaders: [String] {
        metalFiles(in: "Tests/Conformance/shaders") + metalFiles(in: "bench")
    }
}
