import Testing
@testable import KilnLanguage

/// Helpers shared by the checker tests: check source text, find functions, print typed trees.
enum CheckerHarness {
    /// Also verifies, for every program that checks, the promises of `CheckedProgram`.
    static func check(_ source: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> (program: CheckedProgram?, diagnostics: [Diagnostic]) {
        let result = Frontend.check(files: [SourceFile(name: "test.metal", text: source)], mainFile: 0)
        if let program = result.program {
            let violations = CheckerInvariantTests.violations(program)
            #expect(violations.isEmpty, "typed tree breaks its promises: \(violations)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// Checks `body` as the body of `returnType f(params)`, after `prelude`.
    static func checkFunction(_ body: String, returns returnType: String = "float", parameters: String = "float x, float2 v, half4 h",
                              prelude: String = "", sourceLocation: Testing.SourceLocation = #_sourceLocation) -> (program: CheckedProgram?, diagnostics: [Diagnostic]) {
        check("#include <metal_stdlib>\nusing namespace metal;\n\(prelude)\n\(returnType) f(\(parameters)) {\n\(body)\n}\n",
              sourceLocation: sourceLocation)
    }

    /// Error messages only.
    static func errors(_ diagnostics: [Diagnostic]) -> [String] {
        diagnostics.filter { $0.severity == .error }.map(\.message)
    }

    static func warnings(_ diagnostics: [Diagnostic]) -> [String] {
        diagnostics.filter { $0.severity == .warning }.map(\.message)
    }

    /// The dump of the value of the last `return` in function `name` (default: the last function).
    static func returned(_ program: CheckedProgram?, function name: String? = nil, index: Int? = nil) -> String? {
        guard let program else { return nil }
        let named = name.flatMap { n in program.functions.first { $0.name == n } }
            ?? index.flatMap { $0 < program.functions.count ? program.functions[$0] : nil }
        guard let function = named ?? program.functions.last else { return nil }
        var found: TypedExpression?
        func visit(_ statements: [TypedStatement]) {
            for statement in statements {
                switch statement.kind {
                case .returnValue(let value?): found = value
                case .block(let inner): visit(inner)
                case .ifElse(_, let a, let b): visit(a); visit(b)
                case .loop(_, _, let body, _): visit(body)
                case .switchOn(_, let cases): cases.forEach { visit($0.body) }
                default: break
                }
            }
        }
        visit(function.body)
        return found.map { dump($0, function) }
    }

    /// The initializer of local `variable` in the last function.
    static func initializer(_ program: CheckedProgram?, of variable: String) -> String? {
        guard let function = program?.functions.last else { return nil }
        var found: String?
        func visit(_ statements: [TypedStatement]) {
            for statement in statements {
                switch statement.kind {
                case .declare(let id, let value):
                    if function.variables[id].name == variable { found = value.map { dump($0, function) } ?? "zero" }
                case .block(let inner): visit(inner)
                case .ifElse(_, let a, let b): visit(a); visit(b)
                case .loop(_, _, let body, _): visit(body)
                case .switchOn(_, let cases): cases.forEach { visit($0.body) }
                default: break
                }
            }
        }
        visit(function.body)
        return found
    }

    /// Every expression statement of the last function, dumped.
    static func expressions(_ program: CheckedProgram?) -> [String] {
        guard let function = program?.functions.last else { return [] }
        var result: [String] = []
        func visit(_ statements: [TypedStatement]) {
            for statement in statements {
                switch statement.kind {
                case .expression(let e): result.append(dump(e, function))
                case .block(let inner): visit(inner)
                case .ifElse(_, let a, let b): visit(a); visit(b)
                case .loop(_, _, let body, _): visit(body)
                case .switchOn(_, let cases): cases.forEach { visit($0.body) }
                default: break
                }
            }
        }
        visit(function.body)
        return result
    }

    /// A compact S-expression of a typed tree: every node with its type.
    static func dump(_ e: TypedExpression, _ function: CheckedFunction) -> String {
        func d(_ x: TypedExpression) -> String { dump(x, function) }
        let type = TypeResolver.spelling(e.type, structs: [])
        switch e.kind {
        case .constant(let value):
            switch value {
            case .bool(let b): return "\(b)"
            case .int(let i): return "\(i):\(type)"
            case .uint(let u): return "\(u)u:\(type)"
            case .float(let f): return "\(f):\(type)"
            }
        case .variable(let id): return function.variables[id].name
        case .global(let id): return "@\(id)"
        case .construct(let args): return "\(type)(" + args.map(d).joined(separator: ", ") + ")"
        case .convert(let x): return "convert<\(type)>(\(d(x)))"
        case .unary(let op, let x): return "\(op.rawValue)<\(type)>(\(d(x)))"
        case .binary(let op, let a, let b): return "\(op.rawValue)<\(type)>(\(d(a)), \(d(b)))"
        case .matrixMultiply(let a, let b): return "mmul<\(type)>(\(d(a)), \(d(b)))"
        case .assign(let a, let b): return "assign(\(d(a)), \(d(b)))"
        case .compoundAssign(let op, let a, let b): return "\(op.rawValue)=(\(d(a)), \(d(b)))"
        case .increment(let x, let delta, let isPrefix): return "\(isPrefix ? "pre" : "post")\(delta > 0 ? "++" : "--")(\(d(x)))"
        case .conditional(let c, let a, let b): return "cond<\(type)>(\(d(c)), \(d(a)), \(d(b)))"
        case .swizzle(let x, let components): return "\(d(x)).\(components.map(String.init).joined())"
        case .index(let a, let i): return "\(d(a))[\(d(i))]"
        case .member(let s, let index): return "\(d(s)).#\(index)"
        case .call(let id, let args): return "call#\(id)(" + args.map(d).joined(separator: ", ") + ")"
        case .builtin(let b, let args): return "\(b.rawValue)<\(type)>(" + args.map(d).joined(separator: ", ") + ")"
        case .textureSample(let t, let s, let uv):
            let source: String
            switch s {
            case .constant(let state): source = "\(state.filter.rawValue),\(state.address.rawValue),\(state.normalized ? "normalized" : "pixel")"
            case .parameter(let id): source = function.variables[id].name
            }
            return "sample<\(type)>(\(d(t)), \(source), \(d(uv)))"
        case .layerSample(let l, let p): return "layerSample(\(d(l)), \(d(p)))"
        case .textureRead(let t, let c): return "read<\(type)>(\(d(t)), \(d(c)))"
        case .textureWrite(let t, let v, let c): return "write(\(d(t)), \(d(v)), \(d(c)))"
        case .addressOf(let x): return "&<\(type)>(\(d(x)))"
        case .dereference(let p): return "*<\(type)>(\(d(p)))"
        case .textureSize(let t, let dimension): return "size\(dimension)(\(d(t)))"
        case .sequence(let a, let b): return "seq(\(d(a)), \(d(b)))"
        }
    }
}

/// The harness's own dump, so tests that compare dumps compare what they think they do.
@Suite struct CheckerHarnessTests {
    @Test func dumpShowsEveryNodeWithItsType() {
        let r = CheckerHarness.checkFunction("float2 a = float2(x, 1); a.y += 2; return a.x;")
        #expect(CheckerHarness.initializer(r.program, of: "a") == "float2(x, 1.0:float)")
        #expect(CheckerHarness.expressions(r.program) == ["add=(a.1, 2.0:float)"])
        #expect(CheckerHarness.returned(r.program) == "a.0")
    }
}
