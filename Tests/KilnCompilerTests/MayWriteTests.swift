import Foundation
@testable import KilnCompiler
import KilnLanguage
import KilnTestSupport
import Testing

/// `TypedExpression.mayWrite` is computed once, as each node is made from its operands, and
/// the lowerer's scans for assigned variables skip every subtree without it: it must hold
/// exactly when the node or one inside it assigns, increments, calls a user function or
/// calls `modf` — what a visit of the whole subtree finds.
@Suite struct MayWriteTests {
    /// What `mayWrite` stands for, by visiting every node of `e`.
    static func writesSomewhere(_ e: TypedExpression) -> Bool {
        var found = false
        StatementScanner.visit(e) { node in
            switch node.kind {
            case .assign, .compoundAssign, .increment, .call, .builtin(.modf, _): found = true
            default: break
            }
        }
        return found
    }

    /// Every node of every function of `source`, against a full visit; returns how many
    /// nodes write.
    @discardableResult
    static func check(_ source: String, name: String) throws -> Int {
        let (checked, diagnostics) = Frontend.check(files: [SourceFile(name: name, text: source)], mainFile: 0)
        let program = try #require(checked, "\(diagnostics.map(\.message))")
        var writing = 0
        for function in program.functions {
            StatementScanner.visit(function.body) { e in
                let expected = writesSomewhere(e)
                #expect(e.mayWrite == expected, "\(name) \(function.name) at \(e.range.start.line):\(e.range.start.column)")
                if expected { writing += 1 }
            }
        }
        return writing
    }

    @Test(arguments: ShaderCorpusTests.corpus) func flagMatchesAVisitOnTheCorpus(_ path: String) throws {
        try Self.check(RepositoryFiles.text(path), name: (path as NSString).lastPathComponent)
    }

    /// Each way of writing, deep inside expressions that do not write themselves.
    @Test func everyFormOfWriting() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        static void bump(thread float &x) { x += 1; }
        static float twice(float x) { return 2 * x; }
        [[ stitchable ]] half4 forms(float2 position, half4 color, float time) {
            float a = 0, b = 1, whole = 0;
            int i = 0;
            float3 v = float3(1, 2, 3);
            float c = sin(a = time) + (b += 2) * float(i++);
            float d = v[--i] + length(float2(twice(a), 1)) + modf(b, whole);
            bump(c);
            float e = (a > 0 ? (d *= 2) : d) + abs(position.x) + float(-(i++));
            v.xy = float2(1, 2);
            return half4(half(a), half(b + c + e), half(v.x), 1);
        }
        """
        let writing = try Self.check(source, name: "forms.metal")
        #expect(writing >= 16)
    }
}
