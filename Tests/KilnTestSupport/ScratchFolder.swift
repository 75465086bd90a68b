import Foundation

/// Folders and files tests write, all inside one folder per test process that is removed
/// when the process exits. Tests used to make a folder of their own in the system's
/// temporary folder and leave it there: a few days of `make test` left thousands
/// (`kiln-cli-tests-…`, `kiln-store-…`), and `rename` in so large a folder became slow
/// enough to show in `kiln compile -o /tmp/…` timings.
public enum ScratchFolder {
    /// A new, empty folder named `prefix` plus a unique suffix.
    public static func make(_ prefix: String) throws -> URL {
        let url = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A path inside the process's folder, not created: for a test whose subject creates it
    /// (a share store opening its folder) or that reopens the same place later.
    public static func path(_ name: String) -> URL {
        root.appendingPathComponent(name)
    }

    private static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("kiln-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // At exit, not per test: tests in a suite run in parallel and some reopen a place
        // another test of theirs wrote.
        atexit { ScratchFolder.removeRoot() }
        return url
    }()

    private static func removeRoot() {
        try? FileManager.default.removeItem(at: root)
    }
}
