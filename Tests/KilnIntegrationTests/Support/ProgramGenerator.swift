import KilnTestSupport
/// Generates random, well-typed, always-terminating Kiln shaders for differential testing.
///
/// Every program is a `[[stitchable]] half4 f(float2 position, [half4 color,] float a,
/// float b, float kf)` (with `int k = int(kf)`) whose body mutates a fixed set of locals (float/int/uint/bool scalars,
/// float2/float4 vectors) with random statements: arithmetic with integer edge cases,
/// casts, builtins, divergent `if`s on the pixel position, loops with pixel-dependent trip
/// counts plus `break`/`continue`/early `return`, `switch` with fallthrough, and calls of
/// helpers with reference parameters. Termination is by construction: every loop has its
/// own counter that only grows and a bound below 8.
///
/// The result packs the state exactly: two float locals verbatim, and a wrapping 32-bit hash
/// of all integers, booleans and `int(f * 1024)` of all floats, split into two exact halves.
/// Programs with `approximate == true` also call transcendental builtins, but only into the
/// accumulator `t0`, which nothing else reads and which is returned in `result.x`; so the
/// rest of the state stays bit-exact and only `result.x` needs an ulp tolerance.
struct ProgramGenerator {
    struct Program {
        var source: String
        var isColorEffect: Bool
        var approximate: Bool
        var seed: UInt64
    }

    private var random: SeededRandom
    private let approximate: Bool
    private let isColorEffect: Bool
    private var loopCounters: [String] = []
    private var nextCounter = 0
    private var insideSwitch = 0
    private var budget = 0

    static let floats = ["f0", "f1", "f2"]
    static let ints = ["i0", "i1", "i2"]
    static let uints = ["u0", "u1"]
    static let bools = ["b0", "b1"]

    static func generate(seed: UInt64) -> Program {
        var random = SeededRandom(seed: seed)
        let approximate = random.chance(30)
        let color = random.chance(25)
        var generator = ProgramGenerator(random: random, approximate: approximate, isColorEffect: color)
        return Program(source: generator.program(), isColorEffect: color, approximate: approximate, seed: seed)
    }

    private init(random: SeededRandom, approximate: Bool, isColorEffect: Bool) {
        self.random = random
        self.approximate = approximate
        self.isColorEffect = isColorEffect
    }

    // MARK: - Program skeleton

    private mutating func program() -> String {
        budget = 40
        let outX = approximate ? "t0" : random.pick(Self.floats + ["v0.x", "w0.w"])
        let outY = random.pick(Self.floats + ["v1.y", "w0.x", "v0.y"])
        let finish = "finish(\(outX), \(outY), f0, f1, f2, i0, i1, i2, u0, u1, b0, b1, v0, v1, w0)"
        var body = ""
        let count = 5 + random.below(8)
        for _ in 0..<count { body += statement(depth: 0, indent: "    ", finish: finish) }
        let colorParameter = isColorEffect ? "half4 color, " : ""
        return """
        #include <metal_stdlib>
        using namespace metal;

        static float helperA(float x, thread int &count) {
            count += 1;
            if (x > 0.5) { return x * 0.5; }
            for (int j = 0; j < 3; j++) {
                if (x < -float(j)) { return x + float(j); }
                x = x * 2.0 + 1.0;
            }
            return -x;
        }

        static int helperB(int x, int y) {
            switch (x & 3) {
                case 0: return y;
                case 1: y += x;
                case 2: return y ^ x;
                default: break;
            }
            return x - y;
        }

        static bool helperC(float2 p, thread float2 &acc) {
            acc += p * 0.5;
            return p.x > p.y;
        }

        static half4 finish(float ox, float oy, float f0, float f1, float f2, int i0, int i1, int i2,
                            uint u0, uint u1, bool b0, bool b1, float2 v0, float2 v1, float4 w0) {
            int h = i0;
            h = h * 31 + i1;
            h = h * 31 + i2;
            h = h * 31 + int(u0 ^ (u1 << 7));
            h = h * 31 + (b0 ? 1 : 0) + (b1 ? 2 : 0);
            h = h * 31 + int(f0 * 1024.0);
            h = h * 31 + int(f1 * 1024.0);
            h = h * 31 + int(f2 * 1024.0);
            h = h * 31 + int(v0.x * 1024.0);
            h = h * 31 + int(v0.y * 1024.0);
            h = h * 31 + int(v1.x * 1024.0);
            h = h * 31 + int(v1.y * 1024.0);
            h = h * 31 + int(w0.x * 1024.0);
            h = h * 31 + int(w0.y * 1024.0);
            h = h * 31 + int(w0.z * 1024.0);
            h = h * 31 + int(w0.w * 1024.0);
            return half4(ox, oy, float(h & 0xFFFF), float((h >> 16) & 0xFFFF));
        }

        [[ stitchable ]] half4 f(float2 position, \(colorParameter)float a, float b, float kf) {
            int k = int(kf);   // SwiftUI has no int arguments
            float f0 = position.x, f1 = position.y * 0.5, f2 = a;
            int i0 = int(position.x), i1 = int(position.y), i2 = k;
            uint u0 = uint(i0) * 2654435761u, u1 = 7u;
            bool b0 = position.x > position.y, b1 = false;
            float2 v0 = position, v1 = float2(a, b);
            float4 w0 = float4(position, a, b);
            float t0 = 0.0;
        \(body)    return \(finish);
        }

        """
    }

