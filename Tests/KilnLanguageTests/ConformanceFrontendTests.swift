import Foundation
import KilnTestSupport
import Testing
@testable import KilnLanguage

/// Every conformance and benchmark shader checks cleanly with the expected entry kind;
/// every negative case fails with an error on the stated line whose message says what it must.
@Suite struct ConformanceFrontendTests {
    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var function: String
        var kind: String
        var description: String { file }
    }

    struct ErrorCase: Sendable, CustomStringConvertible {
        var file: String
        var line: Int
        var column: Int?
        var messageContains: [String]
        var description: String { file }
    }

    static func json(_ name: String) -> [String: Any] {
        let url = RepositoryFiles.conformance.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }

    static let cases: [Case] = (json("cases.json")["cases"] as? [[String: Any]] ?? []).map {
        Case(file: "Tests/Conformance/" + ($0["file"] as? String ?? ""), function: $0["function"] as? String ?? "", kind: $0["kind"] as? String ?? "")
    }

    static let errorCases: [ErrorCase] = (json("errors.json")["errors"] as? [[String: Any]] ?? []).map {
        ErrorCase(file: "Tests/Conformance/" + ($0["file"] as? String ?? ""), line: $0["line"] as? Int ?? 0, column: $0["column"] as? Int,
                  messageContains: $0["message_contains"] as? [String] ?? [])
    }

    static let benchFiles: [String] = RepositoryFiles.metalFiles(in: "bench")

    static func load(_ relative: String) -> [SourceFile] {
        [SourceFile(name: RepositoryFiles.url(relative).lastPathComponent, text: RepositoryFiles.text(relative))]
    }

    static func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { "\($0.range.start.line):\($0.range.start.column): \($0.severity.rawValue): \($0.message)" }.joined(separator: "\n")
    }

    @Test func manifestsLoaded() {
        #expect(Self.cases.count == 24)
        #expect(Self.errorCases.count == 8)
        #expect(Self.benchFiles.count >= 5)
    }

    @Test(arguments: cases)
    func conformanceShaderChecks(_ testCase: Case) throws {
        let files = Self.load(testCase.file)
        let (program, diagnostics) = Frontend.check(files: files, mainFile: 0)
        // Clean: no errors and no warnings either.
        #expect(diagnostics.isEmpty, "\(Self.render(diagnostics))")
        let checked = try #require(program)
        let entry = checked.entries.first { checked.functions[$0.function].name == testCase.function }
        #expect(entry?.kind.rawValue == testCase.kind)
    }

    @Test(arguments: benchFiles)
    func benchShaderChecks(_ file: String) {
        let (program, diagnostics) = Frontend.check(files: Self.load(file), mainFile: 0)
        #expect(program != nil, "\(Self.render(diagnostics))")
        #expect(diagnostics.isEmpty, "\(Self.render(diagnostics))")
        #expect(program?.entries.count == 1)
    }

    @Test(arguments: errorCases)
    func errorShaderIsRejected(_ testCase: ErrorCase) {
        let (program, diagnostics) = Frontend.check(files: Self.load(testCase.file), mainFile: 0)
        #expect(program == nil)
        let matching = diagnostics.filter { diagnostic in
            diagnostic.severity == .error && diagnostic.range.start.line == testCase.line
                && (testCase.column == nil || diagnostic.range.start.column == testCase.column)
                && testCase.messageContains.allSatisfy { diagnostic.message.lowercased().contains($0.lowercased()) }
        }
        #expect(!matching.isEmpty, "\(Self.render(diagnostics))")
    }
}
