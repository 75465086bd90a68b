import Foundation
import KilnTestSupport
import Testing
@testable import KilnLanguage

/// The façade: parse errors stop before checking, includes work, limits hold, it is fast.
@Suite struct FrontendTests {
    @Test func parseErrorsSkipSemanticAnalysis() {
        let files = [SourceFile(name: "a.metal", text: "float f() { float a = 1 return nope; }")]
        let (program, diagnostics) = Frontend.check(files: files, mainFile: 0)
        #expect(program == nil)
        #expect(diagnostics.filter { $0.severity == .error }.count == 1)
        #expect(!diagnostics.contains { $0.message.contains("nope") })
    }

    @Test func includesAndMacrosFromOtherFiles() throws {
        let files = [
            SourceFile(name: "common.h", text: "#define SCALE 2.0\nfloat twice(float x) { return x * SCALE; }\n"),
            SourceFile(name: "main.metal", text: "#include \"common.h\"\n[[stitchable]] float2 d(float2 position) { return position * twice(1); }\n"),
        ]
        let (program, diagnostics) = Frontend.check(files: files, mainFile: 1)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let checked = try #require(program)
        #expect(checked.functions.map(\.name) == ["twice", "d"])
        #expect(checked.entries.first?.kind == .distortion)
    }

    @Test func errorsInIncludedFilesPointIntoThem() {
        let files = [
            SourceFile(name: "bad.h", text: "float g() { return undefinedThing; }\n"),
            SourceFile(name: "main.metal", text: "#include \"bad.h\"\n"),
        ]
        let (_, diagnostics) = Frontend.check(files: files, mainFile: 1)
        #expect(diagnostics.first?.range.start.file == 0)
        #expect(diagnostics.first?.range.start.line == 1)
    }

    @Test func maxErrorsStopsReporting() {
        var limits = LanguageLimits()
        limits.maxErrors = 3
        let body = (0..<10).map { "float a\($0) = nope\($0);" }.joined(separator: "\n")
        let (program, diagnostics) = Frontend.check(files: [SourceFile(name: "a.metal", text: "float f() {\n\(body)\nreturn 0; }")],
                                                    mainFile: 0, limits: limits)
        #expect(program == nil)
        #expect(diagnostics.count == 4)
        #expect(diagnostics.last?.message.contains("too many errors") == true)
    }

    @Test func hostileInputDoesNotCrash() {
        let sources = [
            "float f() { return f; }",
            "float2 f(float2 p) { return p.xyzwxyzw; }",
            "struct S { S s; };",
            "float f() { int a[4]; return a[-1] + a[100000000000]; }",
            "float f() { return 1 / 0 + 1 % 0 + int(-2147483648) / -1; }",
            "constant int N = N; ",
            "void f() { return f(); }",
            "float f(float x = f()) { return x; }",
            "[[stitchable]] half4 e() { return 0; }",
            "enum E { a = 4000000000 };",
            "float f() { switch (1) { case 1: case 1: ; } return 0; }",
            "float f() { float x = {}; float2 y = {}; float z[2] = {{1}, 2}; return 0; }",
            "float f(thread float &r) { r = r; return float2x2(1)[5].x; }",
        ]
        for source in sources {
            _ = Frontend.check(files: [SourceFile(name: "h.metal", text: source)], mainFile: 0)
        }
    }

    @Test func deepNestingIsChecked() {
        // Close to the parser's maxNestingDepth (256), counted per parenthesis and operator.
        let depth = 50
        let expression = String(repeating: "-(", count: depth) + "x" + String(repeating: ")", count: depth)
        let sum = (0..<depth).map { _ in "x" }.joined(separator: " + ")
        let blocks = String(repeating: "if (x > 0) { ", count: depth / 2) + "x += 1;" + String(repeating: " }", count: depth / 2)
        let source = "float f(float x) { float a = \(expression); float b = \(sum); \(blocks) return a + b; }"
        let (program, diagnostics) = Frontend.check(files: [SourceFile(name: "deep.metal", text: source)], mainFile: 0)
        #expect(program != nil, "\(diagnostics.prefix(3))")
    }

    @Test func hostileSizesStayLinear() {
        let clock = ContinuousClock()
        let locals = (0..<300).map { "float v\($0) = \($0);" }.joined(separator: "\n")
        let typos = (0..<5000).map { "x += vv\($0 % 300);" }.joined(separator: "\n")
        let chain = (1..<400).map { "float f\($0)(float x) { return f\($0 - 1)(x) + 1; }" }.joined(separator: "\n")
        let sources = [
            "float f(float x) {\n\(locals)\n\(typos)\nreturn x; }",
            "float f0(float x) { return x; }\n\(chain)",
        ]
        for source in sources {
            let elapsed = clock.measure {
                _ = Frontend.check(files: [SourceFile(name: "big.metal", text: source)], mainFile: 0)
            }
            #expect(elapsed < .seconds(15), "took \(elapsed)")
        }
    }

    @Test func checkingIsFast() throws {
        let files = [SourceFile(name: "edge_glow.metal", text: RepositoryFiles.text("Tests/Conformance/shaders/edge_glow.metal"))]
        let (unit, _) = Parser.parse(files: files, mainFile: 0)
        _ = Checker(files: files, limits: .default).check(unit)   // warm up static tables
        let runs = 200
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<runs { _ = Checker(files: files, limits: .default).check(unit) }
        }
        let perRun = elapsed / runs
        // Debug builds are ~10x slower than release; this only catches accidental blow-ups.
        #expect(perRun < .milliseconds(10), "checking took \(perRun) per run")
    }
}