    // MARK: - Statements

    private mutating func block(depth: Int, indent: String, finish: String) -> String {
        var text = ""
        for _ in 0..<(1 + random.below(3)) { text += statement(depth: depth + 1, indent: indent + "    ", finish: finish) }
        return text
    }

    private mutating func statement(depth: Int, indent: String, finish: String) -> String {
        budget -= 1
        let nested = depth < 3 && budget > 0
        let inLoop = !loopCounters.isEmpty
        var choices = ["assign", "assign", "assign", "compound", "vector", "increment", "call"]
        if nested { choices += ["if", "if", "for", "while", "do", "switch", "block"] }
        if inLoop { choices += ["break", "continue"] }
        if depth > 0 { choices += ["return"] }
        if approximate { choices += ["transcendental", "transcendental"] }
        switch random.pick(choices) {
        case "assign":
            switch random.below(4) {
            case 0: return "\(indent)\(random.pick(Self.floats)) = \(float(2));\n"
            case 1: return "\(indent)\(random.pick(Self.ints)) = \(int(2));\n"
            case 2: return "\(indent)\(random.pick(Self.uints)) = \(uint(2));\n"
            default: return "\(indent)\(random.pick(Self.bools)) = \(bool(2));\n"
            }
        case "compound":
            switch random.below(3) {
            case 0: return "\(indent)\(random.pick(Self.floats)) \(random.pick(["+=", "-=", "*=", "/="])) \(float(2));\n"
            case 1:
                let op = random.pick(["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="])
                return "\(indent)\(random.pick(Self.ints)) \(op) \(int(2));\n"
            default:
                let op = random.pick(["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="])
                return "\(indent)\(random.pick(Self.uints)) \(op) \(uint(2));\n"
            }
        case "vector":
            switch random.below(7) {
            case 0: return "\(indent)\(random.pick(["v0", "v1"])) = \(vec2(2));\n"
            case 1: return "\(indent)w0 = \(vec4(2));\n"
            case 2: return "\(indent)\(random.pick(["v0", "v1"])).\(random.pick(["x", "y"])) = \(float(2));\n"
            case 3: return "\(indent)\(random.pick(["v0", "v1"])).yx \(random.pick(["+=", "-=", "*="])) \(vec2(1));\n"
            case 4: return "\(indent)w0.\(random.pick(["zw", "xz", "yw", "wx"])) = \(vec2(2));\n"
            case 5: return "\(indent)w0 *= \(float(1));\n"
            default: return "\(indent)\(random.pick(["v0", "v1"])) += \(vec2(1));\n"
            }
        case "increment":
            let target = random.pick(Self.ints + Self.uints + Self.floats)
            return "\(indent)\(random.pick(["\(target)++", "++\(target)", "\(target)--", "--\(target)"]));\n"
        case "call":
            switch random.below(3) {
            case 0: return "\(indent)\(random.pick(Self.floats)) = helperA(\(float(2)), \(random.pick(Self.ints)));\n"
            case 1: return "\(indent)\(random.pick(Self.ints)) = helperB(\(int(2)), \(int(2)));\n"
            default: return "\(indent)\(random.pick(Self.bools)) = helperC(\(vec2(2)), \(random.pick(["v0", "v1"])));\n"
            }
        case "if":
            var text = "\(indent)if (\(bool(3))) {\n\(block(depth: depth, indent: indent, finish: finish))\(indent)}"
            if random.chance(50) {
                text += " else {\n\(block(depth: depth, indent: indent, finish: finish))\(indent)}"
            }
            return text + "\n"
        case "for":
            let j = counter()
            let bound = random.chance(50) ? "(\(int(2)) & 7)" : "int(position.\(random.pick(["x", "y"]))) % \(2 + random.below(5))"
            loopCounters.append(j)
            let body = block(depth: depth, indent: indent, finish: finish)
            loopCounters.removeLast()
            return "\(indent)for (int \(j) = 0; \(j) < \(bound); \(j)++) {\n\(body)\(indent)}\n"
        case "while":
            let j = counter()
            loopCounters.append(j)
            let body = block(depth: depth, indent: indent, finish: finish)
            loopCounters.removeLast()
            return "\(indent){\n\(indent)    int \(j) = 0;\n\(indent)    while (\(j) < \(1 + random.below(6)) && \(bool(2))) {\n"
                + "\(indent)        \(j)++;\n\(body)\(indent)    }\n\(indent)}\n"
        case "do":
            let j = counter()
            loopCounters.append(j)
            let body = block(depth: depth, indent: indent, finish: finish)
            loopCounters.removeLast()
            return "\(indent){\n\(indent)    int \(j) = 0;\n\(indent)    do {\n\(indent)        \(j)++;\n\(body)"
                + "\(indent)    } while (\(j) < (\(int(1)) & 3) + 1);\n\(indent)}\n"
        case "switch":
            let subject = random.chance(60) ? "(\(int(2))) & 3" : int(2)
            insideSwitch += 1
            var text = "\(indent)switch (\(subject)) {\n"
            let labels = random.pick([[0, 1, 2], [1, 3], [0, -1, 2147483647], [2, 0]])
            for label in labels {
                text += "\(indent)    case \(label):\n\(block(depth: depth + 1, indent: indent, finish: finish))"
                if random.chance(60) { text += "\(indent)        break;\n" }
            }
            if random.chance(60) { text += "\(indent)    default:\n\(block(depth: depth + 1, indent: indent, finish: finish))" }
            insideSwitch -= 1
            return text + "\(indent)}\n"
        case "block":
            let shadow = random.pick(Self.floats)
            // The initializer must not name the shadowed variable (it would see the new one).
            return "\(indent){\n\(indent)    float \(shadow) = float(\(int(1)));\n\(block(depth: depth, indent: indent, finish: finish))\(indent)}\n"
        case "break":
            return random.chance(70) ? "\(indent)if (\(bool(2))) break;\n" : "\(indent)break;\n"
        case "continue":
            return "\(indent)if (\(bool(2))) continue;\n"
        case "return":
            return random.chance(80) ? "\(indent)if (\(bool(2))) return \(finish);\n" : "\(indent)return \(finish);\n"
        default:
            return "\(indent)t0 = t0 * 0.75 + \(transcendental());\n"
        }
    }

