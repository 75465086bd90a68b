import Testing
@testable import KilnLanguage

/// language.md §2: implicit scalar conversions, splats, no implicit vector element conversion,
/// constructors that compose.
@Suite struct CheckerConversionTests {
    typealias H = CheckerHarness

    @Test func intLiteralWhereFloatExpectedFoldsToAFloatConstant() {
        let r = H.checkFunction("float a = 1; return a;")
        #expect(H.errors(r.diagnostics).isEmpty)
        #expect(H.initializer(r.program, of: "a") == "1.0:float")
    }

    @Test func powWithIntLiteralChoosesFloatOverloadAndFoldsTheLiteral() {
        let r = H.checkFunction("return pow(x, 2);")
        #expect(H.returned(r.program) == "pow<float>(x, 2.0:float)")
    }

    @Test func halfPlusFloatIsFloat() {
        let r = H.checkFunction("half k = 2; return k + x;")
        #expect(H.returned(r.program) == "add<float>(convert<float>(k), x)")
    }

    @Test func floatOperandWinsOverInt() {
        let r = H.checkFunction("int i = 3; return i * x;")
        #expect(H.returned(r.program) == "multiply<float>(convert<float>(i), x)")
    }

    @Test func scalarSplatsInBinaryOperators() {
        let r = H.checkFunction("return v * 2;", returns: "float2")
        #expect(H.returned(r.program) == "multiply<float2>(v, convert<float2>(2.0:float))")
        let s = H.checkFunction("return 1 - v;", returns: "float2")
        #expect(H.returned(s.program) == "subtract<float2>(convert<float2>(1.0:float), v)")
    }

    @Test func scalarToVectorInitializationSplats() {
        let r = H.checkFunction("float3 c = 0.5; half4 acc = 0; return c.x;")
        #expect(H.errors(r.diagnostics).isEmpty)
        #expect(H.initializer(r.program, of: "c") == "convert<float3>(0.5:float)")
        #expect(H.initializer(r.program, of: "acc") == "convert<half4>(0.0:half)")
    }

    @Test func vectorElementTypesNeverConvertImplicitly() {
        let r = H.checkFunction("float4 c = float4(h);\n return c;", returns: "half4")
        let errors = r.diagnostics.filter { $0.severity == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("float4") == true && errors.first?.message.contains("half4") == true)
        #expect(errors.first?.fixIt?.replacement == "half4(c)")
        #expect(errors.first?.notes.contains { $0.message.contains("half4(") } == true)
        #expect(r.program == nil)
    }

    @Test func vectorElementMismatchInInitializationAndAssignment() {
        let r = H.checkFunction("half2 a = v; half2 b; b = v; return x;")
        #expect(H.errors(r.diagnostics).count == 2)
        #expect(H.errors(r.diagnostics).allSatisfy { $0.contains("float2") && $0.contains("half2") })
    }

    @Test func vectorSizeMismatchIsAnError() {
        let r = H.checkFunction("float3 a = v; return x;")
        #expect(H.errors(r.diagnostics).count == 1)
    }

    @Test func constructorsCompose() {
        let r = H.checkFunction("""
        float4 a = float4(v, 0, 1);
        half4 b = half4(h.rgb, 1);
        float4 c = float4(v.xy, v.yx);
        float4 d = float4(h);
        int2 e = int2(v);
        float3 f = float3(x);
        return x;
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "a") == "float4(v, 0.0:float, 1.0:float)")
        #expect(H.initializer(r.program, of: "b") == "half4(h.012, 1.0:half)")
        #expect(H.initializer(r.program, of: "c") == "float4(v.01, v.10)")
        #expect(H.initializer(r.program, of: "d") == "convert<float4>(h)")
        #expect(H.initializer(r.program, of: "e") == "convert<int2>(v)")
        #expect(H.initializer(r.program, of: "f") == "float3(x)")
    }

    @Test func constructorComponentCountMustMatch() {
        let few = H.checkFunction("float4 a = float4(v, 1); return x;")
        #expect(H.errors(few.diagnostics).first?.contains("too few elements") == true)
        let many = H.checkFunction("float2 a = float2(v, 1); return x;")
        #expect(H.errors(many.diagnostics).first?.contains("too many elements") == true)
        // Apple's compiler takes the first components of a longer vector, and real shaders
        // (`half3(someHalf4)`) rely on it; composing still has to match exactly.
        let shrink = H.checkFunction("float2 a = float2(float3(1)); return x;")
        #expect(H.errors(shrink.diagnostics).isEmpty)
        let shrinkTooMany = H.checkFunction("float2 a = float2(float3(1), 1); return x;")
        #expect(H.errors(shrinkTooMany.diagnostics).first?.contains("too many elements") == true)
    }

    @Test func matrixConstructors() {
        let r = H.checkFunction("""
        float c = 1, s = 0;
        float2x2 m = float2x2(c, -s, s, c);
        float3x3 n = float3x3(float3(1, 0, 0), float3(0, 1, 0), float3(0, 0, 1));
        float2x2 i = float2x2(1);
        return x;
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "m") == "float2x2(c, negate<float>(s), s, c)")
        #expect(H.initializer(r.program, of: "i") == "float2x2(1.0:float)")
        let bad = H.checkFunction("float2x2 m = float2x2(1, 2, 3); return x;")
        #expect(H.errors(bad.diagnostics).count == 1)
    }

    @Test func castsConvert() {
        let r = H.checkFunction("int i = (int)x; float f = static_cast<float>(i); uint u = uint(-1); return f;")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "i") == "convert<int>(x)")
        #expect(H.initializer(r.program, of: "u") == "4294967295u:uint")
    }

    @Test func floatToIntConstantFoldingSaturates() {
        let r = H.checkFunction("int i = int(3.9); int j = int(-3.9); return x;")
        #expect(H.initializer(r.program, of: "i") == "3:int")
        #expect(H.initializer(r.program, of: "j") == "-3:int")
    }

    @Test func initializerListsFillArraysStructsAndVectors() {
        let r = H.checkFunction("""
        float a[4] = {1, 2};
        float2 p = {1, 2};
        S s = {1};
        float b[] = {1, 2, 3};
        return x;
        """, prelude: "struct S { float a; int b; };")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "a") == "float[4](1.0:float, 2.0:float, 0.0:float, 0.0:float)")
        #expect(H.initializer(r.program, of: "p") == "float2(1.0:float, 2.0:float)")
        #expect(H.initializer(r.program, of: "s") == "struct(1.0:float, 0:int)")
        #expect(r.program?.functions.last?.variables.first { $0.name == "b" }?.type == .array(.float, 3))
        let excess = H.checkFunction("float a[2] = {1, 2, 3}; return x;")
        #expect(H.errors(excess.diagnostics).first?.contains("excess elements") == true)
    }

    @Test func returnOfBracedListUsesTheReturnType() {
        let r = H.checkFunction("return {x, 1};", returns: "float2")
        #expect(H.returned(r.program) == "float2(x, 1.0:float)")
    }

    @Test func boolConvertsToNumbersAndBack() {
        let r = H.checkFunction("bool b = x; int i = b + 1; if (i) { return 1; } return x;")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "b") == "convert<bool>(x)")
    }
}
