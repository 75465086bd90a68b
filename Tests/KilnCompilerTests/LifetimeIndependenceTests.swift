import Foundation
import KilnTestSupport
import Testing

/// Package.swift builds KilnLanguage and KilnCompiler without lexical lifetimes
/// (`compilerOptimized`): an object may die right after its last use rather than at the end
/// of its variable's scope. That is only safe while nothing in those modules can tell when
/// an object dies. This test keeps it so: a `deinit`, a weak or unowned reference, an
/// `Unmanaged` or hand-allocated memory added to either module fails here, and whoever adds
/// it must either do without or give that module its lexical lifetimes back.
@Suite("The compiler's modules cannot observe object lifetimes")
struct LifetimeIndependenceTests {
    /// Words whose presence would make an early release observable.
    static let lifetimeSensitive = ["deinit", "weak ", "unowned", "Unmanaged", "withExtendedLifetime",
                                    ".allocate(capacity", "UnsafeMutableRawPointer.allocate", ".deallocate("]

    /// The one file allowed them: `PassTable` frees its memory in its `deinit`, but nothing
    /// reaches that memory except the table's own subscript, inside one access to the table.
    /// A table freed right after its last access, instead of at the end of its scope, is
    /// therefore indistinguishable from one freed later. It is noncopyable and hands out no
    /// pointer, so it stays that way.
    static let allowed = ["KilnCompiler/PassTable.swift"]

    @Test("Package.swift still builds both modules without lexical lifetimes")
    func settingIsWhereTheTestSaysItIs() {
        let manifest = RepositoryFiles.text("Package.swift")
        #expect(manifest.contains("\"-enable-lexical-lifetimes=false\""))
        for module in ["KilnLanguage", "KilnCompiler"] {
            let target = manifest.split(separator: "\n").first { $0.contains(".target(name: \"\(module)\"") }
            #expect(target?.contains("swiftSettings: compilerOptimized") == true, "\(module)'s target line")
        }
    }

    @Test("No source of KilnLanguage or KilnCompiler depends on when an object is released",
          arguments: ["KilnLanguage", "KilnCompiler"])
    func noLifetimeSensitiveCode(module: String) throws {
        let directory = RepositoryFiles.url("Sources/\(module)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10)
        var found: [String] = []
        for file in files where !Self.allowed.contains("\(module)/\(file)") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//")[0]
                for word in Self.lifetimeSensitive where code.contains(word) {
                    found.append("\(module)/\(file):\(number + 1): \(word)")
                }
            }
        }
        #expect(found.isEmpty, "lifetime-sensitive code in a module built without lexical lifetimes: \(found)")
    }
}
