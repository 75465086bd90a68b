import Testing
@testable import KilnLanguage
import KilnTestSupport

/// Calls: user overloads, default arguments, prototypes, references, recursion; builtins.
@Suite struct CheckerFunctionTests {
    typealias H = CheckerHarness

    @Test func overloadsPickTheBestMatch() {
        let r = H.check("""
        float sdBox(float2 p, float2 b) { return length(max(abs(p) - b, 0.0)); }
        float sdBox(float2 p, float2 b, float r) { return sdBox(p, b - r) - r; }
        float g(float a) { return 1; }
        float g(int a) { return 2; }
        float f(float2 p) { return sdBox(p, p, 1) + g(1) + g(1.5); }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.returned(r.program, function: "f") ==
                "add<float>(add<float>(call#1(p, p, 1.0:float), call#3(1:int)), call#2(1.5:float))")
        // uint converts to int and to float equally well: ambiguous, as in C++.
        let ambiguous = H.check("float g(float a) { return 1; }\nfloat g(int a) { return 2; }\nfloat f() { return g(1u); }")
        #expect(H.errors(ambiguous.diagnostics) == ["call to 'g' is ambiguous"])
        #expect(H.returned(r.program, index: 1) == "subtract<float>(call#0(p, subtract<float2>(b, convert<float2>(r))), r)")
    }

    @Test func ambiguousCallsListCandidates() {
        let r = H.check("""
        float g(float2 a, float b) { return 1; }
        float g(float a, float2 b) { return 2; }
        float f() { return g(1.0, 1.0); }
        """)
        let error = r.diagnostics.first { $0.severity == .error }
        #expect(error?.message == "call to 'g' is ambiguous")
        #expect(error?.notes.count == 2)
    }

    @Test func noMatchingUserFunction() {
        let r = H.check("float g(float2 a) { return a.x; }\nfloat f(half2 h) { return g(h); }")
        let error = r.diagnostics.first { $0.severity == .error }
        #expect(error?.message.hasPrefix("no matching function for call to 'g'") == true)
        #expect(error?.notes.first?.message.contains("no known conversion from 'half2' to 'float2'") == true)
        #expect(error?.notes.first?.range?.start.line == 1)
    }

    @Test func defaultArgumentsAreFilledIn() {
        let r = H.check("""
        float g(float a, float b = 2, int c = 3);
        float g(float a, float b, int c) { return a + b + float(c); }
        float f() { return g(1) + g(1, 5); }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.returned(r.program, function: "f") == "add<float>(call#0(1.0:float, 2.0:float, 3:int), call#0(1.0:float, 5.0:float, 3:int))")
        let missing = H.check("float g(float a = 1, float b) { return a; }")
        #expect(H.errors(missing.diagnostics).first?.contains("missing default argument") == true)
    }