    private mutating func counter() -> String {
        nextCounter += 1
        return "j\(nextCounter)"
    }

    /// A transcendental builtin on bounded arguments: every term stays below a few hundred,
    /// so an absolute tolerance suffices.
    private mutating func transcendental() -> String {
        let x = float(2), y = float(1)
        switch random.below(20) {
        case 0: return "sin(\(x))"
        case 1: return "cos(\(x))"
        case 2: return "tan(clamp(\(x), -1.4, 1.4))"
        case 3: return "asin(clamp(\(x), -1.0, 1.0))"
        case 4: return "acos(clamp(\(x), -1.0, 1.0))"
        case 5: return "atan(\(x))"
        case 6: return "sinh(clamp(\(x), -4.0, 4.0))"
        case 7: return "cosh(clamp(\(x), -4.0, 4.0))"
        case 8: return "tanh(\(x))"
        case 9: return "atan2(\(x), \(y))"
        case 10: return "exp(clamp(\(x), -4.0, 4.0))"
        case 11: return "exp2(clamp(\(x), -6.0, 6.0))"
        case 12: return "log(abs(\(x)) + 1.0)"
        case 13: return "log2(abs(\(x)) + 0.5)"
        case 14: return "log10(abs(\(x)) + 0.25)"
        case 15: return "rsqrt(abs(\(x)) + 0.25)"
        case 16: return "pow(clamp(abs(\(x)), 0.0, 8.0) + 0.5, clamp(\(y), -2.0, 2.0))"
        case 17: return "length(fract(\(vec2(1))) + 0.5)"
        case 18: return "distance(fract(\(vec2(1))), float2(0.25, 0.75))"
        default: return "normalize(fract(\(vec2(1))) + 0.5).\(random.pick(["x", "y"]))"
        }
    }

