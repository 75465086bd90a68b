import Foundation
import Testing
import KilnLanguage

/// Differential tests: the VM (compiled by `Compiler.compile`) against the independent
/// `ReferenceEvaluator`, pixel by pixel, on random and hand-written programs.
@Suite struct DifferentialTests {
    /// Random programs per run (each renders one batch of lanes both ways).
    static let randomProgramCount: UInt64 = 200

    @Test func randomProgramsAgreeWithReference() {
        var failing: [UInt64] = []
        for seed in 0..<Self.randomProgramCount {
            let program = ProgramGenerator.generate(seed: seed)
            let harness = Self.harness(program)
            let inputs = DifferentialHarness.Inputs.make(seed: seed)
            let problems = harness.mismatches(inputs)
            guard !problems.isEmpty else { continue }
            failing.append(seed)
            if failing.count <= 2 {
                let minimized = Self.minimize(program, inputs)
                Issue.record(Comment(rawValue: """
                    random program seed \(seed) (approximate: \(program.approximate), color: \(program.isColorEffect)) \
                    disagrees on \(problems.count) pixel components; first:
                    \(problems.prefix(4).joined(separator: "\n"))
                    minimized program (\(minimized.problems.first ?? "")):
                    \(minimized.source)
                    """))
            }
        }
        print("differential: \(Self.randomProgramCount) programs; \(DifferentialHarness.timing)")
        #expect(failing.isEmpty, "\(failing.count) of \(Self.randomProgramCount) random programs disagree: seeds \(failing.prefix(40))")
    }

    static func harness(_ program: ProgramGenerator.Program) -> DifferentialHarness {
        var harness = DifferentialHarness(source: program.source, isColorEffect: program.isColorEffect)
        if program.approximate { harness.tolerances[0] = .approximate(ulps: 16, absolute: 2e-3) }
        return harness
    }

    /// Deletes lines of the entry's body while the program still checks and still
    /// disagrees — a cheap delta-debugging pass so a report shows a small program.
    static func minimize(_ program: ProgramGenerator.Program, _ inputs: DifferentialHarness.Inputs)
        -> (source: String, problems: [String]) {
        var lines = program.source.components(separatedBy: "\n")
        guard let bodyStart = lines.firstIndex(where: { $0.contains("[[ stitchable ]]") }) else { return (program.source, []) }
        var best = DifferentialHarness(source: program.source, isColorEffect: program.isColorEffect).mismatches(inputs)
        var changed = true
        var passes = 0
        while changed && passes < 3 {
            changed = false
            passes += 1
            var index = lines.count - 3
            while index > bodyStart + 8 {
                // Loop counters' increments keep the program terminating; keep them.
                if lines[index].contains("++;") && lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("j") {
                    index -= 1
                    continue
                }
                var candidate = lines
                candidate.remove(at: index)
                var harness = Self.harness(program)
                harness.source = candidate.joined(separator: "\n")
                let problems = harness.mismatches(inputs)
                if let first = problems.first, first.hasPrefix("lane ") {
                    lines = candidate
                    best = problems
                    changed = true
                }
                index -= 1
            }
        }
        return (lines.joined(separator: "\n"), best)
    }