    @Test func prototypesMakeLaterDefinitionsCallable() {
        let r = H.check("""
        float later(float x);
        float f(float x) { return later(x); }
        float later(float x) { return x * 2; }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.returned(r.program, function: "f") == "call#1(x)")
        let undeclared = H.check("float f(float x) { return later(x); }\nfloat later(float x) { return x; }")
        #expect(H.errors(undeclared.diagnostics).first?.contains("before its declaration") == true)
        let undefined = H.check("float later(float x);\nfloat f(float x) { return later(x); }")
        #expect(H.errors(undefined.diagnostics).first?.contains("never defined") == true)
        let redefinition = H.check("float g(float x) { return x; }\nfloat g(float y) { return y; }")
        #expect(H.errors(redefinition.diagnostics) == ["redefinition of 'g'"])
        let returnOnly = H.check("float g(float x);\nint g(float x) { return 1; }")
        #expect(H.errors(returnOnly.diagnostics).first?.contains("differ only in their return type") == true)
    }

    @Test func referenceParametersNeedLvalues() {
        let r = H.check("""
        void bump(thread float &v, float by) { v += by; }
        float f(float x) { float y = x; bump(y, 2); return y; }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(r.program?.functions[0].variables[0].isReference == true)
        let temporary = H.check("void bump(thread float &v) { v += 1; }\nfloat f(float x) { bump(x + 1); return x; }")
        #expect(H.errors(temporary.diagnostics).first?.contains("no matching function") == true)
        #expect(temporary.diagnostics.first?.notes.first?.message.contains("assignable") == true)
    }

    /// `thread T *` parameters: `&x` of locals (or parts of them), arrays decaying to a
    /// pointer to their first element, `*p`, `p->f`, `p[i]`; const pointees stay read-only.
    @Test func threadPointersPointAtLocals() {
        let r = H.check("""
        struct Ray { float3 o; float3 d; };
        void bump(thread float *v) { *v += 1; }
        void march(thread Ray *r, float t) { r->o += r->d * t; (*r).d.x = 0; }
        float total(thread const float *a, int n) { float s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
        float f(float x) {
            float y = x; bump(&y);
            Ray ray = { float3(0), float3(1) }; march(&ray, 2);
            float arr[3] = { 1, 2, 3 }; bump(&arr[1]);
            return y + ray.o.x + total(arr, 3) + total(&arr[1], 2);
        }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        func error(_ body: String, helpers: String = "void bump(thread float *v) { *v += 1; }") -> String? {
            H.errors(H.check(helpers + "\nconstant float k = 1;\nfloat f(float x) { float v = x; float3 w = 0; \(body) return v; }").diagnostics).first
        }
        #expect(error("", helpers: "void bump(thread const float *v) { *v = 1; }")
                == "cannot assign through 'v': it points to const ('thread const float *')")
        #expect(error("bump(&w.y);") == "address of vector element requested")
        #expect(error("bump(&k);") == "not supported: pointers to program-scope constant data")
        #expect(error("bump(&(v + 1));") == "cannot take the address of an rvalue of type 'float'")
        #expect(error("bump(&v + 1);")?.hasPrefix("invalid operands to binary expression ('thread float *'") == true)
        #expect(error("thread float *p = &v;") == "not supported: local pointers and references")
        #expect(error("v = *v;") == "indirection requires pointer operand ('float' invalid)")
        #expect(error("bump(v);")?.hasPrefix("no matching function for call to 'bump'") == true)
    }

    @Test func directAndMutualRecursionAreErrorsAtTheClosingCall() {
        let direct = H.check("float fib(int n) {\n return n < 2 ? 1 : fib(n - 1) + fib(n - 2);\n}")
        let errors = direct.diagnostics.filter { $0.severity == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("recursi") == true)
        #expect(errors.first?.range.start.line == 2)
        let mutual = H.check("""
        float b(float x);
        float a(float x) { return b(x); }
        float b(float x) {
            return a(x);
        }
        """)
        let mutualErrors = mutual.diagnostics.filter { $0.severity == .error }
        #expect(mutualErrors.count == 1)
        #expect(mutualErrors.first?.range.start.line == 4)
        #expect(mutualErrors.first?.message.contains("recursi") == true)
    }

    @Test func longerCyclesThroughPrototypes() {
        let r = H.check("""
        float c(float x);
        float a(float x) { return x; }
        float b(float x) { return c(x) + a(x); }
        float c(float x) { return b(x); }
        float d(float x) { return b(x) + c(x); }
        """)
        let errors = r.diagnostics.filter { $0.severity == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.range.start.line == 4)
    }

    @Test func localVariablesShadowBuiltins() {
        let r = H.checkFunction("float distance = length(v); float length = distance * 2; return length;")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let call = H.checkFunction("float length = 1; return length(v);")
        #expect(H.errors(call.diagnostics).first?.contains("not a function") == true)
    }

    @Test func builtinOverloadsWithMixedShapes() {
        let r = H.checkFunction("""
        float2 a = max(v, 0.0);
        float2 b = clamp(v, 0, 1);
        float c = clamp(x, 0, 1);
        half4 d = mix(h, h, half(0.5));
        float2 e = step(0.5, v);
        float2 s = smoothstep(0.0, 1.0, v);
        half m = max3(h.r, h.g, h.b);
        int i = abs(-3) + min(2, 3);
        float3 cr = cross(float3(1, 0, 0), float3(0, 1, 0));
        bool n = any(isnan(v)) || all(v > 0);
        float2 sel = select(v, float2(0), v > 1);
        float det = determinant(float2x2(1)) + transpose(float3x2(1))[0][1];
        float ip;
        float fr = modf(x, ip);
        return metal::fma(x, x, x) + length_squared(v) + distance_squared(v, v) + powr(x, 2) + rsqrt(x) + sign(x) + saturate(x);
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.initializer(r.program, of: "a") == "max<float2>(v, 0.0:float)")
        #expect(H.initializer(r.program, of: "b") == "clamp<float2>(v, 0.0:float, 1.0:float)")
        #expect(H.initializer(r.program, of: "c") == "clamp<float>(x, 0.0:float, 1.0:float)")
        #expect(H.initializer(r.program, of: "i") == "add<int>(abs<int>(-3:int), min<int>(2:int, 3:int))")
        #expect(H.initializer(r.program, of: "fr") == "modf<float>(x, ip)")
    }

    @Test func mathNamespacesAndAliases() {
        let r = H.checkFunction("return fast::sin(x) + metal::precise::cos(x) + fmax3(x, 1, 2) + fmin3(x, x, x);")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.returned(r.program)?.contains("max3<float>(x, 1.0:float, 2.0:float)") == true)
    }

