import Testing
@testable import KilnLanguage

/// Expression trees that the parser builds in loops (operator and postfix chains) must be
/// bounded by `maxNestingDepth` like parenthesized nesting is, so no recursive pass over
/// them (checking, lowering, releasing the tree) can overflow the stack.
@Suite struct CheckerRobustnessTests {
    private static func entry(_ body: String) -> String {
        "#include <metal_stdlib>\nusing namespace metal;\n[[ stitchable ]] half4 f(float2 position, float t) {\n\(body)\n}\n"
    }

    private static func check(_ source: String, limits: LanguageLimits = .default) -> (program: CheckedProgram?, errors: [String]) {
        let result = Frontend.check(files: [SourceFile(name: "t.metal", text: source)], mainFile: 0, limits: limits)
        return (result.program, result.diagnostics.filter { $0.severity == .error }.map(\.message))
    }

    @Test func longOperatorChainsEndInADiagnostic() {
        for terms in [1_500, 10_000, 100_000] {
            let sum = Self.entry("float x = t\(String(repeating: " + t", count: terms));\nreturn half4(x);")
            let result = Self.check(sum)
            #expect(result.program == nil)
            #expect(result.errors.count == 1 && result.errors[0].contains("limit maxNestingDepth = 256"), "\(terms) terms: \(result.errors)")
        }
        let logical = Self.entry("bool b = t > 0\(String(repeating: " && t > 0", count: 10_000));\nreturn half4(b ? 1 : 0);")
        #expect(Self.check(logical).errors.contains { $0.contains("maxNestingDepth") })
    }

    @Test func longPostfixChainsEndInADiagnostic() {
        let members = Self.entry("float2 p = position\(String(repeating: ".xy", count: 10_000));\nreturn half4(p.x);")
        #expect(Self.check(members).errors.contains { $0.contains("maxNestingDepth") })
        let indexes = Self.entry("float a[2];\nfloat x = a\(String(repeating: "[0]", count: 10_000));\nreturn half4(x);")
        #expect(Self.check(indexes).errors.contains { $0.contains("maxNestingDepth") })
    }

    @Test func chainsWithinTheLimitStillCheck() {
        let sum = Self.entry("float x = t\(String(repeating: " + t", count: 250));\nreturn half4(x);")
        #expect(Self.check(sum).errors == [])
        #expect(Self.check(sum).program != nil)
        var limits = LanguageLimits()
        limits.maxNestingDepth = 20
        let short = Self.entry("float x = t\(String(repeating: " + t", count: 18));\nreturn half4(x);")
        #expect(Self.check(short, limits: limits).program != nil)
        let long = Self.entry("float x = t\(String(repeating: " + t", count: 25));\nreturn half4(x);")
        #expect(Self.check(long, limits: limits).errors.contains { $0.contains("limit maxNestingDepth = 20") })
    }

    @Test func chainsInsideParenthesesAddUp() {
        // Each chain alone fits; together the tree is 3 × 150 levels high.
        var nested = "t"
        for _ in 0..<3 { nested = "(" + nested + String(repeating: " * t", count: 150) + ")" }
        let result = Self.check(Self.entry("float x = \(nested);\nreturn half4(x);"))
        #expect(result.program == nil)
        #expect(result.errors.contains { $0.contains("maxNestingDepth") })
    }

    @Test func heightIsKeptInEveryNode() {
        let range = SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1))
        var tree = Expression(.identifier(["t"]), range: range)
        #expect(tree.height == 1)
        for _ in 0..<999 { tree = Expression(.unary(.minus, tree), range: range) }
        #expect(tree.height == 1_000)
        tree = Expression(.binary(.add, Expression(.identifier(["t"]), range: range), tree), range: range)
        #expect(tree.height == 1_001)
        tree = Expression(.call(callee: Expression(.identifier(["f"]), range: range), arguments: [tree, tree]), range: range)
        #expect(tree.height == 1_002)
        // A node whose kind changes measures again.
        tree.kind = .booleanLiteral(true)
        #expect(tree.height == 1)
    }

    @Test func theCheckerBoundsTreesThePassesWouldRecurseInto() {
        // Unary operators nest by recursion in the parser; wrapped around a chain they can
        // make a tree higher than either bound alone sees. The checker measures the whole tree.
        var limits = LanguageLimits()
        limits.maxNestingDepth = 40
        let source = Self.entry("float x = \(String(repeating: "- ", count: 30))(t\(String(repeating: " + t", count: 30)));\nreturn half4(x);")
        let result = Self.check(source, limits: limits)
        #expect(result.program == nil)
        #expect(result.errors.contains { $0.contains("limit maxNestingDepth = 40") }, "\(result.errors)")
    }
}
