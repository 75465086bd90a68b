import KilnTestSupport
import Foundation

/// Generators of hostile compiler input: token soups, random bytes, mutated real shaders
/// and hand-picked pathological sources (deep nesting, huge literals, macro bombs…).
/// Every generator is a pure function of its seed.
enum HostileInputs {
    /// Spellings of the language's tokens: keywords, type names, builtins, attributes,
    /// literals of every form, punctuators and preprocessor directives.
    static let tokens: [String] = [
        "float", "float2", "float3", "float4", "half", "half4", "int", "int2", "uint", "uint2", "bool", "bool2",
        "short", "ushort", "float2x2", "float3x3", "half3x3", "void", "auto", "struct", "enum", "class", "return",
        "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "constant",
        "device", "thread", "threadgroup", "const", "constexpr", "static", "inline", "using", "namespace",
        "metal", "SwiftUI", "Layer", "typedef", "true", "false", "stitchable", "vertex", "fragment", "kernel",
        "sampler", "texture2d", "access", "sample", "read", "template", "typename", "discard_fragment",
        "position", "color", "layer", "stage_in", "buffer", "texture", "user", "flat", "vertex_id",
        "sin", "cos", "mix", "smoothstep", "length", "dot", "clamp", "fract", "pow", "normalize", "atan2",
        "min", "max", "select", "modf", "M_PI_F", "MAXFLOAT", "INFINITY", "NAN", "x", "y", "p", "f", "a", "b",
        "main", "xyzw", "rgba", "xxxx",
        "0", "1", "2", "42", "1.5", "1.", ".5", "1e3", "1.5f", "2h", "3u", "0x1F", "0x1.8p1", "07", "09",
        "1e", "0x", "1.5q", "\"str\"", "'c'", "\"", "'",
        "+", "-", "*", "/", "%", "=", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "!", "&", "|", "^", "~",
        "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--", "?", ":", "::",
        ";", ",", ".", "->", "(", ")", "{", "}", "[", "]", "[[", "]]", "#", "##", "...", "@", "$", "\\",
        "\n#define X ", "\n#define F(a, b) a ## b ", "\n#undef X\n", "\n#if 1\n", "\n#if X\n", "\n#ifdef X\n",
        "\n#else\n", "\n#elif 0\n", "\n#endif\n", "\n#include \"missing.h\"\n", "\n#include <metal_stdlib>\n",
        "\n#pragma once\n", "\n", "//", "/*", "*/", "/// @arg x 0...1 = 0.5 \"h\"\n",
    ]

    /// Punctuators, longest first, for splitting a real shader into tokens.
    private static let punctuators = ["<<=", ">>=", "...", "->", "::", "&&", "||", "==", "!=", "<=", ">=", "<<",
                                      ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "##"]

    /// `count` random tokens separated by random whitespace.
    static func tokenSoup(_ random: inout SeededRandom, count: Int) -> String {
        var text = ""
        for _ in 0..<count {
            text += random.pick(tokens)
            text += random.pick([" ", " ", " ", "", "\n", "\t"])
        }
        return text
    }

    /// A token soup inside a plausible entry point, so it reaches the checker and compiler.
    static func framedSoup(_ random: inout SeededRandom, count: Int) -> String {
        let body = tokenSoup(&random, count: count)
        return random.pick([
            "[[ stitchable ]] half4 f(float2 position, half4 color) {\n\(body)\n}\n",
            "#include <metal_stdlib>\nusing namespace metal;\n[[ stitchable ]] float2 f(float2 position) {\n float x = \(body);\n return position;\n}\n",
            "struct S { \(body) };\n",
            "\(body)\n[[ stitchable ]] half4 f(float2 position) { return half4(1); }\n",
        ])
    }