    // MARK: - Expressions

    private mutating func floatLeaf() -> String {
        var leaves = Self.floats + ["position.x", "position.y", "a", "b", "v0.x", "v1.y", "w0.z", "w0.w"]
        leaves += ["0.0", "1.0", "0.5", "(-2.5)", "2.5", "1e30", "(-1e-30)", "3.0e38", "16777217.0", "0.1", "3", "(-0.0)"]
        leaves += ["float(\(random.pick(Self.ints)))", "float(\(random.pick(Self.uints)))"]
        if let j = loopCounters.last { leaves.append("float(\(j))") }
        if isColorEffect { leaves += ["float(color.r)", "float(color.a)"] }
        return random.pick(leaves)
    }

    private mutating func float(_ depth: Int) -> String {
        if depth <= 0 || random.chance(25) { return floatLeaf() }
        let d = depth - 1
        switch random.below(23) {
        case 0, 1, 2, 3: return "(\(float(d)) \(random.pick(["+", "-", "*", "/"])) \(float(d)))"
        case 4: return "(-\(float(d)))"
        case 5: return "(\(bool(d)) ? \(float(d)) : \(float(d)))"
        case 6: return "float(\(int(d)))"
        case 7: return "float(\(uint(d)))"
        case 8: return "\(random.pick(["floor", "ceil", "trunc", "round", "rint", "fract", "abs", "fabs", "sqrt", "saturate", "sign"]))(\(float(d)))"
        case 9: return "\(random.pick(["min", "max", "fmin", "fmax", "step", "fmod"]))(\(float(d)), \(float(d)))"
        case 10: return "clamp(\(float(d)), \(float(d)), \(float(d)))"
        case 11: return "clamp(\(float(d)), 0, 1)"
        case 12: return "mix(\(float(d)), \(float(d)), \(float(d)))"
        case 13: return "smoothstep(\(float(d)), \(float(d)), \(float(d)))"
        case 14: return "fma(\(float(d)), \(float(d)), \(float(d)))"
        case 15: return "dot(\(vec2(d)), \(vec2(d)))"
        case 16: return "\(vec2(d)).\(random.pick(["x", "y"]))"
        case 17: return "\(vec4(d)).\(random.pick(["x", "y", "z", "w"]))"
        case 18: return "select(\(float(d)), \(float(d)), \(bool(d)))"
        case 19: return "(\(float(d)) * 2)"
        case 20: return "min3(\(float(d)), \(float(d)), \(float(d)))"
        default: return "(\(float(d)) \(random.pick(["+", "*"])) \(floatLeaf()))"
        }
    }

    private mutating func int(_ depth: Int) -> String {
        var leaves = Self.ints + ["k", "0", "1", "(-1)", "7", "31", "32", "33", "(-33)", "2147483647", "(-2147483647 - 1)", "65536"]
        leaves += ["int(position.x)", "int(position.y)"]
        if let j = loopCounters.last { leaves += [j, j] }
        if depth <= 0 || random.chance(25) { return random.pick(leaves) }
        let d = depth - 1
        switch random.below(16) {
        case 0, 1, 2: return "(\(int(d)) \(random.pick(["+", "-", "*"])) \(int(d)))"
        case 3, 4: return "(\(int(d)) \(random.pick(["/", "%"])) \(int(d)))"
        case 5: return "(\(int(d)) \(random.pick(["&", "|", "^"])) \(int(d)))"
        case 6: return "(\(int(d)) \(random.pick(["<<", ">>"])) \(int(d)))"
        case 7: return "(\(random.pick(["-", "~"]))\(int(d)))"
        case 8: return "int(\(float(d)))"
        case 9: return "int(\(uint(d)))"
        case 10: return "abs(\(int(d)))"
        case 11: return "\(random.pick(["min", "max"]))(\(int(d)), \(int(d)))"
        case 12: return "clamp(\(int(d)), \(int(d)), \(int(d)))"
        case 13: return "(\(bool(d)) ? \(int(d)) : \(int(d)))"
        case 14: return "helperB(\(int(d)), \(int(d)))"
        default: return "int(\(bool(d)))"
        }
    }

