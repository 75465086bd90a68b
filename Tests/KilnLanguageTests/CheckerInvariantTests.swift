import Foundation
import KilnTestSupport
import Testing
@testable import KilnLanguage

/// The promises of `CheckedProgram.swift`, verified over every node of real programs: every
/// conversion explicit, operands of one type, arguments exactly the parameter types.
@Suite struct CheckerInvariantTests {
    /// Returns the violated promises in `program` (empty when it keeps all of them).
    static func violations(_ program: CheckedProgram) -> [String] {
        var problems: [String] = []
        let structs = program.structs
        func spell(_ t: KType) -> String { TypeResolver.spelling(t, structs: structs) }
        func expect(_ condition: Bool, _ message: @autoclosure () -> String, _ e: TypedExpression) {
            if !condition { problems.append("\(e.range.start.line):\(e.range.start.column): \(message())") }
        }
        func componentCount(_ t: KType) -> Int { t.componentCount(structs: structs) }

        func visit(_ e: TypedExpression, _ function: CheckedFunction) {
            switch e.kind {
            case .constant(let value):
                switch (value, e.type) {
                case (.bool, .scalar(.bool)), (.int, .scalar(.int)), (.int, .scalar(.short)), (.uint, .scalar(.uint)),
                     (.uint, .scalar(.ushort)), (.float, .scalar(.float)), (.float, .scalar(.half)): break
                default: expect(false, "constant \(value) typed \(spell(e.type))", e)
                }
            case .variable(let id):
                expect(id < function.variables.count && function.variables[id].type == e.type, "variable type", e)
            case .global(let id):
                expect(id < program.globals.count && program.globals[id].type == e.type, "global type", e)
            case .construct(let arguments):
                arguments.forEach { visit($0, function) }
                switch e.type {
                case .vector(let kind, _), .matrix(let kind, _, _), .scalar(let kind):
                    expect(arguments.allSatisfy { $0.type.scalarKind == kind }, "construct arguments of \(spell(e.type)) have its element kind", e)
                    let total = arguments.reduce(0) { $0 + componentCount($1.type) }
                    expect(total == componentCount(e.type) || (arguments.count == 1 && total == 1), "construct component count", e)
                case .array(let element, let n):
                    expect(arguments.count == n && arguments.allSatisfy { $0.type == element }, "array construct", e)
                case .structure(let index):
                    expect(arguments.map(\.type) == structs[index].fields.map(\.type), "struct construct", e)
                default:
                    expect(false, "construct of \(spell(e.type))", e)
                }
            case .convert(let x):
                visit(x, function)
                let sameShape: Bool
                switch (x.type, e.type) {
                case (.scalar, .scalar): sameShape = true
                case (.vector(_, let n), .vector(_, let m)): sameShape = n == m
                case (.matrix(_, let c, let r), .matrix(_, let c2, let r2)): sameShape = c == c2 && r == r2
                case (.scalar(let k), .vector(let k2, _)), (.scalar(let k), .matrix(let k2, _, _)): sameShape = k == k2
                default: sameShape = false
                }
                expect(sameShape, "convert \(spell(x.type)) → \(spell(e.type))", e)
            case .unary(let op, let x):
                visit(x, function)
                if op == .logicalNot { expect(x.type.scalarKind == .bool && e.type.scalarKind == .bool, "! on bool", e) }
                else { expect(x.type == e.type, "unary keeps the type", e) }
            case .binary(let op, let a, let b):
                visit(a, function); visit(b, function)
                expect(a.type == b.type, "binary operands \(spell(a.type)) and \(spell(b.type))", e)
                switch op {
                case .less, .lessEqual, .greater, .greaterEqual, .equal, .notEqual:
                    expect(e.type.scalarKind == .bool && e.type.vectorWidth == a.type.vectorWidth, "comparison result", e)
                case .logicalAnd, .logicalOr:
                    expect(a.type.scalarKind == .bool && e.type == a.type, "logical operands are bool", e)
                case .remainder, .shiftLeft, .shiftRight, .bitwiseAnd, .bitwiseOr, .bitwiseXor:
                    expect(a.type.scalarKind?.isInteger == true && e.type == a.type, "integer operator", e)
                default:
                    expect(e.type == a.type, "arithmetic keeps the type", e)
                }
            case .matrixMultiply(let a, let b):
                visit(a, function); visit(b, function)
            case .assign(let a, let b):
                visit(a, function); visit(b, function)
                expect(a.type == b.type && e.type == a.type, "assign \(spell(b.type)) to \(spell(a.type))", e)
            case .compoundAssign(let op, let a, let b):
                visit(a, function); visit(b, function)
                let isMatrixProduct = op == .multiply && { if case .matrix = b.type { return true }; return false }()
                expect(isMatrixProduct || a.type == b.type, "compound operands \(spell(a.type)) and \(spell(b.type))", e)
            case .increment(let x, _, _):
                visit(x, function)
                expect(x.type == e.type, "increment type", e)
            case .conditional(let c, let a, let b):
                visit(c, function); visit(a, function); visit(b, function)
                expect(c.type == .bool && a.type == b.type && e.type == a.type, "conditional types", e)
            case .swizzle(let x, let components):
                visit(x, function)
                expect(components.allSatisfy { $0 < x.type.vectorWidth } && e.type.vectorWidth == components.count, "swizzle", e)
            case .index(let a, let i):
                visit(a, function); visit(i, function)
                expect(i.type.scalarKind?.isInteger == true && i.type.isScalar, "integer index", e)
            case .member(let s, let index):
                visit(s, function)
                var base = s.type
                if case .pointer(let pointee, _) = base { base = pointee }
                if case .structure(let si) = base { expect(structs[si].fields[index].type == e.type, "member type", e) }
                else { expect(false, "member of non-struct", e) }
            case .call(let id, let arguments):
                arguments.forEach { visit($0, function) }
                expect(id < program.functions.count && program.functions[id].parameters.map(\.type) == arguments.map(\.type)
                       && program.functions[id].returnType == e.type, "call arguments match the parameters", e)
            case .builtin(let builtin, let arguments):
                arguments.forEach { visit($0, function) }
                let matches = BuiltinOverloads.overloads(named: builtin.rawValue).contains {
                    $0.parameters == arguments.map(\.type) && $0.result == e.type
                }
                expect(matches, "\(builtin.rawValue)(\(arguments.map { spell($0.type) })) is an overload", e)
            case .textureSample(let t, _, let uv):
                visit(t, function); visit(uv, function)
                expect(uv.type == .vector(.float, 2), "sample coordinates", e)
            case .layerSample(let l, let p):
                visit(l, function); visit(p, function)
                expect(p.type == .vector(.float, 2) && e.type == .vector(.half, 4), "layer sample", e)
            case .textureRead(let t, let c):
                visit(t, function); visit(c, function)
                expect(c.type == .vector(.uint, 2), "read coordinates are uint2", e)
            case .addressOf(let x):
                visit(x, function)
                expect(e.type == .pointer(x.type, .thread) || { if case .array(let el, _) = x.type { e.type == .pointer(el, .thread) } else { false } }(),
                       "&x points at x's type (or an array's element)", e)
            case .dereference(let p):
                visit(p, function)
                expect(p.type == .pointer(e.type, .thread), "*p has the pointee type", e)
            case .textureWrite(let t, let v, let c):
                visit(t, function); visit(v, function); visit(c, function)
                expect(c.type == .vector(.uint, 2), "write coordinates are uint2", e)
                if case .texture(let k, _) = t.type { expect(v.type == .vector(k, 4), "written value is the texel type", e) }
                expect(e.type == .void, "write is void", e)
            case .textureSize(let t, _):
                visit(t, function)
                expect(e.type == .uint, "size is uint", e)
            case .sequence(let a, let b):
                visit(a, function); visit(b, function)
            }
        }

        func visit(_ statements: [TypedStatement], _ function: CheckedFunction) {
            for statement in statements {
                switch statement.kind {
                case .declare(let id, let value):
                    if let value {
                        visit(value, function)
                        if value.type != function.variables[id].type {
                            problems.append("\(statement.range.start.line): declare \(function.variables[id].name) with \(spell(value.type))")
                        }
                    }
                case .expression(let e): visit(e, function)
                case .block(let inner): visit(inner, function)
                case .ifElse(let c, let a, let b):
                    visit(c, function); visit(a, function); visit(b, function)
                    if c.type != .bool { problems.append("\(statement.range.start.line): if condition not bool") }
                case .loop(let c, let step, let body, _):
                    c.map { visit($0, function) }; step.map { visit($0, function) }; visit(body, function)
                    if let c, c.type != .bool { problems.append("\(statement.range.start.line): loop condition not bool") }
                case .returnValue(let value):
                    if let value {
                        visit(value, function)
                        if value.type != function.returnType { problems.append("\(statement.range.start.line): return type") }
                    }
                case .switchOn(let subject, let cases):
                    visit(subject, function)
                    cases.forEach { visit($0.body, function) }
                    if subject.type != .int && subject.type != .uint { problems.append("switch subject") }
                case .breakLoop, .continueLoop, .discard: break
                }
            }
        }
        for global in program.globals {
            if let value = global.initializer, value.type != global.type { problems.append("global \(global.name) initializer type") }
        }
        for function in program.functions { visit(function.body, function) }
        return problems
    }

