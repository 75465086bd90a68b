import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnTestSupport
import Testing

/// Loops take the form `LoopUniformityAnalysis` proves before lowering them, and that form
/// is the one trying jump-based control on a snapshot and rolling back finds
/// (`CompileOptions.speculatesUniformLoops`): the same library, bit for bit, with no loop
/// the analysis promised uniform and lowering found otherwise.
@Suite struct LoopUniformityTests {
    /// The library compiled both ways, and the analysis's misses.
    static func bothWays(_ source: String, name: String = "test.metal") throws -> (analysed: Library, speculated: Library, misses: Int) {
        let files = [SourceFile(name: name, text: source)]
        let analysed = Compiler.compile(files)
        var options = CompileOptions()
        options.speculatesUniformLoops = true
        let speculated = Compiler.compile(files, options: options)
        #expect(speculated.uniformityMisses == 0)
        return (try #require(analysed.library), try #require(speculated.library), analysed.uniformityMisses)
    }

    @Test(arguments: ShaderCorpusTests.corpus) func corpusShadersAgree(_ path: String) throws {
        let (analysed, speculated, misses) = try Self.bothWays(RepositoryFiles.text(path),
                                                               name: (path as NSString).lastPathComponent)
        let same = analysed == speculated
        #expect(misses == 0, "\(path)")
        #expect(same, "\(path): the libraries differ")
    }

    /// Loops whose varying values come from where a glance at the loop does not show them
    /// — a constant stored under a varying `if`, a helper's early return or reference
    /// write, a masked inner loop, a `switch` — and loops that stay uniform.
    static let loops: [(name: String, body: String, uniformControl: Bool)] = [
        ("a flag set under a varying if ends the loop", """
            bool hit = false;
            for (int i = 0; i < int(amount); i++) {
                if (position.x > float(i) * 10.0) hit = true;
                if (hit) break;
            }
            return half4(hit ? 1 : 0, 0, 0, 1);
        """, false),
        ("a constant stored under a varying if feeds an accumulator", """
            float t = 0.0, acc = 0.0;
            for (int i = 0; i < int(amount); i++) {
                if (position.y > 50.0) t = 1.0;
                acc += t;
            }
            return half4(acc, 0, 0, 1);
        """, true),
        ("a helper returns early under varying control", """
            float r = 0.0;
            for (int i = 0; i < int(amount); i++) {
                r += pick(float(i), position);
                if (r > 3.0) break;
            }
            return half4(r, 0, 0, 1);
        """, false),
        ("a helper writes a reference under varying control", """
            float k = 0.0;
            for (int i = 0; i < int(amount); i++) {
                bump(k, position);
                if (k > 3.0) break;
            }
            return half4(k, 0, 0, 1);
        """, false),
        ("a helper writes a reference with uniform values", """
            float k = 0.0;
            for (int i = 0; i < int(amount); i++) {
                bump(k, offset);
                if (k > 3.0) break;
            }
            return half4(k, position.x, 0, 1);
        """, true),
        ("a masked inner loop writes the outer loop's variable", """
            float k = 0.0;
            for (int i = 0; i < int(amount); i++) {
                for (int j = 0; j < int(amount); j++) {
                    if (position.x < float(j)) break;
                    k += 1.0;
                }
                if (k > 10.0) break;
            }
            return half4(k, 0, 0, 1);
        """, false),
        ("a varying switch continues the loop", """
            float k = 0.0;
            for (int i = 0; i < int(amount); i++) {
                switch (int(position.x) & 3) {
                case 0: continue;
                default: k += 1.0;
                }
                k += 0.5;
            }
            return half4(k, 0, 0, 1);
        """, false),
        ("uniform work on a table of constants stays jump-based", """
            const float table[4] = { 1.0, 2.0, 3.0, 4.0 };
            float acc = 0.0;
            for (int i = 0; i < int(amount); i++) {
                acc += table[i & 3] * sin(offset.x + float(i));
                if (acc > 5.0) break;
            }
            return half4(acc * position.x, 0, 0, 1);
        """, true),
        ("a local array indexed at run time is varying", """
            float values[4] = { offset.x, offset.y, 1.0, 2.0 };
            float acc = 0.0;
            for (int i = 0; i < int(amount); i++) {
                acc += values[i & 3];
                if (acc > 5.0) break;
            }
            return half4(acc, 0, 0, 1);
        """, false),
        ("a do-while on a uniform accumulator", """
            float acc = 0.0;
            int i = 0;
            do { acc += cos(float(i) * offset.y); i++; } while (acc < amount && i < 100);
            return half4(acc * position.y, 0, 0, 1);
        """, true),
    ]

    static let helpers = """
        static float pick(float x, float2 p) { if (p.x > 10.0) return 1.0; return x; }
        static void bump(thread float& v, float2 p) { if (p.x > 5.0) v += 1.0; else v += 0.5; }

        """

    @Test(arguments: loops.indices) func handWrittenLoopsAgree(_ index: Int) throws {
        let loop = Self.loops[index]
        let source = colorEffect(loop.body).replacingOccurrences(of: "[[ stitchable ]]", with: Self.helpers + "[[ stitchable ]]")
        let (analysed, speculated, misses) = try Self.bothWays(source)
        let same = analysed == speculated
        #expect(misses == 0, "\(loop.name)")
        #expect(same, "\(loop.name): the libraries differ")
        // Jump-based control ends in `jnz`, a masked loop in `jany`.
        let opcodes = analysed.code.map(\.opcode)
        #expect(opcodes.contains(.jany) != loop.uniformControl, "\(loop.name)")
    }
}
