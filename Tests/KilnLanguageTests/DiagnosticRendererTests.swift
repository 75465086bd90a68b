import Foundation
import KilnTestSupport
import Testing
@testable import KilnLanguage

/// Compares `actual` with `Golden/<name>` (see `Golden`).
private func expectGolden(_ actual: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let mismatch = Golden.mismatch(text: actual, at: FrontEndFixtures.testsDirectory.appendingPathComponent("Golden").appendingPathComponent(name))
    #expect(mismatch == nil, "\(mismatch ?? "")", sourceLocation: sourceLocation)
}

private func location(_ line: Int, _ column: Int, offset: Int = 0) -> KilnLanguage.SourceLocation {
    KilnLanguage.SourceLocation(file: 0, offset: offset, line: line, column: column)
}

@Suite struct DiagnosticRendererTests {
    static let wave = SourceFile(name: "wave.metal", text: """
    #include <metal_stdlib>
    using namespace metal;
    [[ stitchable ]] float2 wave(float2 position, float amplitude) {
        float2 p = position;
    \tfloat é = 1; p.x += é;
        p.y += amplitud * sin(p.x);
        return p;
    }
    """)

    @Test func caretTildesAndFixItFollowClang() {
        let range = SourceRange(start: location(6, 12), end: location(6, 20))
        let diagnostic = Diagnostic.error("use of undeclared identifier 'amplitud'; did you mean 'amplitude'?", at: range,
                                          notes: [.init(message: "'amplitude' declared here", range: SourceRange(start: location(3, 52), end: location(3, 61)))],
                                          fixIt: .init(range: range, replacement: "amplitude"))
        let text = DiagnosticRenderer.text([diagnostic], files: [DiagnosticRendererTests.wave])
        #expect(text == """
        wave.metal:6:12: error: use of undeclared identifier 'amplitud'; did you mean 'amplitude'?
            p.y += amplitud * sin(p.x);
                   ^~~~~~~~
                   amplitude
        wave.metal:3:52: note: 'amplitude' declared here
        [[ stitchable ]] float2 wave(float2 position, float amplitude) {
                                                           ^~~~~~~~~

        """)
    }

    @Test func tabsAndMultibyteCharactersKeepMarkersAligned() {
        // Line 5 is "\tfloat é = 1; p.x += é;": the tab is 8 columns, `é` is 2 bytes but 1 column.
        let second = SourceRange(start: location(5, 23), end: location(5, 25))
        let text = DiagnosticRenderer.text([.warning("here", at: second)], files: [DiagnosticRendererTests.wave])
        #expect(text == """
        wave.metal:5:23: warning: here
                float é = 1; p.x += é;
                                    ^

        """)
        #expect(DiagnosticRenderer.displayColumns(Array("\tab\té".utf8)) == [0, 8, 9, 10, 16, 16, 17])
    }

    @Test func colorAddsAnsiCodesOnly() {
        let diagnostic = Diagnostic.error("bad", at: SourceRange(start: location(4, 5), end: location(4, 11)))
        let plain = DiagnosticRenderer.text([diagnostic], files: [DiagnosticRendererTests.wave])
        let colored = DiagnosticRenderer.text([diagnostic], files: [DiagnosticRendererTests.wave], color: true)
        #expect(colored.contains("\u{1B}[1;31merror:"))
        let stripped = colored.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        #expect(stripped == plain)
        #expect(plain.hasPrefix("wave.metal:4:5: error: bad\n    float2 p = position;\n    ^~~~~~\n"))
    }

    @Test func multiLineRangesAndNotesWithoutLocation() {
        let diagnostic = Diagnostic.error("spans", at: SourceRange(start: location(7, 5), end: location(8, 2)),
                                          notes: [.init(message: "somewhere", range: nil)])
        #expect(DiagnosticRenderer.text([diagnostic], files: [DiagnosticRendererTests.wave]) == """
        wave.metal:7:5: error: spans
            return p;
            ^~~~~~~~~
        note: somewhere

        """)
    }

    @Test func jsonEscapesAndCarriesEveryField() throws {
        let range = SourceRange(start: location(6, 12), end: location(6, 20))
        let diagnostics = [
            Diagnostic.error("quote \" backslash \\ newline \n tab \t bell \u{07} é", at: range,
                             notes: [.init(message: "n", range: SourceRange(start: location(3, 52), end: location(3, 61))),
                                     .init(message: "free", range: nil)],
                             fixIt: .init(range: range, replacement: "amplitude")),
            Diagnostic.warning("w", at: SourceRange(start: location(7, 5), end: location(8, 1))),
        ]
        let json = DiagnosticRenderer.json(diagnostics, files: [DiagnosticRendererTests.wave])
        #expect(json.contains("\"message\":\"quote \\\" backslash \\\\ newline \\n tab \\t bell \\u0007 é\""))
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        let first = try #require(parsed?.first)
        #expect(first["severity"] as? String == "error")
        #expect(first["file"] as? String == "wave.metal")
        #expect(first["line"] as? Int == 6)
        #expect(first["column"] as? Int == 12)
        #expect(first["endColumn"] as? Int == 20)
        #expect(first["message"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} é")
        let notes = try #require(first["notes"] as? [[String: Any]])
        #expect(notes.count == 2)
        #expect(notes[0]["line"] as? Int == 3)
        #expect(notes[1]["file"] is NSNull)
        let fixit = try #require(first["fixit"] as? [String: Any])
        #expect(fixit["replacement"] as? String == "amplitude")
        #expect(fixit["endColumn"] as? Int == 20)
        let second = try #require(parsed?.last)
        #expect(second["fixit"] == nil)
        #expect(second["endColumn"] as? Int == 14, "a range running past its line ends at the line's end")
        #expect(DiagnosticRenderer.json([], files: []) == "[]")
    }

    // MARK: - Golden files: real front-end output, rendered

    static func render(_ files: [SourceFile]) -> (text: String, json: String) {
        let diagnostics = Parser.parse(files: files, mainFile: 0).diagnostics
        return (DiagnosticRenderer.text(diagnostics, files: files), DiagnosticRenderer.json(diagnostics, files: files))
    }

    @Test func goldenMissingSemicolon() {
        let rendered = DiagnosticRendererTests.render([FrontEndFixtures.load("Tests/Conformance/errors/missing_semicolon.metal")])
        expectGolden(rendered.text, "missing_semicolon.txt")
        expectGolden(rendered.json, "missing_semicolon.json")
    }

    @Test func goldenUnsupportedTemplate() {
        expectGolden(DiagnosticRendererTests.render([FrontEndFixtures.load("Tests/Conformance/errors/unsupported_template.metal")]).text,
                     "unsupported_template.txt")
    }

    @Test func goldenRecovery() {
        let file = SourceFile(name: "recovery.metal", text: """
        #include <metal_stdlib>
        using namespace metal;

        struct Params { float gain float bias; };

        [[ stitchable ]] half4 tint(float2 position, half4 color, float amount) {
            float k = amount * (1.0 + ;
            for (int i = 0; i < 3 i++) { k *= 0.5; }
            return half4(color.rgb * k, color.a)
        }
        """)
        let rendered = DiagnosticRendererTests.render([file])
        expectGolden(rendered.text, "recovery.txt")
        expectGolden(rendered.json, "recovery.json")
    }

    @Test func goldenMacroAndInclude() {
        let files = [
            SourceFile(name: "effect.metal", text: """
            #include <metal_stdlib>
            #include "helpers.h"
            #include <missing_header>
            #define SCALE(v) ((v) * 2.0 +)
            float f(float x) { return SCALE(x); }
            """),
            SourceFile(name: "helpers.h", text: "#if __METAL_VERSION__ >= 300\nfloat g(float x) { return x }\n#endif\n"),
        ]
        expectGolden(DiagnosticRendererTests.render(files).text, "macro_and_include.txt")
    }
}