    private mutating func uint(_ depth: Int) -> String {
        let leaves = Self.uints + ["0u", "1u", "4294967295u", "2147483648u", "31u", "32u", "0x9E3779B9u"]
        if depth <= 0 || random.chance(25) { return random.pick(leaves) }
        let d = depth - 1
        switch random.below(10) {
        case 0, 1: return "(\(uint(d)) \(random.pick(["+", "-", "*"])) \(uint(d)))"
        case 2: return "(\(uint(d)) \(random.pick(["/", "%"])) \(uint(d)))"
        case 3: return "(\(uint(d)) \(random.pick(["&", "|", "^"])) \(uint(d)))"
        case 4: return "(\(uint(d)) \(random.pick(["<<", ">>"])) \(uint(d)))"
        case 5: return "(~\(uint(d)))"
        case 6: return "uint(\(int(d)))"
        case 7: return "uint(\(float(d)))"
        case 8: return "\(random.pick(["min", "max"]))(\(uint(d)), \(uint(d)))"
        default: return "(\(bool(d)) ? \(uint(d)) : \(uint(d)))"
        }
    }

    private mutating func bool(_ depth: Int) -> String {
        let leaves = Self.bools + ["true", "false", "(position.x > \(random.below(12)).5)", "(position.y < position.x)"]
        if depth <= 0 || random.chance(20) { return random.pick(leaves) }
        let d = depth - 1
        let comparison = random.pick(["<", "<=", ">", ">=", "==", "!="])
        switch random.below(11) {
        case 0, 1: return "(\(float(d)) \(comparison) \(float(d)))"
        case 2, 3: return "(\(int(d)) \(comparison) \(int(d)))"
        case 4: return "(\(uint(d)) \(comparison) \(uint(d)))"
        case 5: return "(\(bool(d)) \(random.pick(["&&", "||"])) \(bool(d)))"
        case 6: return "(!\(bool(d)))"
        case 7: return "\(random.pick(["isnan", "isinf"]))(\(float(d)))"
        case 8: return "\(random.pick(["all", "any"]))(\(vec2(d)) \(comparison) \(vec2(d)))"
        case 9: return "(\(bool(d)) \(random.pick(["==", "!="])) \(bool(d)))"
        default: return "((\(int(d)) & \(1 << random.below(4))) != 0)"
        }
    }

    private mutating func vec2(_ depth: Int) -> String {
        let leaves = ["v0", "v1", "position", "w0.xy", "w0.zx", "float2(0.5, -1.5)"]
        if depth <= 0 || random.chance(25) { return random.pick(leaves) }
        let d = depth - 1
        switch random.below(12) {
        case 0: return "float2(\(float(d)), \(float(d)))"
        case 1, 2: return "(\(vec2(d)) \(random.pick(["+", "-", "*", "/"])) \(vec2(d)))"
        case 3: return "(\(vec2(d)) * \(float(d)))"
        case 4: return "(\(float(d)) - \(vec2(d)))"
        case 5: return "\(random.pick(["floor", "fract", "abs", "round", "sign"]))(\(vec2(d)))"
        case 6: return "\(random.pick(["min", "max"]))(\(vec2(d)), \(vec2(d)))"
        case 7: return "clamp(\(vec2(d)), 0.0, 1.0)"
        case 8: return "mix(\(vec2(d)), \(vec2(d)), \(float(d)))"
        case 9: return "\(vec2(d)).yx"
        case 10: return "select(\(vec2(d)), \(vec2(d)), \(vec2(d)) < \(vec2(d)))"
        default: return "(\(bool(d)) ? \(vec2(d)) : \(vec2(d)))"
        }
    }

    private mutating func vec4(_ depth: Int) -> String {
        let leaves = ["w0", "float4(1.0, 2.0, 3.0, 4.0)", "float4(position, position.yx)"]
        if depth <= 0 || random.chance(25) { return random.pick(leaves) }
        let d = depth - 1
        switch random.below(7) {
        case 0: return "float4(\(vec2(d)), \(float(d)), \(float(d)))"
        case 1: return "float4(\(float(d)))"
        case 2: return "(\(vec4(d)) \(random.pick(["+", "-", "*"])) \(vec4(d)))"
        case 3: return "(\(vec4(d)) * \(float(d)))"
        case 4: return "\(random.pick(["floor", "fract", "abs"]))(\(vec4(d)))"
        case 5: return "\(vec4(d)).wzyx"
        default: return "float4(\(vec2(d)), \(vec2(d)))"
        }
    }
}