    static var sources: [String] {
        RepositoryFiles.realShaders.map(RepositoryFiles.text)
    }

    @Test func theValidatorCatchesABrokenTree() {
        let range = SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1))
        let a = TypedExpression(.constant(.float(1)), type: .float, range: range)
        let b = TypedExpression(.constant(.int(1)), type: .int, range: range)
        let sum = TypedExpression(.binary(.add, a, b), type: .float, range: range)
        let function = CheckedFunction(name: "f", parameters: [], returnType: .float, variables: [],
                                       body: [TypedStatement(.returnValue(sum), range: range)], range: range)
        let program = CheckedProgram(structs: [], globals: [], functions: [function], entries: [])
        #expect(Self.violations(program) == ["1:1: binary operands float and int"])
    }

    @Test func realShadersKeepEveryPromise() {
        #expect(Self.sources.count >= 29)
        for source in Self.sources {
            let (program, diagnostics) = Frontend.check(files: [SourceFile(name: "s.metal", text: source)], mainFile: 0)
            guard let program else {
                Issue.record("did not check: \(diagnostics.map(\.message))")
                continue
            }
            #expect(Self.violations(program).isEmpty, "\(Self.violations(program))")
        }
    }

    @Test func featureMixKeepsEveryPromise() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        struct P { float2 at; half4 tint; float w[2]; };
        constant P kP = { float2(1, 2), half4(1), { 3, 4 } };
        constant float2x2 kM = float2x2(1, 2, 3, 4);
        float g(float a, thread float &out, int n = 2) { out = a * n; return out; }
        [[stitchable]] half4 mixAll(float2 position, half4 color, float t, half4 other, device const float *ws, int count) {
            float s = 0;
            float r = g(t, s);
            int i = int(position.x) % 7;
            uint u = uint(i) << 2u | 1u;
            bool2 b = position > 3;
            half4 c = select(color, other, any(b));
            c.rgb += half3(kM * position, 1) * half(t) - 1;
            c *= 0.5;
            float2 q = position * kM + kP.at * kP.w[1];
            q = clamp(q, 0, 1) + step(0.5, q) + mix(q, q, 0.25);
            float3x3 m3 = float3x3(2);
            m3 *= 2;
            m3 = m3 * m3;
            s += ws[min(i, count - 1)] + float(u) + r + (t > 0 ? 1 : 2);
            switch (i) { case 0: s++; break; default: --s; }
            float ip;
            s += modf(s, ip) + float(i *= 2);
            return c + kP.tint * half(s) + half(q.x) + half4(m3[0], 1);
        }
        """
        let (program, diagnostics) = Frontend.check(files: [SourceFile(name: "mix.metal", text: source)], mainFile: 0)
        let checked = try #require(program, "\(diagnostics.map(\.message))")
        #expect(Self.violations(checked).isEmpty, "\(Self.violations(checked))")
    }
}
