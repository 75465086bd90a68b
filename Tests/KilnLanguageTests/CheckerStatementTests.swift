import Testing
@testable import KilnLanguage

/// language.md §4: scopes, loops, switch, returns, break/continue, discard.
@Suite struct CheckerStatementTests {
    typealias H = CheckerHarness

    @Test func blockScopesEndAtTheirBrace() {
        let r = H.checkFunction("{ float inner = 1; } return inner;")
        #expect(H.errors(r.diagnostics).first?.contains("undeclared identifier 'inner'") == true)
        let shadow = H.checkFunction("float a = 1; { float a = 2; a += 1; } return a;")
        #expect(H.errors(shadow.diagnostics).isEmpty)
        #expect(shadow.program?.functions.last?.variables.filter { $0.name == "a" }.count == 2)
    }

    @Test func redefinitionInTheSameScope() {
        let r = H.checkFunction("float a = 1; float a = 2; return a;")
        #expect(H.errors(r.diagnostics) == ["redefinition of 'a'"])
        #expect(r.diagnostics.first?.notes.first?.message == "previous definition is here")
        let parameter = H.checkFunction("float x = 2; return x;")
        #expect(H.errors(parameter.diagnostics) == ["redefinition of 'x'"])
    }

    @Test func forInitializerIsScopedToTheLoop() {
        let r = H.checkFunction("for (int i = 0; i < 3; i++) { x += float(i); } return float(i);")
        #expect(H.errors(r.diagnostics).first?.contains("'i'") == true)
        let twice = H.checkFunction("for (int i = 0; i < 3; i++) {} for (int i = 0; i < 3; i++) {} return x;")
        #expect(H.errors(twice.diagnostics).isEmpty)
    }

    @Test func loopsProduceLoopStatements() throws {
        let r = H.checkFunction("int i = 0; while (i < 4) { i++; } do { i--; } while (i > 0); for (;;) { break; } return x;")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let body = try #require(r.program?.functions.last?.body)
        var loops: [(Bool, Bool)] = []  // (has condition, testFirst)
        func visit(_ statements: [TypedStatement]) {
            for s in statements {
                if case .loop(let c, _, let b, let t) = s.kind { loops.append((c != nil, t)); visit(b) }
                if case .block(let inner) = s.kind { visit(inner) }
            }
        }
        visit(body)
        #expect(loops.map(\.0) == [true, true, false])
        #expect(loops.map(\.1) == [true, false, true])
    }

    @Test func breakAndContinueNeedALoop() {
        #expect(H.errors(H.checkFunction("break; return x;").diagnostics) == ["'break' statement not in loop or switch statement"])
        #expect(H.errors(H.checkFunction("continue; return x;").diagnostics) == ["'continue' statement not in loop statement"])
        let inSwitch = H.checkFunction("int i = 1; switch (i) { case 1: break; } return x;")
        #expect(H.errors(inSwitch.diagnostics).isEmpty)
        let continueInSwitch = H.checkFunction("int i = 1; switch (i) { case 1: continue; } return x;")
        #expect(H.errors(continueInSwitch.diagnostics).count == 1)
    }

    @Test func switchOnIntegersWithConstantLabels() throws {
        let r = H.checkFunction("""
        const int K = 2;
        int i = int(x);
        switch (i) {
            case 0: case 1: x = 1; break;
            case K: { float t = 2; x = t; break; }
            case K + 1: x = 4;
            default: break;
        }
        return x;
        """, prelude: "")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let body = try #require(r.program?.functions.last?.body)
        let cases = body.compactMap { s -> [TypedSwitchCase]? in if case .switchOn(_, let c) = s.kind { return c }; return nil }.first
        #expect(cases?.map(\.values) == [[0, 1], [2], [3], []])
        #expect(cases?.map(\.isDefault) == [false, false, false, true])
    }

    @Test func switchErrors() {
        let duplicate = H.checkFunction("int i = 0; switch (i) { case 1: break; case 1: break; } return x;")
        #expect(H.errors(duplicate.diagnostics) == ["duplicate case value '1'"])
        let nonConstant = H.checkFunction("int i = 0; int j = 1; switch (i) { case j: break; } return x;")
        #expect(H.errors(nonConstant.diagnostics).first?.contains("not an integer constant") == true)
        let float = H.checkFunction("switch (x) { case 1: break; } return x;")
        #expect(H.errors(float.diagnostics).first?.contains("integer type") == true)
        let defaults = H.checkFunction("int i = 0; switch (i) { default: break; default: break; } return x;")
        #expect(H.errors(defaults.diagnostics).count == 1)
    }

    @Test func returnChecks() {
        #expect(H.errors(H.checkFunction("return;").diagnostics).first?.contains("should return a value") == true)
        #expect(H.errors(H.checkFunction("return 1;", returns: "void").diagnostics).first?.contains("should not return a value") == true)
        #expect(H.errors(H.checkFunction("if (x > 0) return; x = 1;", returns: "void").diagnostics).isEmpty)
        let voidCall = H.check("void g() {}\nvoid f() { return g(); }")
        #expect(H.errors(voidCall.diagnostics).isEmpty)
        #expect(voidCall.program?.functions.last?.body.count == 2)
        let missing = H.checkFunction("if (x > 0) { return 1; }")
        #expect(H.errors(missing.diagnostics).isEmpty)
        #expect(H.warnings(missing.diagnostics).first?.contains("does not return a value in all control paths") == true)
        let unreachable = H.checkFunction("return 1; x = 2;")
        #expect(unreachable.diagnostics.isEmpty)
    }

    @Test func discardOnlyInFragmentFunctions() {
        let fragment = H.check("""
        struct V { float4 position [[position]]; };
        fragment float4 f(V in [[stage_in]]) { if (in.position.x > 3) { discard_fragment(); } return 1; }
        """)
        #expect(H.errors(fragment.diagnostics).isEmpty, "\(fragment.diagnostics)")
        let hasDiscard = fragment.program?.functions.last?.body.contains { s in
            if case .ifElse(_, let then, _) = s.kind { return then.contains { if case .discard = $0.kind { return true }; return false } }
            return false
        }
        #expect(hasDiscard == true)
        let stitchable = H.check("[[stitchable]] half4 f(float2 p, half4 c) { discard_fragment(); return c; }")
        #expect(H.errors(stitchable.diagnostics).first?.contains("only allowed in fragment functions") == true)
    }

    @Test func autoInfersFromTheInitializer() {
        let r = H.checkFunction("auto a = v * 2; auto b = 1; return a.x + float(b);")
        #expect(H.errors(r.diagnostics).isEmpty)
        let types = r.program?.functions.last?.variables.map(\.type)
        #expect(types?.contains(.vector(.float, 2)) == true)
        #expect(types?.contains(.int) == true)
        #expect(H.errors(H.checkFunction("auto a; return x;").diagnostics).count == 1)
    }

    @Test func constLocalsNeedInitializersAndCanSizeArrays() {
        let r = H.checkFunction("const int N = 3; float a[N]; return a[0];")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(r.program?.functions.last?.variables.first { $0.name == "a" }?.type == .array(.float, 3))
        #expect(H.errors(H.checkFunction("const float c; return x;").diagnostics).count == 1)
        #expect(H.errors(H.checkFunction("int n = 3; float a[n]; return x;").diagnostics).first?.contains("constant") == true)
    }

    @Test func uninitializedLocalsAreZeroInitialized() {
        let r = H.checkFunction("float3 a; return a.x;")
        #expect(H.initializer(r.program, of: "a") == "zero")
    }
}