    /// Random bytes, decoded as UTF-8 with replacement (invalid sequences and NULs included).
    static func randomBytes(_ random: inout SeededRandom, count: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            switch random.below(10) {
            case 0: bytes.append(0)
            case 1, 2: bytes.append(UInt8(truncatingIfNeeded: random.next()))   // anything, incl. invalid UTF-8
            case 3: bytes.append(random.pick(Array("{}()[];,.#\"'/*\\\n".utf8)))
            default: bytes.append(UInt8(32 + random.below(95)))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Splits source text into tokens (identifiers, numbers, punctuators, single
    /// characters) and the whitespace between them.
    static func split(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var pieces: [String] = []
        var i = 0
        func isWord(_ s: Unicode.Scalar) -> Bool { s == "_" || s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "." }
        while i < scalars.count {
            let start = i
            if isWord(scalars[i]) {
                while i < scalars.count, isWord(scalars[i]) { i += 1 }
            } else if scalars[i] == " " || scalars[i] == "\n" || scalars[i] == "\t" {
                while i < scalars.count, scalars[i] == " " || scalars[i] == "\n" || scalars[i] == "\t" { i += 1 }
            } else {
                i += 1
                for p in punctuators where p.unicodeScalars.count > 1 {
                    let ps = Array(p.unicodeScalars)
                    if start + ps.count <= scalars.count, Array(scalars[start..<(start + ps.count)]) == ps {
                        i = start + ps.count
                        break
                    }
                }
            }
            var piece = String.UnicodeScalarView()
            piece.append(contentsOf: scalars[start..<i])
            pieces.append(String(piece))
        }
        return pieces
    }

    /// A real shader with 1–4 random token- or line-level edits: deletions, insertions,
    /// duplications and swaps.
    static func mutate(_ source: String, _ random: inout SeededRandom) -> String {
        if random.chance(35) {
            var lines = source.components(separatedBy: "\n")
            for _ in 0..<(1 + random.below(3)) where !lines.isEmpty {
                let i = random.below(lines.count)
                switch random.below(4) {
                case 0: lines.remove(at: i)
                case 1: lines.insert(lines[i], at: random.below(lines.count))
                case 2: lines.swapAt(i, random.below(lines.count))
                default: lines[i] = String(lines[i].prefix(random.below(lines[i].count + 1)))
                }
            }
            return lines.joined(separator: "\n")
        }
        var pieces = split(source)
        for _ in 0..<(1 + random.below(4)) where !pieces.isEmpty {
            let i = random.below(pieces.count)
            switch random.below(5) {
            case 0: pieces.remove(at: i)
            case 1: pieces.insert(random.pick(tokens), at: i)
            case 2:
                let length = 1 + random.below(min(20, pieces.count - i))
                pieces.insert(contentsOf: pieces[i..<(i + length)], at: random.below(pieces.count))
            case 3: pieces.swapAt(i, random.below(pieces.count))
            default: pieces[i] = random.pick(tokens)
            }
        }
        return pieces.joined()
    }

    /// An entry point whose body is `body`.
    static func entry(_ body: String) -> String {
        "#include <metal_stdlib>\nusing namespace metal;\n[[ stitchable ]] half4 f(float2 position, float t) {\n\(body)\n}\n"
    }

    /// Pathological cases that currently crash the process or hang, by name, with the bug.
    /// They are skipped unless `KILN_HOSTILE_CRASHERS=1`, because a crash ends the whole
    /// test binary (and a hang stalls it). Remove an entry when its bug is fixed.
    static let knownCrashers: [String: String] = [:]

    /// Hand-picked pathological sources: (name, files). The first file is the main one.
    static func pathological() -> [(name: String, files: [(String, String)])] {
        let n = 10_000
        var cases: [(String, [(String, String)])] = []
        func one(_ name: String, _ text: String) { cases.append((name, [("hostile.metal", text)])) }
        one("10k parens", entry("float x = \(String(repeating: "(", count: n))1\(String(repeating: ")", count: n));\nreturn half4(x);"))
        one("10k braces", entry("\(String(repeating: "{", count: n))\(String(repeating: "}", count: n))\nreturn half4(1);"))
        one("10k ifs", entry("float x = 0;\n\(String(repeating: "if (t > 0) ", count: n))x = 1;\nreturn half4(x);"))
        one("10k whiles", entry("\(String(repeating: "while (t > 0) ", count: n))break;\nreturn half4(1);"))
        one("10k unary minus", entry("float x = \(String(repeating: "- ", count: n))1.0;\nreturn half4(x);"))
        one("10k logical not", entry("bool x = \(String(repeating: "!", count: n))true;\nreturn half4(x ? 1 : 0);"))
        one("10k nested calls", entry("float x = \(String(repeating: "sin(", count: n))t\(String(repeating: ")", count: n));\nreturn half4(x);"))
        one("10k nested ternaries", entry("float x = \(String(repeating: "t > 0 ? 1.0 : ", count: n))0.0;\nreturn half4(x);"))
        one("10k nested index", entry("float a[4] = {1, 2, 3, 4};\nfloat x = \(String(repeating: "a[int(", count: n))0\(String(repeating: ")]", count: n));\nreturn half4(x);"))
        one("10k nested casts", entry("float x = \(String(repeating: "float(", count: n))t\(String(repeating: ")", count: n));\nreturn half4(x);"))
        one("10k nested #if", "\(String(repeating: "#if 1\n", count: n))\(String(repeating: "#endif\n", count: n))")
        one("10k unclosed #if", String(repeating: "#if 1\n", count: n))
        one("10k nested parens in #if", "#if \(String(repeating: "(", count: n))1\(String(repeating: ")", count: n))\n#endif\n")
        one("100k-term sum", entry("float x = t\(String(repeating: " + t", count: 100_000));\nreturn half4(x);"))
        one("50k-term assignment chain", entry("float x, y;\nx = \(String(repeating: "y = ", count: 50_000))t;\nreturn half4(x);"))
        one("5k statements", entry("float x = t;\n\(String(repeating: "x = x * 1.0001 + 0.5;\n", count: 5_000))return half4(x);"))
        // Each loop has invariants to move out of it: moving them once took time in the
        // body's length per loop (10 s in a release build for 3 000).
        one("1k loops with invariants", entry("int k = int(t) % 3;\nfloat x = position.y * 0.01, s = 0.0;\n"
            + String(repeating: "for (int i = 0; i < k; i++) { s += x * 2.0 + sqrt(x); }\n", count: 1_000) + "return half4(s);"))
        one("5k live locals", entry((0..<5000).map { "float v\($0) = t * \($0).5;" }.joined(separator: "\n")
            + "\nreturn half4(\((0..<5000).map { "v\($0)" }.joined(separator: " + ")));"))
        one("huge array", entry("float a[100000000];\na[int(t)] = 1;\nreturn half4(a[0]);"))
        one("int-max array", entry("float a[2147483647];\nreturn half4(a[int(t)]);"))
        one("negative array", entry("float a[-1];\nreturn half4(1);"))
        one("1e999999", entry("float x = 1e999999;\nreturn half4(x);"))
        one("1e-999999", entry("float x = 1e-999999;\nreturn half4(x);"))
        one("400-digit int", entry("int x = \(String(repeating: "9", count: 400));\nreturn half4(float(x));"))
        one("400-digit hex", entry("int x = 0x\(String(repeating: "F", count: 400));\nreturn half4(float(x));"))
        one("huge hex float", entry("float x = 0x1.fffffep+999999;\nreturn half4(x);"))
        one("400-digit float", entry("float x = \(String(repeating: "1", count: 400)).5;\nreturn half4(x);"))
        one("malformed numbers", entry("float x = 1.2.3.4 + 0x + 1e + 1e+ + .e5 + 0b101 + 08 + 1.5ff;\nreturn half4(x);"))
        one("100k-char identifier", entry("float \(String(repeating: "a", count: 100_000)) = t;\nreturn half4(1);"))
        one("100k-char undeclared identifier", entry("return half4(\(String(repeating: "z", count: 100_000)));"))
        one("1 MB comment", "/*\(String(repeating: "x", count: 1 << 20))*/")
        one("unterminated comment", "/* never closed\n[[ stitchable ]] half4 f(float2 position) { return half4(1); }")
        one("unterminated string", entry("float x = \"abc;\nreturn half4(1);"))
        one("lone directives", "#\n#define\n#if\n#endif\n#endif\n#else\n#elif\n#include\n#include <nope.h>\n#undef\n#error boom\n#line 5\n")
        one("empty", "")
        one("only NULs", String(repeating: "\u{0}", count: 1000))
        one("only BOM and spaces", "\u{FEFF}   \n\t\r\n")
        one("CR line endings", "[[ stitchable ]] half4 f(float2 position) {\r return half4(1)\r}\r")
        one("many errors", entry(String(repeating: "float x = ;\n", count: n) + "return half4(1);"))
        one("many top-level errors", String(repeating: "@ float ) ;\n", count: n))
        one("10k parameters", "[[ stitchable ]] half4 f(float2 position, \((0..<n).map { "float a\($0)" }.joined(separator: ", "))) { return half4(a0); }")
        one("10k struct fields", "struct S { \((0..<n).map { "float f\($0);" }.joined(separator: " ")) };\n" + entry("S s;\nreturn half4(s.f0);"))
        one("10k entries", (0..<2000).map { "[[ stitchable ]] half4 f\($0)(float2 position) { return half4(\($0)); }" }.joined(separator: "\n"))
        one("long swizzles", entry("float4 v = float4(t);\nfloat x = v.xxxxxxxxxxxxxxxx.x + v.rgbaxyzw.x + v.q;\nreturn half4(x);"))
        one("recursion", "float g(float x);\nfloat h(float x) { return g(x); }\nfloat g(float x) { return h(x); }\n" + entry("return half4(g(t));"))
        one("runaway loop", entry("float x = 0;\nfor (;;) { x += 1; }\nreturn half4(x);"))
        // Macro bombs: each level doubles; expanding A60 fully would be 2^60 tokens.
        one("doubling macro chain", "#define A0 x\n" + (1...60).map { "#define A\($0) A\($0 - 1) A\($0 - 1)" }.joined(separator: "\n") + "\nA60\n")
        one("doubling function-like macro", "#define F(x) x x\n" + entry("float y = \(String(repeating: "F(", count: 60))t\(String(repeating: ")", count: 60));\nreturn half4(1);"))
        one("self-referential macros", "#define A A B\n#define B A\n#define F(x) F(x) x\nA F(1) B\n")
        one("100-deep macro chain", (0..<100).map { "#define M\($0) M\($0 + 1)" }.joined(separator: "\n") + "\n#define M100 1\n" + entry("float x = M0;\nreturn half4(x);"))
        one("10k-deep function-like macro nesting", "#define I(x) x\n" + entry("float x = \(String(repeating: "I(", count: n))t\(String(repeating: ")", count: n));\nreturn half4(x);"))
        one("macro with 10k arguments", "#define F(...) 1\n" + entry("float x = F(\(String(repeating: "a,", count: n))b);\nreturn half4(x);"))
        one("unterminated macro call", "#define F(x) x\n" + entry("float x = F(1, (2;\nreturn half4(x);"))
        cases.append(("self include", [("hostile.metal", "#include \"hostile.metal\"\nint x;\n")]))
        cases.append(("include cycle", [("hostile.metal", "#include \"a.h\"\n"), ("a.h", "#include \"b.h\"\nint a;\n"),
                                        ("b.h", "#include \"a.h\"\nint b;\n")]))
        cases.append(("include fan-out", [("hostile.metal", String(repeating: "#include \"w.h\"\n", count: 64)),
                                          ("w.h", String(repeating: "#include \"v.h\"\n", count: 64)),
                                          ("v.h", "float q;\n")]))
        // Inlining bomb: each helper calls the previous one twice.
        var bomb = "float h0(float x) { return x * 1.5 + 1.0; }\n"
        for i in 1...40 { bomb += "float h\(i)(float x) { return h\(i - 1)(x) + h\(i - 1)(x + 1.0); }\n" }
        one("inlining bomb", bomb + entry("return half4(h40(t));"))
        one("200 nested loops", entry("float x = t;\n" + String(repeating: "for (int i = 0; i < 2; i++) {\n", count: 200)
                                      + "x += 1.0;\n" + String(repeating: "}\n", count: 200) + "return half4(x);"))
        return cases
    }
}
