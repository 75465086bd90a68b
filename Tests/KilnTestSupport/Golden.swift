import Foundation

/// Golden files: checked-in expected outputs (disassembly, diagnostics, images) that a
/// test compares with what it produced. They are regenerated only on purpose, by running
/// the tests with `KILN_UPDATE_GOLDEN=1` and reading the diff before committing.
public enum Golden {
    /// True when this run rewrites golden files instead of comparing with them.
    public static var isUpdating: Bool { ProcessInfo.processInfo.environment["KILN_UPDATE_GOLDEN"] == "1" }

    /// Compares `actual` with the golden text file at `url`. Returns nil when they agree
    /// (or after rewriting the file in an updating run), else what went wrong, naming the file.
    public static func mismatch(text actual: String, at url: URL) -> String? {
        mismatch(bytes: Data(actual.utf8), at: url) { expected in
            let text = String(decoding: expected, as: UTF8.self)
            guard text != actual else { return nil }
            let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let expectedLines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let first = (0..<min(actualLines.count, expectedLines.count)).first { actualLines[$0] != expectedLines[$0] }
                ?? min(actualLines.count, expectedLines.count)
            let seen = first < actualLines.count ? String(actualLines[first]) : "<end>"
            let wanted = first < expectedLines.count ? String(expectedLines[first]) : "<end>"
            return "first difference at line \(first + 1): got \"\(seen)\", golden has \"\(wanted)\""
        }
    }

    /// Compares `actual` with the golden file at `url` through `differs`, which returns nil
    /// when the stored bytes are acceptable (images compare within a tolerance, not byte for
    /// byte). Returns nil on agreement, else a message naming the file and how to regenerate it.
    public static func mismatch(bytes actual: Data, at url: URL, differs: (Data) -> String?) -> String? {
        let name = url.path.replacingOccurrences(of: RepositoryFiles.root.path + "/", with: "")
        if isUpdating {
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try actual.write(to: url)
                return nil
            } catch {
                return "could not rewrite golden file \(name): \(error)"
            }
        }
        guard let expected = FileManager.default.contents(atPath: url.path) else {
            return "missing golden file \(name) (create it with KILN_UPDATE_GOLDEN=1)"
        }
        guard let difference = differs(expected) else { return nil }
        return "\(name) differs: \(difference) (KILN_UPDATE_GOLDEN=1 regenerates it)"
    }
}
