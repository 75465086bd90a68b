import Foundation
import KilnTestSupport
import Testing
@testable import KilnLanguage

/// Files and helpers shared by the front-end tests.
enum FrontEndFixtures {
    /// This test target's folder (its `Golden/` files live here).
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// A file of the repository (path relative to the package root) as a source file.
    static func load(_ relativePath: String) -> SourceFile {
        SourceFile(name: RepositoryFiles.url(relativePath).lastPathComponent, text: RepositoryFiles.text(relativePath))
    }

    static func parse(_ text: String, name: String = "test.metal", limits: LanguageLimits = .default)
        -> (unit: TranslationUnit, diagnostics: [Diagnostic]) {
        Parser.parse(files: [SourceFile(name: name, text: text)], mainFile: 0, limits: limits)
    }

    /// The S-expression of a function body's statements (`float f() { … }` wrapped around `body`).
    static func body(_ body: String, prefix: String = "") -> String {
        let (unit, diagnostics) = parse(prefix + "void f() {\n" + body + "\n}")
        guard diagnostics.isEmpty else { return "errors: " + diagnostics.map(\.message).joined(separator: "; ") }
        guard case .function(let f)? = unit.declarations.last, let block = f.body else { return "no function" }
        return block.statements.map { Parser.dump($0) }.joined(separator: " ")
    }

    static func expression(_ text: String) -> String {
        body("x = \(text);").replacingOccurrences(of: "(= x ", with: "").dropLast(2).description
    }
}

@Suite struct ParserTests {
    static let realShaders = RepositoryFiles.realShaders

    @Test func theRealShadersAreFound() {
        #expect(ParserTests.realShaders.count >= 29)
    }

    @Test(arguments: realShaders)
    func realShadersParseWithoutDiagnostics(path: String) {
        let file = FrontEndFixtures.load(path)
        let (unit, diagnostics) = Parser.parse(files: [file], mainFile: 0)
        #expect(diagnostics.isEmpty, "\(DiagnosticRenderer.text(diagnostics, files: [file]))")
        let functions = unit.declarations.filter { if case .function = $0 { return true } else { return false } }
        #expect(!functions.isEmpty)
    }

    @Test func missingSemicolonIsReportedAtTheEndOfThePreviousToken() {
        let file = FrontEndFixtures.load("Tests/Conformance/errors/missing_semicolon.metal")
        let (unit, diagnostics) = Parser.parse(files: [file], mainFile: 0)
        #expect(diagnostics.count == 1)
        let error = diagnostics[0]
        #expect(error.message == "expected ';' after declaration")
        #expect(error.range.start.line == 5)
        #expect(error.range.start.column == 32)
        #expect(error.fixIt?.replacement == ";")
        #expect(error.fixIt?.range.start.column == 32)
        // Parsing went on as if the ';' were there: the return statement is in the body.
        guard case .function(let f)? = unit.declarations.last else { Issue.record("no function"); return }
        #expect(f.body?.statements.count == 2)
    }

