import Testing
import KilnBytecode
import KilnCompiler
import KilnLanguage

/// Every limit of `LanguageLimits` and `LibraryLimits`, when hit, must stop the compile
/// (or the read) with an error that names the limit — one case per limit.
@Suite struct LimitDiagnosticsTests {
    static func entry(_ body: String, arguments: String = "") -> String {
        "#include <metal_stdlib>\nusing namespace metal;\n[[ stitchable ]] half4 f(float2 position\(arguments)) {\n\(body)\n}\n"
    }

    /// A shader with enough distinct values and work to exceed small library limits.
    static let busy = entry("""
        float s = 0.0;
        float4 acc = float4(position, 0.125, 0.375);
        for (int i = 0; i < int(position.x); i++) {
            acc = acc * 1.5 + float4(0.1, 0.2, 0.3, 0.4);
            s += sin(acc.x) * 7.25 + cos(acc.y) * 3.125 + acc.z * 11.5 + acc.w * 13.75;
        }
        float a1 = position.x * 17.0, a2 = position.y * 19.0, a3 = a1 * a2 + 23.0, a4 = a3 / (a1 + 29.0);
        return half4(s + a1, a2 + a3, a4 + acc.x, acc.y + acc.z + acc.w);
        """)

    static func errors(_ sources: [(String, String)], _ options: CompileOptions) -> (library: Bool, errors: [String]) {
        let result = Compiler.compile(sources.map { SourceFile(name: $0.0, text: $0.1) }, options: options)
        return (result.library != nil, result.diagnostics.filter { $0.severity == .error }.map(\.message))
    }

