import Testing
@testable import KilnLanguage

/// language.md §3: operators, swizzles, indexing, members, matrices, lvalues.
@Suite struct CheckerExpressionTests {
    typealias H = CheckerHarness

    @Test func remainderAndBitwiseNeedIntegers() {
        let ok = H.checkFunction("int a = 7; uint b = 3u; return float((a % 4) ^ (a & 1) | (a << 2) >> 1) + float(b & 1u);")
        #expect(H.errors(ok.diagnostics).isEmpty, "\(ok.diagnostics)")
        let bad = H.checkFunction("return x % 2.0;")
        #expect(H.errors(bad.diagnostics).first?.contains("invalid operands") == true)
        #expect(bad.diagnostics.first?.notes.contains { $0.message.contains("fmod") } == true)
        let bits = H.checkFunction("return float(x & 1);")
        #expect(H.errors(bits.diagnostics).count == 1)
    }

    @Test func integerDivisionByConstantZeroWarns() {
        let r = H.checkFunction("int i = 4; return float(i / 0 + i % 0) + x / 0;")
        #expect(H.errors(r.diagnostics).isEmpty)
        #expect(H.warnings(r.diagnostics).count == 2)
        #expect(r.diagnostics.first?.range.start.column == 27)
    }

    @Test func invalidOperandsPointAtTheOperator() {
        let r = H.checkFunction("return (v + h.xy).x;")
        let error = r.diagnostics.first { $0.severity == .error }
        #expect(error?.message == "invalid operands to binary expression ('float2' and 'half2')")
        #expect(error?.range.start.column == 11)
    }