    @Test func templatesAreNotSupportedAndSkipped() {
        let file = FrontEndFixtures.load("Tests/Conformance/errors/unsupported_template.metal")
        let (unit, diagnostics) = Parser.parse(files: [file], mainFile: 0)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.range.start.line == 4)
        #expect(diagnostics.first?.message.contains("not supported") == true)
        #expect(diagnostics.first?.message.contains("template") == true)
        #expect(unit.declarations.count == 2, "using + contrast; the template is skipped whole")
    }

    @Test func otherConformanceErrorsParseCleanly() {
        for name in ["undeclared_identifier", "implicit_float4_to_half4", "recursion", "layer_not_second",
                     "no_matching_function", "duplicate_swizzle_write"] {
            let file = FrontEndFixtures.load("Tests/Conformance/errors/\(name).metal")
            #expect(Parser.parse(files: [file], mainFile: 0).diagnostics.isEmpty, "\(name)")
        }
    }

    @Test(arguments: [
        ("a + b * c - d", "(- (+ a (* b c)) d)"),
        ("a = b = c", "(= a (= b c))"),
        ("a += b -= c", "(+= a (-= b c))"),
        ("a ? b : c ? d : e", "(? a b (? c d e))"),
        ("a || b && c | d ^ e & f == g < h << i + j * k",
         "(|| a (&& b (| c (^ d (& e (== f (< g (<< h (+ i (* j k))))))))))"),
        ("a < b == c > d", "(== (< a b) (> c d))"),
        ("(a, b)", "(, a b)"),
        ("-a++ * !b", "(* (- (post++ a)) (! b))"),
        ("++a.x[2]--", "(++ (post-- (index (. a x) 2)))"),
        ("~x >> 2u", "(>> (~ x) 2u)"),
        ("p->q.rgb", "(. (-> p q) rgb)"),
        ("(float)i / 2", "(/ (cast float i) 2)"),
        ("(float2)(i)", "(cast float2 i)"),
        ("(float2(1, 2)).x", "(. (call float2 1 2) x)"),
        ("static_cast<int>(f) % 3", "(% (cast int f) 3)"),
        ("metal::sin(x) + metal::M_PI_F", "(+ (call metal::sin x) metal::M_PI_F)"),
        ("layer.sample(p + float2(0, 1))", "(call (. layer sample) (+ p (call float2 0 1)))"),
        ("array<float, 3>(1, 2, 3)[i]", "(index (construct array<float, 3> 1 2 3) i)"),
        ("Mode::fast == m", "(== Mode::fast m)"),
        ("true && false", "(&& true false)"),
        ("c ? a = 1 : b", "(? c (= a 1) b)"),
        ("1.5h + .5f + 1e-3 + 0x1F", "(+ (+ (+ 1.5h 0.5f) 0.001) 31)"),
        // Multiplicative operators are left-associative too (a regression: `a / b * c`
        // once parsed as `a / (b * c)` and broke three conformance pictures).
        ("a / b * c % d", "(% (* (/ a b) c) d)"),
        ("x * 2 * M_PI_F / w", "(/ (* (* x 2) M_PI_F) w)"),
    ])
    func expressionsFollowOnePrecedenceTable(source: String, expected: String) {
        #expect(FrontEndFixtures.expression(source) == expected)
    }

    @Test func statements() {
        #expect(FrontEndFixtures.body("float a = 1, b[2] = {0, 1}, c;")
                == "(var float a = 1, b[2] = {0, 1}, c)")
        #expect(FrontEndFixtures.body("const float2 p(1, 2); int n[] = {1, 2, 3}; half4 z = {};")
                == "(var const float2 p = (1, 2)) (var int n[] = {1, 2, 3}) (var half4 z = {})")
        #expect(FrontEndFixtures.body("for (int i = 0; i < 4; ++i) { s += i; }")
                == "(for (var int i = 0); (< i 4); (++ i) { (+= s i); })")
        #expect(FrontEndFixtures.body("for (;;) break;") == "(for _; _; _ break;)")
        #expect(FrontEndFixtures.body("do { x--; } while (x > 0);") == "(do { (post-- x); } while (> x 0))")
        #expect(FrontEndFixtures.body("while (true) continue;") == "(while true continue;)")
        #expect(FrontEndFixtures.body("if (a) return; else if (b) x = 1; else { }")
                == "(if a (return) else (if b (= x 1); else { }))")
        #expect(FrontEndFixtures.body("switch (m) { case 0: case 1: x = 1; break; case A::b: { y = 2; } default: ; }")
                == "(switch m (case 0 case 1: (= x 1); break;) (case A::b: { (= y 2); }) (default: ;))")
        #expect(FrontEndFixtures.body("thread float &r = x; auto q = 1;") == "(var thread float& r = x) (var auto q = 1)")
        #expect(FrontEndFixtures.body("Foo f; f.x = 1;") == "(var Foo f) (= (. f x) 1);")
        #expect(FrontEndFixtures.body("float2x2 m = float2x2(c, -s, s, c); m[0] = 1;")
                == "(var float2x2 m = (call float2x2 c (- s) s c)) (= (index m 0) 1);")
        #expect(FrontEndFixtures.body("array<array<float, 2>, 3> a; texture2d<half> t;")
                == "(var array<array<float, 2>, 3> a) (var texture2d<half> t)")
        #expect(FrontEndFixtures.body("discard_fragment(); return {1, 2};")
                == "(call discard_fragment); (return {1, 2})")
        #expect(FrontEndFixtures.body("unsigned int u = 1u; vec2f v; scalar_t s;", prefix: "using vec2f = float2;\ntypedef float scalar_t;\n")
                == "(var uint u = 1u) (var vec2f v) (var scalar_t s)")
    }

    @Test func programScopeDeclarations() {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        using vec2f = metal::float2;
        typedef float scalar_t;
        struct VertexOut {
            float4 position [[position]];
            float2 uv [[user(uv)]], extra;
            float weights[4];
        };
        enum class Mode : int { fast = 1, slow, };
        enum Plain { A, B };
        constant float kDelay[3] = {0.5, 0.25, 0.75};
        constant float3 K = float3(1, 2, 3);
        constexpr sampler s(filter::linear, address::repeat);
        static inline float helper(float x, float y = 2.0);
        METAL_FUNC float helper2(device const float *p, constant float &t, thread float &o) { return p[0] * t; }
        __attribute__((always_inline)) float helper3(void) { return 1; }
        /// An entry.
        /// @arg amount 0...1 = 0.5
        [[ stitchable ]] half4 fx(float2 position, SwiftUI::Layer layer, float amount) { return layer.sample(position); }
        vertex VertexOut vs(uint vid [[vertex_id]], const device float2 *v [[buffer(0)]]) { VertexOut o; return o; }
        fragment float4 fs(VertexOut in [[stage_in]], texture2d<float, access::read> t [[texture(1)]],
                           sampler smp [[sampler(0)]], constant Mode &m [[buffer(0)]]) { return float4(0); }
        kernel void k(uint2 gid [[thread_position_in_grid]]) {}
        """
        let (unit, diagnostics) = FrontEndFixtures.parse(source)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
        let lines = Parser.dump(unit).split(separator: "\n").map(String.init)
        let expected = [
            "(using namespace metal)",
            "(alias vec2f metal::float2)",
            "(alias scalar_t float)",
            "(struct VertexOut (field float4 position [[position]]) (field float2 uv [[user(uv)]]) (field float2 extra) (field float weights [4]))",
            "(enum class Mode : int (fast 1) slow)",
            "(enum Plain A B)",
            "(var constant float kDelay[3] = {0.5, 0.25, 0.75})",
            "(var constant float3 K = (call float3 1 2 3))",
            "(var constexpr sampler s = (filter::linear, address::repeat))",
            "(function float helper ((param float x) (param float y = 2.0)) prototype)",
            "(function float helper2 ((param const device float* p) (param constant float& t) (param thread float& o)) { (return (* (index p 0) t)) })",
            "(function float helper3 () { (return 1) })",
            "(function [[stitchable]] half4 fx ((param float2 position) (param SwiftUI::Layer layer) (param float amount)) { (return (call (. layer sample) position)) })",
            "(function vertex VertexOut vs ((param uint vid [[vertex_id]]) (param const device float2* v [[buffer(0)]])) { (var VertexOut o) (return o) })",
            "(function fragment float4 fs ((param VertexOut in [[stage_in]]) (param texture2d<float, access::read> t [[texture(1)]]) (param sampler smp [[sampler(0)]]) (param constant Mode& m [[buffer(0)]])) { (return (call float4 0)) })",
            "(function kernel void k ((param uint2 gid [[thread_position_in_grid]])) { })",
        ]
        #expect(lines == expected)
        let entry = unit.declarations.compactMap { d -> FunctionDeclaration? in
            if case .function(let f) = d, f.name == "fx" { return f } else { return nil }
        }.first
        #expect(entry?.documentation == ["An entry.", "@arg amount 0...1 = 0.5"])
        #expect(entry?.nameRange.start.line == 20)
        #expect(entry?.range.start.line == 20)
        #expect(entry?.range.start.column == 1)
    }

    @Test func threeIndependentErrorsReportThreeTimesAndNothingElse() {
        let source = """
        float a(float x) {
            float y = x + / 2;
            return y;
        }
        struct S { float f float g; };
        float b() {
            int k = 1
            k = (k + 2);
            return k;
        }
        """
        let (unit, diagnostics) = FrontEndFixtures.parse(source)
        #expect(diagnostics.map { "\($0.range.start.line):\($0.range.start.column): \($0.message)" } == [
            "2:19: expected expression",
            "5:19: expected ';' after field declaration",
            "7:14: expected ';' after declaration",
        ])
        #expect(unit.declarations.count == 3)
    }

    @Test func recoveryReportsEachMistakeOnce() {
        let source = """
        float a(float x) {
            float y = x + / 2;
            return y;
        }
        float b(float x) {
            if (x > 1 { return 0; }
            return x;
        }
        float c() = 3;
        float d(float x) { return x; }
        """
        let (unit, diagnostics) = FrontEndFixtures.parse(source)
        #expect(diagnostics.map { "\($0.range.start.line):\($0.range.start.column): \($0.message)" } == [
            "2:19: expected expression",
            "6:15: expected ')'",
            "9:10: expected ';' after function declaration",
        ])
        let names = unit.declarations.compactMap { d -> String? in if case .function(let f) = d { return f.name } else { return nil } }
        #expect(names == ["a", "b", "d"])
    }

    @Test func tooManyErrorsStops() {
        var limits = LanguageLimits()
        limits.maxErrors = 5
        let source = String(repeating: "float f() { x = ; }\n", count: 20)
        let (_, diagnostics) = FrontEndFixtures.parse(source, limits: limits)
        #expect(diagnostics.count == 6)
        #expect(diagnostics.last?.message == "too many errors emitted, stopping now (limit maxErrors = 5)")
    }

    @Test func nestingDepthIsLimitedByName() {
        let deep = "float f() { return " + String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000) + "; }\nfloat g() { return 1 }"
        let (unit, diagnostics) = FrontEndFixtures.parse(deep)
        #expect(diagnostics.map(\.message) == ["nesting too deep (limit maxNestingDepth = 256)", "expected ';' after return statement"])
        #expect(unit.declarations.count == 2)
        let blocks = "void f() " + String(repeating: "{", count: 5_000) + String(repeating: "}", count: 5_000)
        #expect(FrontEndFixtures.parse(blocks).diagnostics.first?.message == "nesting too deep (limit maxNestingDepth = 256)")
        let unary = "void f() { x = " + String(repeating: "-", count: 5_000) + "1; }"
        #expect(FrontEndFixtures.parse(unary).diagnostics.map(\.message) == ["nesting too deep (limit maxNestingDepth = 256)"])
        let fine = "float f() { return " + String(repeating: "(", count: 60) + "1" + String(repeating: ")", count: 60) + "; }"
        #expect(FrontEndFixtures.parse(fine).diagnostics.isEmpty)
    }

    @Test func macroUsesGiveAstRangesAndNotes() {
        let source = "#define RADIUS 3\n#define BAD (1 +)\nint r = RADIUS;\nint b = BAD;\n"
        let (unit, diagnostics) = FrontEndFixtures.parse(source)
        guard case .variable(let v)? = unit.declarations.first, case .expression(let e)? = v.declarators.first?.initializer else {
            Issue.record("no variable"); return
        }
        #expect(e.range.start.line == 3)
        #expect(e.range.start.column == 9)
        #expect(e.range.end.column == 15)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message == "expected expression")
        #expect(diagnostics.first?.range.start.line == 4)
        #expect(diagnostics.first?.notes.map(\.message) == ["expanded from macro 'BAD'"])
    }

    @Test func unsupportedConstructsSayNotSupported() {
        for source in ["extern float x;", "namespace n { }", "template<int N> float f() { return N; }",
                       "float f() { goto a; }", "union U { int a; };"] {
            let diagnostics = FrontEndFixtures.parse(source).diagnostics
            #expect(diagnostics.count == 1 && diagnostics[0].message.hasPrefix("not supported"), "\(source): \(diagnostics.map(\.message))")
        }
    }

    @Test func parsingIsFast() {
        let file = FrontEndFixtures.load("Tests/Conformance/shaders/doom_melt.metal")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<50 { _ = Parser.parse(files: [file], mainFile: 0) }
        }
        // Debug builds are much slower than release; this only catches pathologies.
        #expect(elapsed < .seconds(10))
    }

    /// The parser's hash-free lookups answer as the tables they stand for: every operator
    /// spelling and every punctuator the lexer makes (`infixOperator(spelledBy:)` against
    /// `infixOperators`), and address-space words and type names (`AddressSpace.named`
    /// against `init(rawValue:)`).
    @Test func hashFreeLookupsAgreeWithTheirTables() {
        let punctuators = ["(", ")", "[", "]", "{", "}", ";", ",", ":", "::", ".", "...", "->", "?", "~", "!", "#", "##",
                           "++", "--", "<<=", ">>=", "=", "==", "!=", "<", "<=", ">", ">=", "<<", ">>", "&", "&&", "&=",
                           "|", "||", "|=", "^", "^=", "+", "+=", "-", "-=", "*", "*=", "/", "/=", "%", "%=", "", "<<<"]
        for spelling in Set(punctuators + Array(Parser.infixOperators.keys)) {
            let fast = Parser.infixOperator(spelledBy: spelling), table = Parser.infixOperators[spelling]
            #expect((fast == nil) == (table == nil), "\(spelling)")
            #expect(fast?.0 == table?.0, "\(spelling)")
            #expect(fast.map { "\($0.1)" } == table.map { "\($0.1)" }, "\(spelling)")
        }
        for word in ["device", "constant", "thread", "threadgroup", "float2", "half4", "texture2d", "const", "char",
                     "deviceX", "d", "", "Thread", "threadgroup_imageblock", "uint", "sampler"] {
            #expect(AddressSpace.named(word) == AddressSpace(rawValue: word), "\(word)")
        }
    }

    /// The lexer's word table holds exactly the reserved words and builtin type names,
    /// spelled out here independently of the generator that fills it.
    @Test func wordTableHoldsTheReservedWordsAndBuiltinTypeNames() {
        var types: Set<String> = ["void", "auto", "size_t", "ptrdiff_t", "double", "sampler", "texture1d", "texture2d",
                                  "texture3d", "texturecube", "texture2d_array", "texture1d_array", "texturecube_array",
                                  "texture2d_ms", "depth2d", "depth2d_array", "depthcube", "depth2d_ms", "array", "vec",
                                  "matrix", "packed_vec", "atomic", "atomic_int", "atomic_uint", "atomic_bool",
                                  "atomic_float", "Layer"]
        for scalar in ["bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float",
                       "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"] {
            types.formUnion([scalar, "vector_\(scalar)", "simd_\(scalar)"])
            for n in 2...4 { types.formUnion(["\(scalar)\(n)", "vector_\(scalar)\(n)", "simd_\(scalar)\(n)", "packed_\(scalar)\(n)"]) }
        }
        for scalar in ["float", "half", "double"] {
            for c in 2...4 { for r in 2...4 { types.formUnion(["\(scalar)\(c)x\(r)", "simd_\(scalar)\(c)x\(r)", "matrix_\(scalar)\(c)x\(r)"]) } }
        }
        let reserved: Set<String> = ["if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
                                     "return", "struct", "class", "enum", "union", "using", "namespace", "typedef", "template",
                                     "typename", "const", "constexpr", "static", "inline", "extern", "volatile", "constant",
                                     "device", "thread", "threadgroup", "true", "false", "static_cast", "reinterpret_cast",
                                     "const_cast", "dynamic_cast", "sizeof", "operator", "goto", "public", "private",
                                     "protected", "virtual", "this", "new", "delete", "void", "unsigned", "signed", "alignof"]
        let entries = WordTable.shared.entries
        #expect(entries.count == types.union(reserved).count)
        for (word, flags) in entries {
            #expect((flags & Token.reservedFlag != 0) == reserved.contains(word), "\(word)")
            #expect((flags & Token.builtinTypeFlag != 0) == types.contains(word), "\(word)")
        }
        for word in types.union(reserved) {
            let flags = Token.wordFlags(of: Array(word.utf8)[...])
            #expect(flags == (reserved.contains(word) ? Token.reservedFlag : 0) | (types.contains(word) ? Token.builtinTypeFlag : 0), "\(word)")
            #expect(WordTable.isBuiltinTypeName(word) == types.contains(word), "\(word)")
        }
        for word in ["float5", "floatx", "simd_", "float4x", "float4x5", "Float4", "packed_float", "x", "ifx", "_"] {
            #expect(Token.wordFlags(of: Array(word.utf8)[...]) == 0, "\(word)")
            #expect(!WordTable.isBuiltinTypeName(word), "\(word)")
        }
    }
}

/// Hostile input ends in diagnostics, never a crash or hang.
@Suite struct ParserRobustnessTests {
    static let pieces = ["float", "half4", "(", ")", "{", "}", "[", "]", "[[", "]]", ";", ",", "=", "+", "*", "?", ":",
                         "x", "y", "1", "2.5", "0x", "1e", "struct", "enum", "if", "else", "for", "while", "do", "switch",
                         "case", "default", "return", "#define", "#if", "#endif", "#include", "\"a.h\"", "<", ">", "::",
                         "->", ".", "template", "using", "typedef", "constant", "constexpr", "\n", "//", "/*", "*/", "'",
                         "\"", "\\", "@", "stitchable", "texture2d", "array", "static_cast", "++", "--", "&", "->"]

    /// Debug builds run several times slower than release, and CI machines stall threads
    /// under load; the bound catches blow-ups (seconds to minutes), not speed.
    #if DEBUG
    static let bound: Duration = .milliseconds(5_000)
    #else
    static let bound: Duration = .milliseconds(100)
    #endif

    func parseQuickly(_ text: String) {
        let clock = ContinuousClock()
        var diagnostics: [Diagnostic] = []
        let elapsed = clock.measure {
            diagnostics = FrontEndFixtures.parse(text).diagnostics
            _ = DiagnosticRenderer.text(diagnostics, files: [SourceFile(name: "test.metal", text: text)])
        }
        #expect(elapsed < ParserRobustnessTests.bound, "slow input: \(text.prefix(200))")
    }

    @Test func randomTokenSoups() {
        var random = SeededRandom(state: 1)
        for _ in 0..<1_500 {
            let count = Int.random(in: 1...60, using: &random)
            let text = (0..<count).map { _ in ParserRobustnessTests.pieces.randomElement(using: &random)! }.joined(separator: " ")
            parseQuickly(text)
        }
    }

    @Test func randomBytes() {
        var random = SeededRandom(state: 2)
        for _ in 0..<1_000 {
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            parseQuickly(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func randomDeletionsFromRealShaders() {
        var random = SeededRandom(state: 3)
        let shaders = ParserTests.realShaders.map { FrontEndFixtures.load($0).text }
        #expect(!shaders.isEmpty)
        for _ in 0..<1_000 {
            var bytes = Array(shaders.randomElement(using: &random)!.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let length = min(Int.random(in: 1...12, using: &random), bytes.count - start)
                bytes.removeSubrange(start..<(start + length))
            }
            parseQuickly(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func deepNestingOfEveryKind() {
        parseQuickly("float f() { return " + String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000) + "; }")
        parseQuickly("float f() { " + String(repeating: "if (x) ", count: 10_000) + "return 1; }")
        parseQuickly("float a = " + String(repeating: "{", count: 10_000) + String(repeating: "}", count: 10_000) + ";")
        parseQuickly("float f() { x = " + String(repeating: "a[", count: 10_000) + "0" + String(repeating: "]", count: 10_000) + "; }")
        parseQuickly("float f() { x = " + String(repeating: "a ? ", count: 10_000) + "b; }")
        parseQuickly("#if " + String(repeating: "(", count: 10_000) + "1\n#endif")
        parseQuickly(String(repeating: "[[", count: 10_000))
        parseQuickly("array<" + String(repeating: "array<", count: 5_000) + "float")
    }
}
