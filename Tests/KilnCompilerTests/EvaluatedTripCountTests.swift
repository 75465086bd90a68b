import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnTestSupport
import Testing

/// Whether a loop is short enough to unroll is decided by evaluating its counter
/// (`CompileOptions.evaluatesTripCounts`) instead of lowering its condition and step on a
/// snapshot of the lowering state. The answer must be the trial's: the same library, bit
/// for bit, for every shader of the corpus and for loops of every step form, at the limit
/// and one past it.
@Suite struct EvaluatedTripCountTests {
    static func libraries(_ text: String, name: String) throws -> (evaluated: Library, tried: Library) {
        var options = CompileOptions()
        let result = Compiler.compile([SourceFile(name: name, text: text)], options: options)
        let evaluated = try #require(result.library, "\(result.diagnostics.map(\.message))")
        options.evaluatesTripCounts = false
        let tried = try #require(Compiler.compile([SourceFile(name: name, text: text)], options: options).library)
        return (evaluated, tried)
    }

    @Test(arguments: ShaderCorpusTests.corpus) func evaluatingChangesNothing(_ path: String) throws {
        let (evaluated, tried) = try Self.libraries(RepositoryFiles.text(path), name: (path as NSString).lastPathComponent)
        let same = evaluated == tried  // a Bool: the libraries themselves print as pages
        #expect(same, "\(path)")
    }

    /// Each loop is one of the forms the evaluator reads (or one it must leave to the
    /// trial); the 16- and 17-trip loops sit on either side of `maxUnrolledIterations`.
    @Test func everyStepFormGivesTheTrialsLibrary() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        constant int kCount = 5;
        static float steps(float x, int n) {
            float acc = 0;
            for (int i = 0; i < n; i += 3) acc += x * float(i);
            return acc;
        }
        [[ stitchable ]] half4 forms(float2 position, half4 color, float time, float count) {
            float x = position.x * 0.01, acc = 0;
            for (int i = 0; i < 16; i++) acc += x;                          // at the limit
            for (int i = 0; i < 17; i++) acc += x * 0.5;                    // one past it
            for (int i = 10; i > 0; i--) acc -= x * float(i);               // counting down
            for (int i = 0; i <= 40; i = i + 4) acc += 0.1;                 // plain assignment, 11 trips
            for (uint u = 1u; u < 100u; u *= 2u) acc += float(u) * x;        // uint, doubling
            for (int i = 0, j = 20; i < j; i++, j -= 2) acc += float(j);     // two counters
            for (int i = 0; i != 7; i += 2) { acc += 1.0; if (acc > 1e6) break; }  // never meets 7
            for (int i = 0; i < kCount; ++i) acc += float(i) * x;           // a constant global
            const int local = 3;
            for (int i = local; i < local * 4; i++) acc *= 0.99;            // a const local
            for (short s = 0; s < 6; s++) acc += 0.2;                       // a small integer counter
            for (float f = 0.0; f < 1.0; f += 0.25) acc += f;               // a float counter
            for (int i = 0; i < int(count); i++) acc += 0.3;                // unknown bound
            int m = int(count) * 2;
            for (int i = 0; i < m + 0; i++) acc += 0.1;                     // unknown through an identity
            for (int i = 0; !(i >= m - 1); i++) acc += 0.2;                 // unknown under unary and binary
            for (int i = 0; i < (m > 2 ? 4 : 3); i++) acc += 0.3;           // a choice: the trial decides
            for (int i = 0; i < 5 && i < m; i++) acc += 0.4;                // && : the trial decides
            acc += steps(x, 12) + steps(x, 60);                             // bound from an argument
            int k = 0;
            do { acc += 0.5; k += 1; } while (k < 4);                       // do-while
            return half4(fract(acc), fract(acc * 3.1), fract(acc * 7.7), 1);
        }
        """
        let (evaluated, tried) = try Self.libraries(source, name: "forms.metal")
        let same = evaluated == tried
        #expect(same, "evaluated \(evaluated.code.count) instructions, tried \(tried.code.count)")
    }
}