    static func expectError(naming limit: String, _ sources: [(String, String)], _ options: CompileOptions = CompileOptions(),
                            sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let outcome = errors(sources, options)
        #expect(!outcome.library, "\(limit): a library was produced", sourceLocation: sourceLocation)
        #expect(outcome.errors.contains { $0.contains(limit) },
                "no error names \(limit); errors: \(outcome.errors.prefix(5))", sourceLocation: sourceLocation)
    }

    /// A header graph where each header includes the next one twice (2³⁰ includes without
    /// a limit) stops at `maxIncludes`, quickly.
    @Test func maxIncludes() {
        let levels = 30
        var files = [("main.metal", "#include \"h0.h\"\n" + Self.entry("return half4(1);"))]
        for level in 0..<levels {
            files.append(("h\(level).h", level + 1 < levels ? "#include \"h\(level + 1).h\"\n#include \"h\(level + 1).h\"\n" : "// leaf\n"))
        }
        let clock = ContinuousClock()
        let elapsed = clock.measure { Self.expectError(naming: "maxIncludes", files) }
        #expect(elapsed < .seconds(10), "took \(elapsed)")
        // A header included many times behind an include guard is fine.
        var guarded = [("main.metal", "#include \"g.h\"\n#include \"g.h\"\n#include \"g.h\"\n" + Self.entry("return half4(G);"))]
        guarded.append(("g.h", "#ifndef G_H\n#define G_H\n#define G 1.0\n#endif\n"))
        #expect(Self.errors(guarded, CompileOptions()).errors.isEmpty)
    }

    /// `struct S<i> { S<i-1> a; S<i-1> b; }` for 63 levels is 2⁶³ floats: measuring it is
    /// constant time per struct (sizes saturate) and the register limit refuses it at once.
    @Test func exponentiallyNestedStructsAreRefusedAtOnce() {
        var source = "struct S0 { float x; };\n"
        for level in 1...63 { source += "struct S\(level) { S\(level - 1) a; S\(level - 1) b; };\n" }
        source += Self.entry("S63 s; s.a.b.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.x = 1.0; return half4(1);")
        let clock = ContinuousClock()
        let elapsed = clock.measure { Self.expectError(naming: "LibraryLimits.maxRegisters", [("nest.metal", source)]) }
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }

    /// `#define F<i>(x) F<i-1>(x)+F<i-1>(x)` for 60 levels (issue 14: 2.5–4 s a compile at
    /// the token limit) stops at `maxExpansionTokens`, well before `maxTokens`.
    @Test func functionLikeMacroBombsStopAtTheExpansionBudget() {
        var source = "#define F0(x) x\n"
        for level in 1...60 { source += "#define F\(level)(x) F\(level - 1)(x)+F\(level - 1)(x)\n" }
        source += Self.entry("float v = F60(position.x); return half4(v);")
        let clock = ContinuousClock()
        let elapsed = clock.measure { Self.expectError(naming: "maxExpansionTokens", [("bomb.metal", source)]) }
        // A hang guard, not a speed test (without the budget this never ends). Hide sets
        // grow 60 macros deep here; while their membership tests and unions were linear
        // searches a debug build took 6 s alone and up to 36 s beside the other suites on 2
        // shared cores (release `kiln compile` 0.45 s); with `HideSet` and memoized unions
        // 0.5 s (release 0.06 s).
        #expect(elapsed < .seconds(20), "took \(elapsed)")
    }

    @Test func maxSourceBytes() {
        var options = CompileOptions()
        options.languageLimits.maxSourceBytes = 64
        Self.expectError(naming: "maxSourceBytes", [("big.metal", Self.entry("return half4(1);"))], options)
        // And at the default limit, with a real megabyte.
        Self.expectError(naming: "maxSourceBytes", [("big.metal", "// " + String(repeating: "x", count: (1 << 20) + 10))])
    }

    @Test func maxTokens() {
        var options = CompileOptions()
        options.languageLimits.maxTokens = 20
        Self.expectError(naming: "maxTokens", [("t.metal", Self.entry("float x = 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8;\nreturn half4(x);"))], options)
        // A macro bomb (2^40 tokens if expanded) must stop at the default limit, quickly.
        let bomb = "#define A0 x\n" + (1...40).map { "#define A\($0) A\($0 - 1) A\($0 - 1)" }.joined(separator: "\n") + "\nA40\n"
        let clock = ContinuousClock()
        let start = clock.now
        Self.expectError(naming: "maxTokens", [("bomb.metal", bomb)])
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(15), "the macro bomb took \(elapsed) to hit maxTokens")
    }

    @Test func maxNestingDepth() {
        let deep = Self.entry("float x = \(String(repeating: "(", count: 10_000))1\(String(repeating: ")", count: 10_000));\nreturn half4(x);")
        Self.expectError(naming: "maxNestingDepth", [("deep.metal", deep)])
        let blocks = Self.entry("\(String(repeating: "{", count: 10_000))\(String(repeating: "}", count: 10_000))\nreturn half4(1);")
        Self.expectError(naming: "maxNestingDepth", [("deep.metal", blocks)])
    }

    @Test func maxIncludeDepth() {
        Self.expectError(naming: "maxIncludeDepth", [("main.metal", "#include \"a.h\"\n" + Self.entry("return half4(1);")),
                                                      ("a.h", "#include \"a.h\"\nfloat q;\n")])
    }

    @Test func maxMacroExpansionDepth() {
        var options = CompileOptions()
        options.languageLimits.maxMacroExpansionDepth = 4
        let nested = "#define I(x) x\n" + Self.entry("float x = I(I(I(I(I(I(I(I(1))))))));\nreturn half4(x);")
        let chain = (0..<10).map { "#define M\($0) M\($0 + 1)" }.joined(separator: "\n") + "\n#define M10 1\n"
            + Self.entry("float x = M0;\nreturn half4(x);")
        let outcomes = [Self.errors([("m.metal", nested)], options), Self.errors([("m.metal", chain)], options)]
        #expect(outcomes.contains { !$0.library && $0.errors.contains { $0.contains("maxMacroExpansionDepth") } },
                "neither nested macro arguments nor a 10-deep chain hit maxMacroExpansionDepth = 4: \(outcomes)")
    }

    @Test func maxErrors() {
        var options = CompileOptions()
        options.languageLimits.maxErrors = 5
        let many = Self.entry(String(repeating: "float x = ;\n", count: 40) + "return half4(1);")
        let outcome = Self.errors([("e.metal", many)], options)
        #expect(!outcome.library)
        #expect(outcome.errors.count <= 6, "maxErrors = 5 but \(outcome.errors.count) errors were reported")
        #expect(outcome.errors.contains { $0.contains("maxErrors") }, "no error names maxErrors: \(outcome.errors)")
    }

    @Test func maxRegisters() {
        var options = CompileOptions()
        options.libraryLimits.maxRegisters = 8
        Self.expectError(naming: "maxRegisters", [("r.metal", Self.busy)], options)
    }

    @Test func maxInstructions() {
        var options = CompileOptions()
        options.libraryLimits.maxInstructions = 10
        Self.expectError(naming: "maxInstructions", [("i.metal", Self.busy)], options)
    }

    @Test func maxConstants() {
        var options = CompileOptions()
        options.libraryLimits.maxConstants = 2
        Self.expectError(naming: "maxConstants", [("c.metal", Self.busy)], options)
    }

    @Test func maxFunctions() {
        var options = CompileOptions()
        options.libraryLimits.maxFunctions = 1
        let two = Self.entry("return half4(1);") + "[[ stitchable ]] half4 g(float2 position) { return half4(0); }\n"
        Self.expectError(naming: "maxFunctions", [("f.metal", two)], options)
    }

    @Test func maxUniformWords() {
        var options = CompileOptions()
        options.libraryLimits.maxUniformWords = 2
        Self.expectError(naming: "maxUniformWords",
                         // A `half4` second parameter would be a color effect's per-pixel input;
                         // a float4 argument takes four uniform words.
                         [("u.metal", Self.entry("return half4(c * t);", arguments: ", float4 c, float t"))], options)
    }

    @Test func maxBuffers() {
        var options = CompileOptions()
        options.libraryLimits.maxBuffers = 0
        Self.expectError(naming: "maxBuffers",
                         [("b.metal", Self.entry("return half4(count > 0 ? values[0] : 0.0);",
                                                 arguments: ", device const float *values, int count"))], options)
    }

    @Test func maxTextures() {
        var options = CompileOptions()
        options.libraryLimits.maxTextures = 0
        let layer = "#include <metal_stdlib>\n#include <SwiftUI/SwiftUI_Metal.h>\nusing namespace metal;\n"
            + "[[ stitchable ]] half4 f(float2 position, SwiftUI::Layer layer) { return layer.sample(position); }\n"
        Self.expectError(naming: "maxTextures", [("t.metal", layer)], options)
    }

    @Test func maxLibraryBytes() throws {
        let result = Compiler.compile([SourceFile(name: "l.metal", text: Self.entry("return half4(1);"))])
        let library = try #require(result.library, "a trivial shader must compile: \(result.diagnostics.map(\.message))")
        let bytes = LibraryWriter.encode(library)
        var limits = LibraryLimits()
        limits.maxLibraryBytes = bytes.count - 1
        do {
            _ = try LibraryReader.decode(bytes, limits: limits)
            Issue.record("a library of \(bytes.count) bytes was accepted with maxLibraryBytes = \(bytes.count - 1)")
        } catch {
            #expect(error.message.contains("maxLibraryBytes"), "error does not name maxLibraryBytes: \(error.message)")
        }
    }
}