    // MARK: - Hand-written cases

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var body: String
        var description: String { name }
    }

    static let targeted: [Case] = [
        Case(name: "nested divergent ifs", body: """
            float r = 0;
            if (position.x > 3.0) {
                if (position.y > 4.0) { r = 1; } else if (position.x > 6.0) { r = 2; } else { r = 3; }
                r += 10;
            } else {
                if (int(position.y) % 2 == 0) r = -1;
            }
            return half4(r, 0, 0, 1);
            """),
        Case(name: "loop exits at a different iteration per lane", body: """
            int n = 0;
            float s = 0;
            for (int i = 0; i < 100; i++) {
                if (float(i) > position.x) break;
                s += float(i) * 0.5;
                n++;
            }
            return half4(s, float(n), 0, 1);
            """),
        Case(name: "return inside loop inside if", body: """
            float s = 1;
            if (position.y > 2.0) {
                for (int i = 0; i < 8; i++) {
                    s *= 1.5;
                    if (float(i) + 0.5 > position.x) return half4(s, float(i), 1, 1);
                }
                s = -s;
            }
            return half4(s, -1, 0, 1);
            """),
        Case(name: "continue in do-while", body: """
            int i = 0;
            int odd = 0;
            do {
                i++;
                if ((i & 1) == 0) continue;
                odd += i;
            } while (i < int(position.x) % 9);
            return half4(float(i), float(odd), 0, 1);
            """),
        Case(name: "switch fallthrough and default", body: """
            int acc = 0;
            switch (int(position.x) % 5) {
                case 0: acc += 1;
                case 1: acc += 10;
                    break;
                case 2: { acc += 100; }
                case 3: acc += 1000;
                default: acc += 10000;
            }
            switch (k) { case -1: acc = -acc; break; default: break; }
            return half4(float(acc), 0, 0, 1);
            """),
        Case(name: "break inside switch inside loop leaves only the switch", body: """
            int acc = 0;
            for (int i = 0; i < 6; i++) {
                switch ((i + int(position.y)) & 3) {
                    case 0: acc += 1; break;
                    case 1: acc += 2; continue;
                    case 2: acc += 4;
                    default: acc += 8; break;
                }
                acc *= 3;
                if (acc > int(position.x) * 50) break;
            }
            return half4(float(acc & 0xFFFF), float(acc >> 16), 0, 1);
            """),
        Case(name: "integer division edge cases", body: """
            int m = -2147483647 - 1;
            int z = int(position.x) - int(position.x);   // 0, not a constant
            int q = m / (z - 1);                          // INT_MIN / -1
            int r = m % (z - 1);
            int d = int(position.y) / z;                  // ÷ 0
            int e = int(position.y) % z;
            uint u = uint(position.x) / uint(z);
            uint v = uint(position.x) % uint(z);
            int h = q ^ (r * 3) ^ (d * 5) ^ (e * 7) ^ int(u * 11u) ^ int(v * 13u);
            return half4(float(q == m ? 1 : 0), float(h & 0xFFFF), float((h >> 16) & 0xFFFF), 1);
            """),
        Case(name: "division and remainder by powers of two", body: """
            int x = (int(position.x) - 7) * 37 + int(position.y) * 1000003 - 40000000;
            int m = -2147483647 - 1 + int(position.y) % 3;   // INT_MIN and just above
            uint u = uint(x) * 2654435761u;
            int qa = x / 2 + x / 4 * 3 + x / 1024 * 5 + x / 1073741824 * 7;
            int qb = x % 2 + x % 8 * 3 + x % 65536 * 5 + x % 1073741824 * 7 + (-x) % 16 * 11;
            int qc = (m / 2) ^ (m % 4) ^ (m / 1073741824) ^ (m % 1073741824) ^ (m / 1);
            uint qd = u / 2u + u / 16u * 3u + u / 2147483648u * 5u;
            uint qe = u % 2u + u % 256u * 3u + u % 2147483648u * 5u;
            int h = qa ^ (qb * 3) ^ (qc * 5) ^ int(qd * 7u) ^ int(qe * 11u);
            return half4(float(h & 0xFFFF), float((h >> 16) & 0xFFFF), float(qa & 0xFF), float(qb & 0xFF));
            """),
        Case(name: "helpers that return early before costly code", body: """
            int evaluations = 0;
            float t = 0.0;
            float3 rd = float3(position * 0.01 - 0.3, -1.0);
            for (int i = 0; i < 12; i++) {
                float d = boundedScene(float3(0, 0, 4) + rd * t, evaluations);
                if (d < 0.01) break;
                t += d;
            }
            float far = boundedScene(float3(position, 9.0), evaluations);
            float u = 0.0;
            for (int i = 0; i < 12; i++) {
                float d = boundedPure(float3(0, 0, 4) + rd * u);
                if (d < 0.01) break;
                u += d;
            }
            return half4(t, float(evaluations), u + boundedPure(float3(position, 9.0)), far);
            """),
        Case(name: "shifts by 32 and more are masked", body: """
            int s = int(position.x);             // 0.5… → 0, 1, 2, …
            int x = 0x12345678;
            int a1 = x << (s + 32);
            int a2 = x >> (s + 33);
            int a3 = (-x) >> (s + 31);
            uint b1 = 0x80000000u >> uint(s + 32);
            uint b2 = 1u << uint(s + 64);
            int h = a1 ^ a2 ^ a3 ^ int(b1) ^ int(b2 * 3u);
            return half4(float(h & 0xFFFF), float((h >> 16) & 0xFFFF), float(a3 & 0xFF), 1);
            """),
        Case(name: "float to int of NaN, infinities and huge values", body: """
            float zero = position.x - position.x;
            float nan = zero / zero;
            float inf = 1.0 / zero;
            int i1 = int(nan), i2 = int(inf), i3 = int(-inf), i4 = int(position.x * 1e30), i5 = int(-3.99);
            uint u1 = uint(nan), u2 = uint(inf), u3 = uint(-inf), u4 = uint(-1.5), u5 = uint(4294967040.0 + position.y);
            int h = i1 ^ (i2 * 3) ^ (i3 * 5) ^ (i4 * 7) ^ (i5 * 11) ^ int(u1 ^ (u2 * 13u) ^ (u3 * 17u) ^ (u4 * 19u) ^ (u5 * 23u));
            return half4(float(h & 0xFFFF), float((h >> 16) & 0xFFFF), float(i5), float(u5 >> 16));
            """),
        Case(name: "overflow wraps", body: """
            int big = 2147483647 - int(position.x) % 3;
            int w = big + 5;
            int m = big * 7;
            uint u = 4294967295u - uint(position.y) % 2u;
            uint uw = u + 9u;
            return half4(float(w & 0xFFFF), float((w >> 16) & 0xFFFF), float(m & 0xFFFF), float(uw));
            """),
        Case(name: "rounding builtins and fract", body: """
            float x = (position.x - 4.0) * 0.5 - 0.25 * position.y;   // hits exact .5 cases
            float y = -position.x * 1e-9;
            return half4(round(x) + 100.0 * rint(x), fract(x), fract(y), trunc(x) * 1000.0 + floor(x) * 10.0 + ceil(x));
            """),
        Case(name: "fmin/fmax/clamp/sign/step with NaN", body: """
            float zero = position.x - position.x;
            float nan = zero / zero;
            float x = position.x - 5.0;
            return half4(fmin(nan, x) + fmax(x, nan), clamp(x, -1.0, 2.0) + sign(x) * 10.0, sign(nan) + step(nan, x), min(x, 2.0) - max(nan, 1.0));
            """),
        Case(name: "mix, smoothstep, fma and fmod", body: """
            float t = position.x * 0.125;
            float e = smoothstep(1.0, 5.0, position.y);
            float m = mix(position.x, position.y * 3.0, t);
            float f = fma(position.x, 0.1, position.y);
            float r = fmod(position.x * 7.3, 1.7 + position.y) + fmod(-position.y * 123456.0, 0.3);
            return half4(e, m, f, r);
            """),
        Case(name: "helper with reference parameter in divergent branch", body: """
            int count = 0;
            float x = position.x;
            if (position.y > 3.0) {
                x = bump(x, count);
                if (position.x > 2.0) x = bump(x, count);
            }
            for (int i = 0; i < int(position.x) % 4; i++) x = bump(x, count);
            return half4(x, float(count), 0, 1);
            """),
        Case(name: "vector swizzle writes and component-wise ops", body: """
            float4 v = float4(position, position.yx * 2.0);
            v.zw += position;
            v.yx = v.wz - 1.0;
            if (position.x > position.y) v.xz = float2(-v.z, v.x);
            float2 q = floor(v.xy / 3.0) + fract(v.zw * 0.37);
            v.w = dot(q, v.xy);
            return half4(v);
            """),
        Case(name: "short-circuit evaluation has no side effects on the skipped side", body: """
            int count = 0;
            bool c = position.x > 4.0 && bump(1.0, count) > 0.0;
            bool d = position.y > 4.0 || bump(2.0, count) > 0.0;
            float t = position.x > 2.0 ? bump(3.0, count) : -1.0;
            return half4(float(count), c ? 1.0 : 0.0, d ? 1.0 : 0.0, t);
            """),
        Case(name: "while loop with early return and uniform condition", body: """
            float s = 0;
            int i = 0;
            while (true) {
                i++;
                if (k > 100 && i > 2) return half4(-1);
                if (float(i) > min(position.y, 20.0)) break;   // extreme lanes would never stop
                s += position.x / float(i);
            }
            return half4(s, float(i), 0, 1);
            """),
        Case(name: "vector assignment reading its own target under a divergent if", body: """
            float2 v = position;
            float4 w = float4(position, 7.0, 9.0);
            if (position.x > position.y - 2.0) {
                v = v.yx;                                   // a swap
                w = float4(1.0, 2.0, position.y, w.z);      // w.w reads the old w.z
                w.xz = float2(-w.z, w.x);                   // swizzle store reading its own components
            }
            return half4(v.x * 1000.0 + v.y, w.y, w.z, w.w + w.x);
            """),
        Case(name: "conditional return followed by break inside a loop", body: """
            float f0 = 1.0;
            for (int j = 0; j < 7; j++) {
                if (position.y > 3.0) return half4(f0, 0, 0, 1);
                break;
            }
            f0 = 2.0;
            return half4(f0, 1, 0, 1);
            """),
        Case(name: "arrays indexed dynamically, out of range reads zero and writes nothing", body: """
            float arr[4] = {1.0, 2.0, 3.0, 4.0};
            int i = int(position.x) - 2;        // -1 … 5: some out of range
            arr[i] = 10.0;
            arr[i + 1] += 0.5;
            float r = arr[i] + arr[3 - i] * 100.0;
            return half4(r, arr[0], arr[3], float(i));
            """),
        Case(name: "thread pointers to locals, vectors and arrays, passed on and under divergence", body: """
            float v = position.x;
            twice(&v);
            if (position.y > 2.0) relay(&v);
            float2 q = position;
            push(&q, a);
            float arr[3] = { position.y, 1.5, position.x * 0.25 };
            sortThree(arr);
            float tail = total(&arr[1], 2);
            float w = *(&v) + 1.0;
            return half4(v + w, q.x + q.y * 100.0, total(arr, 3), tail);
            """),
        Case(name: "references and pointers to an element chosen at run time", body: """
            float arr[4] = {1.0, 2.0, 3.0, 4.0};
            int i = int(position.x) % 4;        // negative for some lanes: out of range
            incRef(arr[i]);
            twice(&arr[(i + 1) % 4]);
            if (position.y > 3.0) incRef(arr[(i + 2) % 4]);
            return half4(arr[0] + arr[1] * 10.0, arr[2], arr[3], float(i));
            """),
    ]

    static let helper = """
        #include <metal_stdlib>
        using namespace metal;

        static float bump(float x, thread int &count) {
            count += 1;
            if (x > 5.0) return x * 0.5;
            return x + 1.0;
        }

        static void twice(thread float *v) { *v = *v * 2.0; }
        static void relay(thread float *v) { twice(v); }
        static void incRef(thread float &x) { x += 0.5; }
        static void push(thread float2 *p, float d) {
            p->x += d;
            if (p->y > 3.0) { p->y = -p->y; return; }
            p->y += 1.0;
        }
        static float total(thread const float *values, int n) {
            float s = 0;
            for (int i = 0; i < n; i++) s += values[i];
            return s;
        }
        static float boundedScene(float3 p, thread int &evaluations) {
            float bound = abs(p.x) + abs(p.y) + abs(p.z) - 2.0;
            if (bound > 0.5) return bound;                // most rays: the rest is skipped
            evaluations += 1;                             // a reference write after it
            float d = 10.0;
            for (int i = 0; i < 3; i++) {
                float3 c = float3(float(i) * 0.7 - 0.7, 0.3 * float(i), 0.5 * float(i));
                float3 q = abs(p - c);
                d = min(d, max(q.x, max(q.y, q.z)) - 0.4);
            }
            if (d < 0.0) return -d * 2.0;                 // a second early return, masked
            return d;
        }
        static float boundedPure(float3 p) {
            float bound = abs(p.x) + abs(p.y) + abs(p.z) - 2.0;
            if (bound > 0.5) return bound;
            float d = 10.0;
            for (int i = 0; i < 3; i++) {
                float3 q = abs(p - float3(float(i) * 0.7 - 0.7, 0.3 * float(i), 0.5 * float(i)));
                d = min(d, max(q.x, max(q.y, q.z)) - 0.4);
            }
            if (d < 0.0) return -d * 2.0;
            return d;
        }
        static void sortThree(thread float *a) {
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2 - i; j++)
                    if (a[j] > a[j + 1]) { float t = a[j]; a[j] = a[j + 1]; a[j + 1] = t; }
        }

        """

    @Test(arguments: targeted) func targetedProgramAgreesWithReference(_ testCase: Case) {
        let source = Self.helper + "[[ stitchable ]] half4 f(float2 position, float a, float b, float kf) {\nint k = int(kf);\n" + testCase.body + "\n}\n"
        let harness = DifferentialHarness(source: source, isColorEffect: false)
        for seed in [UInt64(1), 2, 3] {
            let problems = harness.mismatches(.make(seed: seed))
            #expect(problems.isEmpty, Comment(rawValue: "\(testCase.name), inputs \(seed):\n\(problems.prefix(6).joined(separator: "\n"))\n\(source)"))
            if !problems.isEmpty { break }
        }
    }
}