    @Test func builtinMismatchesReportAtTheCallee() {
        let r = H.checkFunction("float k = smoothstep(0.5, x);\nreturn k;")
        let error = r.diagnostics.first { $0.severity == .error }
        #expect(error?.message.hasPrefix("no matching function for call to 'smoothstep'") == true)
        #expect(error?.range.start.column == 11)
        #expect(error?.notes.first?.message.contains("requires 3 arguments, but 2 were provided") == true)
        let types = H.checkFunction("return dot(v, h.xy);")
        #expect(H.errors(types.diagnostics).first?.contains("no matching function for call to 'dot'") == true)
        let modf = H.checkFunction("return modf(x, 1.0);")
        #expect(H.errors(modf.diagnostics).count == 1)
    }

    @Test func unsupportedFunctions() {
        // Derivatives are supported since the renderer runs 2×2 quads (DerivativeTests);
        // barriers stay outside the subset and say so.
        let r = H.checkFunction("threadgroup_barrier(1); return x;")
        #expect(H.errors(r.diagnostics) == ["not supported: threadgroup barriers"])
        let derivative = H.checkFunction("return dfdx(x) + fwidth_coarse(x);")
        #expect(H.errors(derivative.diagnostics).isEmpty)
        let undeclared = H.checkFunction("return smoothstepp(0.0, 1.0, x);")
        #expect(H.errors(undeclared.diagnostics).first == "use of undeclared identifier 'smoothstepp'; did you mean 'smoothstep'?")
    }

    /// The ranking the process keeps per builtin and argument signature is what ranking each
    /// overload with `Checker.conversionCost` gives: the cheapest (worst, total) cost, the
    /// first overload with it, and how many tie — asked twice, so the kept answer is checked too.
    @Test func keptRankingsAreTheCandidateScan() {
        let types: [KType] = ScalarKind.allCases.flatMap { kind in [KType.scalar(kind)] + (2...4).map { KType.vector(kind, $0) } }
        var random = SeededRandom(seed: 42_4)
        for builtin in Builtin.allCases {
            for _ in 0..<40 {
                let arguments = (0..<Int(1 + random.next() % 3)).map { _ in types[Int(random.next() % UInt64(types.count))] }
                let signature = ScalarShapeCode.signature(of: arguments)!
                for _ in 0..<2 {
                    let (overloads, ranking) = BuiltinOverloads.overloads(named: builtin.rawValue, rankedFor: signature)
                    guard let ranking else {
                        #expect(overloads.contains { $0.shapes == nil }, "\(builtin)")
                        continue
                    }
                    var best = (Int.max, Int.max), first = -1, ties = 0
                    for (index, overload) in overloads.enumerated() where overload.parameters.count == arguments.count {
                        let costs = zip(arguments, overload.parameters).map { Checker.conversionCost(from: $0, to: $1) }
                        guard !costs.contains(nil) else { continue }
                        let cost = (costs.map { $0! }.max()!, costs.map { $0! }.reduce(0, +))
                        if cost < best { (best, first, ties) = (cost, index, 1) } else if cost == best { ties += 1 }
                    }
                    #expect(ranking.ties == ties && (ties == 0 || (ranking.cost == best && ranking.first == first)),
                            "\(builtin) \(arguments)")
                }
            }
        }
    }

    @Test func everyBuiltinHasOverloads() {
        for builtin in Builtin.allCases {
            #expect(!BuiltinOverloads.overloads(named: builtin.rawValue).isEmpty, "\(builtin)")
        }
    }
}
