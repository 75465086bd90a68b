import Testing
@testable import KilnLanguage
import KilnTestSupport

/// A token with what the table holds for it.
@dynamicMemberLookup
private struct Preprocessed {
    let token: Token
    let text: String
    let expansion: Token.Expansion?
    subscript<T>(dynamicMember path: KeyPath<Token, T>) -> T { token[keyPath: path] }
}

/// Preprocesses `files` (the first is the main file) and returns the spellings.
private func preprocess(_ files: [(String, String)], limits: LanguageLimits = .default, searchPaths: [String] = [])
    -> (texts: [String], tokens: [Preprocessed], diagnostics: [Diagnostic]) {
    let sources = files.map { SourceFile(name: $0.0, text: $0.1) }
    let (tokens, table, diagnostics) = Preprocessor.preprocess(files: sources, mainFile: 0, limits: limits,
                                                               searchPaths: searchPaths)
    let read = tokens.map { Preprocessed(token: $0, text: table.text(of: $0), expansion: table.expansion(of: $0)) }
    return (read.dropLast().map(\.text), read, diagnostics)
}

private func expand(_ text: String) -> String {
    preprocess([("main.metal", text)]).texts.joined(separator: " ")
}

@Suite struct PreprocessorTests {
    @Test func objectLikeMacros() {
        #expect(expand("#define N 3\nint a = N;") == "int a = 3 ;")
        #expect(expand("#define EMPTY\nEMPTY x EMPTY") == "x")
        #expect(expand("#define A B\n#define B 7\nA") == "7")
        #expect(expand("#define N 3\n#undef N\nN") == "N")
    }