    @Test func comparisonsGiveBoolAndBoolVectors() {
        let r = H.checkFunction("bool a = x < 1; bool2 b = v > 0.5; return all(b) && a ? 1 : 0;")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "b") == "greater<bool2>(v, convert<float2>(0.5:float))")
        // The arms are ints (C++), converted to the return type afterwards.
        #expect(H.returned(r.program) == "convert<float>(cond<int>(logicalAnd<bool>(all<bool>(b), a), 1:int, 0:int))")
    }

    @Test func vectorConditionIsRejectedWithAHint() {
        let r = H.checkFunction("if (v > 0.5) { return 1; } return x;")
        #expect(H.errors(r.diagnostics).count == 1)
        #expect(r.diagnostics.first?.notes.first?.message.contains("all(") == true)
    }

    @Test func conditionalArmsMeetInACommonType() {
        let r = H.checkFunction("return x > 0 ? v : 1;", returns: "float2")
        #expect(H.returned(r.program) == "cond<float2>(greater<bool>(x, 0.0:float), v, convert<float2>(1.0:float))")
        let bad = H.checkFunction("return (x > 0 ? v : h.xy).x;")
        #expect(H.errors(bad.diagnostics).first?.contains("incompatible operand types") == true)
    }

    @Test func swizzles() {
        let r = H.checkFunction("float3 a = h.rgb; float4 b = v.xyxy; float c = v.y; return c;", returns: "float",
                                parameters: "float2 v, float4 h")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "b") == "v.0101")
        #expect(H.initializer(r.program, of: "c") == "v.1")
    }

    /// The process's table of swizzle indexes: every name of one to four letters maps to its
    /// letters' indexes, in order.
    @Test func swizzleTableHoldsEveryName() {
        var seen = 0
        for count in 1...4 {
            for code in 0..<(1 << (2 * count)) {
                let letters = (0..<count).map { "xyzw"[("xyzw".index("xyzw".startIndex, offsetBy: code >> (2 * (count - 1 - $0)) & 3))] }
                let r = H.checkFunction("float4 a = v.xyxy; float\(count == 1 ? "" : String(count)) b = a.\(String(letters)); return 0;",
                                        returns: "float", parameters: "float2 v")
                #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
                #expect(H.initializer(r.program, of: "b") == "a." + letters.map { String("xyzw".firstIndex(of: $0)!.utf16Offset(in: "xyzw")) }.joined())
                seen += 1
            }
        }
        #expect(seen == Checker.swizzleIndexes.count)
    }

    @Test func badSwizzles() {
        #expect(H.errors(H.checkFunction("return v.z;").diagnostics).first?.contains("exceeds") == true)
        #expect(H.errors(H.checkFunction("return v.xg.x;").diagnostics).first?.contains("cannot be mixed") == true)
        #expect(H.errors(H.checkFunction("float4 a = 0; return a.xyzwx.x;").diagnostics).count == 1)
        #expect(H.errors(H.checkFunction("return x.x;").diagnostics).count == 1)
    }

    @Test func swizzleWrites() {
        let r = H.checkFunction("float4 c = 0; c.rg = v; c.w += 1; c.zy *= 2; return c.x;")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.expressions(r.program) == [
            "assign(c.01, v)",
            "add=(c.3, 1.0:float)",
            "multiply=(c.21, convert<float2>(2.0:float))",
        ])
        let duplicate = H.checkFunction("float4 c = 0; c.xx = v; return x;")
        #expect(H.errors(duplicate.diagnostics) == ["vector is not assignable (contains duplicate components)"])
    }

    @Test func assignmentNeedsAWritableLvalue() {
        let prelude = "constant float K = 1;"
        #expect(H.errors(H.checkFunction("const float a = 1; a = 2; return a;").diagnostics).first?.contains("const-qualified") == true)
        #expect(H.errors(H.checkFunction("K = 2; return x;", prelude: prelude).diagnostics).first?.contains("constant address space") == true)
        #expect(H.errors(H.checkFunction("t = 2; return x;", parameters: "float x, constant float &t").diagnostics) ==
                ["cannot assign to variable 't' with const-qualified type 'constant float &'"])
        #expect(H.errors(H.checkFunction("(x + 1) = 2; return x;").diagnostics) == ["expression is not assignable"])
        #expect(H.errors(H.checkFunction("p[0] = 2; return x;", parameters: "device const float *p").diagnostics).first?.contains("read-only") == true)
        #expect(H.errors(H.checkFunction("x = 2; x++; --x; return x;").diagnostics).isEmpty)
    }

    @Test func incrementForms() {
        let r = H.checkFunction("int i = 0; i++; ++i; i--; return float(i);")
        #expect(H.expressions(r.program) == ["post++(i)", "pre++(i)", "post--(i)"])
        #expect(H.errors(H.checkFunction("bool b = true; b++; return x;").diagnostics).count == 1)
    }

    @Test func compoundAssignmentConvertsTheRightOperand() {
        let r = H.checkFunction("half4 acc = 0; acc += h * 2; acc *= 0.5; int i = 0; i += 2; return x;")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.expressions(r.program) == [
            "add=(acc, multiply<half4>(h, convert<half4>(2.0:half)))",
            "multiply=(acc, convert<half4>(0.5:half))",
            "add=(i, 2:int)",
        ])
        // An integer scaled by a float computes in float and truncates, as C++ does.
        let scaled = H.checkFunction("int i = 5; i *= 0.5; return x;")
        #expect(H.expressions(scaled.program) == ["assign(i, convert<int>(multiply<float>(convert<float>(i), 0.5:float)))"])
        let bad = H.checkFunction("float2 p = 0; p += h.xy; return x;")
        #expect(H.errors(bad.diagnostics).count == 1)
    }

    @Test func matrices() {
        let r = H.checkFunction("""
        float2x2 m = float2x2(1);
        float2 a = m * v;
        float2 b = v * m;
        float2x2 c = m * m;
        float2x2 d = m * 2;
        float2 col = m[1];
        float e = m[0][1];
        return x;
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "a") == "mmul<float2>(m, v)")
        #expect(H.initializer(r.program, of: "b") == "mmul<float2>(v, m)")
        #expect(H.initializer(r.program, of: "c") == "mmul<float2x2>(m, m)")
        #expect(H.initializer(r.program, of: "d") == "multiply<float2x2>(m, convert<float2x2>(2.0:float))")
        #expect(H.initializer(r.program, of: "col") == "m[1:int]")
        let bad = H.checkFunction("float3x3 m = float3x3(1); float2 a = (m * v).xy; return x;")
        #expect(H.errors(bad.diagnostics).first?.contains("invalid operands") == true)
        let shape = H.checkFunction("float2x3 m = float2x3(1); float3 a = m * v; return a.x;")
        #expect(H.errors(shape.diagnostics).isEmpty, "\(shape.diagnostics)")
    }

    @Test func arraysAndIndexing() {
        let r = H.checkFunction("""
        float a[3] = {1, 2, 3};
        array<float, 2> b = {4, 5};
        int i = 1;
        return a[i] + b[0] + v[i] + p[i];
        """, parameters: "float2 v, device const float *p")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.errors(H.checkFunction("float a[2] = {1, 2}; return a[x];").diagnostics).first?.contains("not an integer") == true)
        #expect(H.warnings(H.checkFunction("float a[2] = {1, 2}; return a[2];").diagnostics).count == 1)
        #expect(H.errors(H.checkFunction("return x[0];").diagnostics).count == 1)
    }

    @Test func structsAndMembers() {
        let prelude = "struct P { float2 at; float size; }; struct Q { P inner[2]; };"
        let r = H.checkFunction("P p = {v, 2}; Q q; q.inner[1].size = 3; return p.size + q.inner[1].at.y + ptr->size;",
                                parameters: "float2 v, constant P *ptr", prelude: prelude)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.returned(r.program).map { $0.contains("ptr.#1") } == true)
        let typo = H.checkFunction("P p; return p.sise;", prelude: prelude)
        #expect(H.errors(typo.diagnostics) == ["no member named 'sise' in 'P'; did you mean 'size'?"])
        let arrow = H.checkFunction("P p; return p->size;", prelude: prelude)
        #expect(H.errors(arrow.diagnostics).first?.contains("did you mean to use '.'") == true)
    }

    @Test func undeclaredIdentifiersSuggestCloseNames() {
        let r = H.checkFunction("float amplitude = 1; return amplitud;")
        let error = r.diagnostics.first { $0.severity == .error }
        #expect(error?.message == "use of undeclared identifier 'amplitud'; did you mean 'amplitude'?")
        #expect(error?.fixIt?.replacement == "amplitude")
        let none = H.checkFunction("return zzzzqq;")
        #expect(H.errors(none.diagnostics) == ["use of undeclared identifier 'zzzzqq'"])
    }

    @Test func errorsDoNotCascade() {
        let r = H.checkFunction("float a = nope * 2 + sin(nope2); float b = a + 1; return b;")
        #expect(H.errors(r.diagnostics).count == 2)
    }

    @Test func declarationsWithErrorsDoNotCascade() {
        let local = H.checkFunction("flaot a = 1; float b = a * 2; auto c = nope; return b + c + a;")
        #expect(H.errors(local.diagnostics) == ["unknown type name 'flaot'", "use of undeclared identifier 'nope'"])
        let global = H.check("constant flaot K = 1;\nstruct S { flaot x; };\nflaot g(float x) { return x; }\nfloat f(S s) { return K + g(1); }")
        #expect(H.errors(global.diagnostics) == ["unknown type name 'flaot'", "unknown type name 'flaot'", "unknown type name 'flaot'"])
    }

    @Test func builtinConstants() {
        let r = H.checkFunction("return M_PI_F + M_PI_2_F + M_E_F + M_SQRT2_F + FLT_MAX * 0 + float(M_PI_H);")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let inf = H.checkFunction("return INFINITY + MAXFLOAT + NAN;")
        #expect(H.errors(inf.diagnostics).isEmpty)
    }

    @Test func enumConstantsAreInts() {
        let prelude = "enum Mode { A, B = 5, C }; enum class Kind : uint { X = 2, Y };"
        let r = H.checkFunction("int m = C; uint k = uint(Kind::Y); Mode q = B; return float(m + q) + float(k) + float(Mode::A);", prelude: prelude)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "m") == "6:int")
        #expect(H.initializer(r.program, of: "k") == "3u:uint")
        let scoped = H.checkFunction("return float(Y);", prelude: prelude)
        #expect(H.errors(scoped.diagnostics).count == 1)
    }

    @Test func textureAndLayerMethods() {
        let r = H.check("""
        #include <metal_stdlib>
        using namespace metal;
        constexpr sampler lin(filter::linear, address::repeat);
        float4 f(texture2d<float> t, texture2d<half, access::read> r, sampler s, float2 uv, SwiftUI::Layer layer) {
            float4 a = t.sample(lin, uv);
            float4 b = t.sample(s, uv);
            half4 c = r.read(uint2(uv));
            half4 d = r.read(int2(uv));
            uint w = t.get_width() + t.get_height();
            half4 e = layer.sample(uv);
            return a + b + float4(c + d + e) + float(w);
        }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "a") == "sample<float4>(t, linear,repeat,normalized, uv)")
        #expect(H.initializer(r.program, of: "b") == "sample<float4>(t, s, uv)")
        #expect(H.initializer(r.program, of: "d") == "read<half4>(r, convert<uint2>(convert<int2>(uv)))")
        #expect(H.initializer(r.program, of: "w") == "add<uint>(size0(t), size1(t))")
        #expect(H.initializer(r.program, of: "e") == "layerSample(layer, uv)")
        let bad = H.check("float4 f(texture2d<float, access::read> t, sampler s) { return t.sample(s, float2(0)); }")
        #expect(H.errors(bad.diagnostics).count == 1)
        let gather = H.check("float4 f(texture2d<float> t, sampler s) { return t.gather(s, float2(0)); }")
        #expect(H.errors(gather.diagnostics).first?.hasPrefix("not supported") == true)
    }

    @Test func commaOperator() {
        let r = H.checkFunction("int i = 0, j = 0; for (i = 0, j = 1; i < 3; i++, j++) {} return float(j);")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
    }
}