    @Test func functionLikeMacrosWithNestedArgumentsAndPreExpansion() {
        #expect(expand("#define SQ(x) ((x)*(x))\nSQ(a+f(1,2))") == "( ( a + f ( 1 , 2 ) ) * ( a + f ( 1 , 2 ) ) )")
        #expect(expand("#define N 2\n#define TWICE(x) x+x\nTWICE(N)") == "2 + 2")
        #expect(expand("#define F(a, b) b a\nF(, 1)") == "1")
        #expect(expand("#define F(x) x\nF") == "F", "a function-like name without '(' stays")
        #expect(expand("#define F(x) [x]\nF(F(1))") == "[ [ 1 ] ]")
        #expect(expand("#define SNAP(v, s) ((floor((v) / (s)) + 0.5) * (s))\nSNAP(p.x, c)")
                == "( ( floor ( ( p . x ) / ( c ) ) + 0.5 ) * ( c ) )")
    }

    @Test func rescanningAndTheRecursionGuard() {
        #expect(expand("#define A A + 1\nA") == "A + 1")
        #expect(expand("#define F G\n#define G F\nF G") == "F G")
        #expect(expand("#define F G\n#define G(x) x+1\nF(2)") == "2 + 1")
    }

    @Test func stringizingPastingAndVariadics() {
        #expect(expand("#define S(x) #x\nS(a + \"b\")") == "\"a + \\\"b\\\"\"")
        #expect(expand("#define CAT(a, b) a ## b\nCAT(float, 4) CAT(x, 1)") == "float4 x1")
        #expect(expand("#define V(f, ...) f(__VA_ARGS__)\nV(g, 1, 2)") == "g ( 1 , 2 )")
        let pasted = preprocess([("m.metal", "#define CAT(a, b) a ## b\nCAT(1, 2)")]).tokens[0]
        #expect(pasted.kind == .integerLiteral)
    }

    @Test func nestedConditionals() {
        let source = """
        #define A 1
        #if A
          #ifdef B
            no1
          #elif defined(A) && !defined B
            yes1
            #if 0
              no2
            #else
              yes2
            #endif
          #else
            no3
          #endif
        #elif 1
          no4
        #endif
        #ifndef B
          yes3
        #endif
        #if __METAL_VERSION__ >= 200 && __KILN__ == 1 && (3 * 4 % 5 == 2) && -1 < 0 && (1 ? 2 : 0) == 2
          yes4
        #endif
        #if UNDEFINED_NAME || 0x10 != 16
          no5
        #endif
        """
        let result = preprocess([("m.metal", source)])
        #expect(result.diagnostics.isEmpty)
        #expect(result.texts == ["yes1", "yes2", "yes3", "yes4"])
    }

    @Test func conditionalErrors() {
        #expect(preprocess([("m.metal", "#if 1\nx")]).diagnostics.map(\.message) == ["unterminated conditional directive"])
        #expect(preprocess([("m.metal", "#endif")]).diagnostics.map(\.message) == ["#endif without #if"])
        #expect(preprocess([("m.metal", "#else")]).diagnostics.map(\.message) == ["#else without #if"])
        #expect(preprocess([("m.metal", "#if 1\n#else\n#else\n#endif")]).diagnostics.map(\.message) == ["#else after #else"])
        #expect(preprocess([("m.metal", "#if 1 / 0\n#endif")]).diagnostics.first?.message.contains("division by zero") == true)
        #expect(preprocess([("m.metal", "#if (1\n#endif")]).diagnostics.first?.message.contains("expected ')'") == true)
        let error = preprocess([("m.metal", "#error stop here please\n")]).diagnostics
        #expect(error.map(\.message) == ["stop here please"])
        #expect(error.first?.range.start.line == 1)
        #expect(preprocess([("m.metal", "#bogus\n#pragma once\n#pragma clang diagnostic ignored \"x\"\n")]).diagnostics.map(\.message)
                == ["invalid preprocessing directive '#bogus'"])
        #expect(preprocess([("m.metal", "#if 0\n#bogus\n#error no\n#endif\n")]).diagnostics.isEmpty)
    }

    @Test func includesResolveAmongTheRequestFiles() {
        let result = preprocess([
            ("main.metal", "#include <metal_stdlib>\n#include <SwiftUI/SwiftUI_Metal.h>\n#include <simd/simd.h>\n#include \"helpers.h\"\nmain HELPER"),
            ("helpers.h", "#define HELPER 42\nhelper"),
        ])
        #expect(result.diagnostics.isEmpty)
        #expect(result.texts == ["helper", "main", "42"])
        #expect(result.tokens[0].range.start.file == 1)
        #expect(result.tokens[1].range.start.file == 0)
    }

    @Test func missingIncludesAreNamed() {
        let quoted = preprocess([("main.metal", "#include \"nope.h\"\nx")])
        #expect(quoted.diagnostics.map(\.message) == ["'nope.h' file not found"])
        #expect(quoted.diagnostics.first?.range.start.column == 10)
        #expect(quoted.texts == ["x"])
        let system = preprocess([("main.metal", "#include <metal_things>\n")])
        #expect(system.diagnostics.map(\.message) == ["'metal_things' file not found"])
    }

    /// A name already normal is returned as it is, without splitting it: the same string the
    /// component-by-component path makes, for random names of slashes, dots, letters and
    /// combining marks.
    @Test func normalNamesSkipTheComponentWalk() {
        var random = SeededRandom(seed: 42_3)
        let pieces = ["a", "b.h", ".", "..", "...", "/", "/", "é", "\u{301}", ".h"]
        for _ in 0..<50_000 {
            let path = (0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            #expect(IncludePath.normalize(path) == IncludePath.normalizeComponents(path), "\(path.debugDescription)")
        }
        #expect(IncludePath.isNormal("Shaders/common.h") && IncludePath.isNormal("/a/b") && IncludePath.isNormal("..."))
        #expect(!IncludePath.isNormal("a//b") && !IncludePath.isNormal("a/") && !IncludePath.isNormal("./a") && !IncludePath.isNormal("a/.."))
    }

    @Test func includePathsNormalizeLikeAFileSystem() {
        #expect(IncludePath.normalize("a/./b/../c.h") == "a/c.h")
        #expect(IncludePath.normalize("../x/../y.h") == "../y.h")
        #expect(IncludePath.normalize("../../Common/U.h") == "../../Common/U.h")
        #expect(IncludePath.join("Effects/Water", "../../Headers/Types.h") == "Headers/Types.h")
        #expect(IncludePath.join("", "../Headers/Types.h") == "../Headers/Types.h")
        #expect(IncludePath.directory(of: "Effects/ripple.metal") == "Effects")
        #expect(IncludePath.directory(of: "ripple.metal") == "")
    }

    /// Project layouts as shader collections have them: includes relative to the including
    /// file (also from inside a header), `<…>` through search paths, the nearest file first.
    @Test func includesWithPathsResolveRelativeToTheIncludingFile() {
        let result = preprocess([
            ("Effects/Water/ripple.metal", "#include \"../../Headers/Types.h\"\n#include <Common/Uniforms.h>\nripple TYPES UNIFORMS"),
            ("Headers/Types.h", "#include \"Math.h\"\n#define TYPES types"),
            ("Headers/Math.h", "math"),
            ("Math.h", "wrong_math"),
            ("Shared/Common/Uniforms.h", "#define UNIFORMS uniforms"),
        ], searchPaths: ["Shared"])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.message))")
        #expect(result.texts == ["math", "ripple", "types", "uniforms"])
    }

    @Test func includesWithPathsThatResolveNowhereNameThePath() {
        let result = preprocess([
            ("Effects/ripple.metal", "#include \"../Headers/Missing.h\"\n#include <Common/Uniforms.h>\nx"),
            ("Headers/Types.h", ""),
        ])
        #expect(result.diagnostics.map(\.message) == ["'../Headers/Missing.h' file not found", "'Common/Uniforms.h' file not found"])
        #expect(result.texts == ["x"])
    }

    @Test func aCycleThroughPathsEndsAtTheDepthLimit() {
        let result = preprocess([
            ("Effects/a.metal", "#include \"../Headers/b.h\"\nx"),
            ("Headers/b.h", "#include \"c.h\"\n"),
            ("Headers/c.h", "#include \"b.h\"\n"),
        ])
        #expect(result.diagnostics.map(\.message) == ["#include nested too deeply (limit maxIncludeDepth = 32)"])
    }

    @Test func includeDepthLimitIsNamed() {
        let result = preprocess([("main.metal", "#include \"main.metal\"\nx")])
        #expect(result.diagnostics.map(\.message) == ["#include nested too deeply (limit maxIncludeDepth = 32)"])
    }

    @Test func expandedTokensCarryTheMacroUse() {
        let result = preprocess([("m.metal", "#define SQ(x) ((x) * (x))\nfloat y =\n    SQ(a) + 1;")])
        let body = result.tokens.first { $0.text == "*" }!
        #expect(body.expansion?.macro == "SQ")
        #expect(body.range.start.line == 3)
        #expect(body.range.start.column == 5)
        #expect(body.range.end.column == 10, "the use runs from the name through ')'")
        let argument = result.tokens.first { $0.text == "a" }!
        #expect(argument.range.start.column == 8, "argument tokens keep their own place")
        let one = result.tokens.first { $0.text == "1" }!
        #expect(one.expansion == nil)
        let nested = preprocess([("m.metal", "#define A B\n#define B 5\nx = A;")]).tokens.first { $0.text == "5" }!
        #expect(nested.expansion?.macro == "A", "the outermost macro names the use")
        #expect(nested.range.start.column == 5)
    }

    @Test func limitsAreNamed() {
        var limits = LanguageLimits()
        limits.maxMacroExpansionDepth = 4
        let chain = "#define A1 A2\n#define A2 A3\n#define A3 A4\n#define A4 A5\n#define A5 A6\n#define A6 0\nA1"
        #expect(preprocess([("m.metal", chain)], limits: limits).diagnostics.map(\.message)
                == ["macro expansion too deep (limit maxMacroExpansionDepth = 4)"])
        #expect(preprocess([("m.metal", chain)]).diagnostics.isEmpty)

        let doubling = "#define A0 x x\n" + (1...24).map { "#define A\($0) A\($0 - 1) A\($0 - 1)" }.joined(separator: "\n") + "\nA24"
        limits = LanguageLimits()
        limits.maxTokens = 20_000
        let blown = preprocess([("m.metal", doubling)], limits: limits)
        #expect(blown.diagnostics.map(\.message) == ["too many tokens (limit maxTokens = 20000)"])
        #expect(blown.tokens.count <= 20_001)

        limits = LanguageLimits()
        limits.maxSourceBytes = 10
        #expect(preprocess([("m.metal", "float x = 1.0;")], limits: limits).diagnostics.first?.message
                == "source too large: 14 bytes (limit maxSourceBytes = 10)")
    }

    @Test func macroErrors() {
        #expect(preprocess([("m.metal", "#define F(a, b) a\nF(1)")]).diagnostics.first?.message
                == "too few arguments provided to function-like macro invocation")
        #expect(preprocess([("m.metal", "#define F(a) a\nF(1, 2)")]).diagnostics.first?.message
                == "too many arguments provided to function-like macro invocation")
        #expect(preprocess([("m.metal", "#define F(a) a\nF(1")]).diagnostics.first?.message
                == "unterminated function-like macro invocation")
        #expect(preprocess([("m.metal", "#define 3 x")]).diagnostics.first?.message == "macro name must be an identifier")
        #expect(preprocess([("m.metal", "#define A 1\n#define A 2")]).diagnostics.map(\.severity) == [.warning])
    }

    // MARK: - Resource bounds on hostile macros

    @Test func objectLikeMacroBombsFailAtOnce() {
        let bomb = "#define A0 x\n" + (1...60).map { "#define A\($0) A\($0 - 1) A\($0 - 1)" }.joined(separator: "\n") + "\nA60\n"
        let clock = ContinuousClock()
        let start = clock.now
        let blown = preprocess([("m.metal", bomb)])
        #expect(clock.now - start < .seconds(5), "the doubling chain took \(clock.now - start) to hit maxTokens")
        #expect(blown.diagnostics.map(\.message) == ["too many tokens (limit maxTokens = \(LanguageLimits.default.maxTokens))"])
        #expect(blown.tokens.count < 100)
        let inCondition = preprocess([("m.metal", bomb + "#if A60\n#endif\n")])
        #expect(inCondition.diagnostics.map(\.message) == ["too many tokens (limit maxTokens = \(LanguageLimits.default.maxTokens))"])
    }

    @Test func knownExpansionSizesAreExact() {
        // 2^10 tokens: all produced under a limit that also covers the 2,047 expansion
        // steps; one token short of the output, and the limit is reported before expanding.
        let chain = "#define A0 x\n" + (1...10).map { "#define A\($0) A\($0 - 1) A\($0 - 1)" }.joined(separator: "\n") + "\nA10"
        var limits = LanguageLimits()
        limits.maxTokens = 4096
        let fits = preprocess([("m.metal", chain)], limits: limits)
        #expect(fits.diagnostics.isEmpty)
        #expect(fits.texts.count == 1024)
        limits.maxTokens = 1023
        let short = preprocess([("m.metal", chain)], limits: limits)
        #expect(short.diagnostics.map(\.message) == ["too many tokens (limit maxTokens = 1023)"])
        #expect(short.texts.isEmpty)
        // Self-reference, pasting and function-like macros in the body: no estimate, normal expansion.
        #expect(expand("#define A A A\nA") == "A A")
        #expect(expand("#define P x ## y\n#define B P P\nB") == "xy xy")
        #expect(expand("#define F(v) v v\n#define B F(1) F(2)\nB") == "1 1 2 2")
        #expect(expand("#define N 2\n#define B N N\n#undef N\n#define N 3 3\nB") == "3 3 3 3",
                "the size memo is reset by #define and #undef")
    }

    @Test func doublingFunctionLikeMacroStopsAtMaxTokens() {
        let nested = "#define F(x) x x\nfloat y = \(String(repeating: "F(", count: 60))t\(String(repeating: ")", count: 60));"
        var limits = LanguageLimits()
        limits.maxTokens = 10_000
        let small = preprocess([("m.metal", nested)], limits: limits)
        #expect(small.diagnostics.map(\.message) == ["too many tokens (limit maxTokens = 10000)"])
        let clock = ContinuousClock()
        let start = clock.now
        let blown = preprocess([("m.metal", nested)])
        #expect(clock.now - start < .seconds(15), "F(F(…)) took \(clock.now - start) to hit its budget")
        // With the default limits the work budget of expansion (issue 14) ends it first,
        // long before a million output tokens.
        #expect(blown.diagnostics.map(\.message) == ["macro expansion creates too many tokens (limit maxExpansionTokens = \(LanguageLimits.default.maxExpansionTokens))"])
        // Below the limit the same macro still expands completely.
        #expect(expand("#define F(x) x x\nF(F(F(t)))") == "t t t t t t t t")
    }

    @Test func deeplyNestedMacroArgumentsStopAtTheExpansionDepth() {
        let nested = "#define I(x) x\nfloat y = \(String(repeating: "I(", count: 10_000))t\(String(repeating: ")", count: 10_000));"
        let clock = ContinuousClock()
        let start = clock.now
        let deep = preprocess([("m.metal", nested)])
        #expect(clock.now - start < .seconds(5), "I(I(…)) took \(clock.now - start)")
        #expect(deep.diagnostics.map(\.message)
                == ["macro arguments nested too deeply (limit maxMacroExpansionDepth = \(LanguageLimits.default.maxMacroExpansionDepth))"])
        var limits = LanguageLimits()
        limits.maxMacroExpansionDepth = 4
        #expect(preprocess([("m.metal", "#define I(x) x\nI(I(I(I(1))))")], limits: limits).texts == ["1"],
                "four nested invocations fit a depth of 4")
        #expect(preprocess([("m.metal", "#define I(x) x\nI(I(I(I(I(1)))))")], limits: limits).diagnostics.map(\.message)
                == ["macro arguments nested too deeply (limit maxMacroExpansionDepth = 4)"])
    }
}
