import Testing
@testable import KilnLanguage

/// language.md §2: type spellings, aliases, globals, structs, enums, arrays.
@Suite struct CheckerDeclarationTests {
    typealias H = CheckerHarness

    @Test func typeSpellingsResolve() throws {
        let r = H.check("""
        using vec2f = float2;
        typedef half4 color_t;
        struct S { float x; };
        typedef S Alias;
        float f(vec2f a, color_t b, vector_float3 c, simd_float4 d, packed_float2 e, vec<float, 3> g, metal::float2x3 m,
                array<int, 2> arr, Alias s, simd::uint u, short sh, ushort us, bool2 bb, simd_float3x3 n, matrix_half2x2 h) { return 0; }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let types = try #require(r.program?.functions.first?.parameters.map(\.type))
        #expect(types == [
            .vector(.float, 2), .vector(.half, 4), .vector(.float, 3), .vector(.float, 4), .vector(.float, 2), .vector(.float, 3),
            .matrix(.float, columns: 2, rows: 3), .array(.int, 2), .structure(0), .uint, .scalar(.short), .scalar(.ushort),
            .vector(.bool, 2), .matrix(.float, columns: 3, rows: 3), .matrix(.half, columns: 2, rows: 2),
        ])
    }

    /// `TypeResolver.builtinType(named:)` reads a type off its spelling; this is the table of
    /// every spelling it must know (the one it replaced), and names it must not.
    @Test func builtinTypeSpellingsAreExactlyTheTable() {
        var table: [String: KType] = ["void": .void, "sampler": .sampler, "unsigned": .uint, "unsigned int": .uint,
                                      "int32_t": .int, "uint32_t": .uint, "int16_t": .scalar(.short),
                                      "uint16_t": .scalar(.ushort), "unsigned short": .scalar(.ushort),
                                      "int8_t": .scalar(.char), "uint8_t": .scalar(.uchar), "signed char": .scalar(.char),
                                      "unsigned char": .scalar(.uchar)]
        for kind in ScalarKind.allCases {
            table[kind.rawValue] = .scalar(kind)
            for n in 2...4 {
                for prefix in ["", "vector_", "simd_", "packed_"] { table["\(prefix)\(kind.rawValue)\(n)"] = .vector(kind, n) }
            }
        }
        for kind in [ScalarKind.float, .half] {
            for c in 2...4 {
                for r in 2...4 {
                    for prefix in ["", "simd_", "matrix_"] {
                        table["\(prefix)\(kind.rawValue)\(c)x\(r)"] = .matrix(kind, columns: c, rows: r)
                    }
                }
            }
        }
        #expect(table.count == 184)
        for (name, type) in table { #expect(TypeResolver.builtinType(named: name) == type, "\(name)") }
        let misses = ["", "x", "float1", "float5", "float22", "float2x", "float2x5", "float5x2", "int2x2", "bool3x3",
                      "vector_float", "simd_float", "packed_float", "matrix_float", "matrix_float2", "packed_float2x2",
                      "vector_float2x2", "simd_", "vector_", "Float2", "float2 ", "double", "double2", "long", "unsigned long",
                      "signed", "signed int", "texture2d", "simd_simd_float2", "floatx2", "half4x4x4", "2", "x2x2"]
        for name in misses { #expect(TypeResolver.builtinType(named: name) == nil, "\(name)") }
    }

    @Test func unknownAndUnsupportedTypes() {
        #expect(H.errors(H.check("flaot f() { return 0; }").diagnostics) == ["unknown type name 'flaot'"])
        #expect(H.errors(H.check("double f() { return 0; }").diagnostics).first?.hasPrefix("not supported") == true)
        #expect(H.errors(H.check("float f(texture3d<float> t) { return 0; }").diagnostics).first?.hasPrefix("not supported") == true)
        #expect(H.errors(H.check("float f(texture2d<float, access::sample_write> t) { return 0; }").diagnostics).first?
            .hasPrefix("unknown texture access 'sample_write'") == true)
    }

    @Test func globalsAreConstantsWithConvertedInitializers() throws {
        let r = H.check("""
        constant float kTwoPi = 6.28318530718;
        constant int N = 4;
        constant half3 kLuma = half3(0.2126h, 0.7152h, 0.0722h);
        constant float kTable[N] = { 1, 2, 3, 4 };
        constant float3 kBalls[2] = { float3(1), float3(2) };
        constant int M = N * 2 + 1;
        float f() { return kTwoPi + kTable[M - 6] + float(kLuma.x); }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let globals = try #require(r.program?.globals)
        #expect(globals.map(\.name) == ["kTwoPi", "N", "kLuma", "kTable", "kBalls", "M"])
        #expect(globals[3].type == .array(.float, 4))
        #expect(globals[3].initializer.map { H.dump($0, r.program!.functions[0]) } == "float[4](1.0:float, 2.0:float, 3.0:float, 4.0:float)")
        #expect(globals[0].initializer.map { H.dump($0, r.program!.functions[0]) } == "6.2831855:float")
    }

    @Test func globalErrors() {
        #expect(H.errors(H.check("float g = 1;").diagnostics).first?.contains("constant address space") == true)
        #expect(H.errors(H.check("constant float g;").diagnostics).first?.contains("default initialization") == true)
        #expect(H.errors(H.check("constant float g = 1;\nconstant float g = 2;").diagnostics) == ["redefinition of 'g'"])
        #expect(H.errors(H.check("constant half4 g = float4(1);").diagnostics).count == 1)
    }

    @Test func structsEnumsAndArraySizesFromMacros() throws {
        let r = H.check("""
        #define COUNT 3
        enum Mode { A, B };
        struct P { float2 at [[attribute(0)]]; float weights[COUNT]; Mode m; };
        float f(P p) { return p.weights[COUNT - 1] + float(p.m == B); }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let s = try #require(r.program?.structs.first)
        #expect(s.fields.map(\.type) == [.vector(.float, 2), .array(.float, 3), .int])
        #expect(s.fields[0].attributes == ["attribute(0)"])
    }

    @Test func structErrors() {
        #expect(H.errors(H.check("struct S { float a; int a; };").diagnostics).first?.contains("duplicate member") == true)
        #expect(H.errors(H.check("struct S { texture2d<float> t; };").diagnostics).first?.hasPrefix("not supported") == true)
        #expect(H.errors(H.check("struct S { float a; };\nstruct S { float b; };").diagnostics) == ["redefinition of 'S'"])
    }

    @Test func arraySizeErrors() {
        #expect(H.errors(H.check("constant float a[0] = {};").diagnostics).count == 1)
        #expect(H.errors(H.check("constant float a[-1] = {1};").diagnostics).count == 1)
        #expect(H.errors(H.check("constant float a[1.5] = {1};").diagnostics).first?.contains("not an integer constant") == true)
        #expect(H.errors(H.check("float f() { float a[1 << 20][1 << 10]; return 0; }").diagnostics).first?.contains("too large") == true)
    }

    @Test func enumValuesMayReferEarlierCases() throws {
        let r = H.check("enum class E { a = 2, b = a * 3, c };\nint f() { return E::b + E::c; }")
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        #expect(H.returned(r.program) == "13:int")
        #expect(H.errors(H.check("enum E { a, a };").diagnostics).count == 1)
        #expect(H.errors(H.check("enum E { a };\nint f() { return E::z; }").diagnostics) == ["no member named 'z' in enum 'E'"])
    }

    @Test func bodiesSeeOnlyNamesDeclaredAboveThem() {
        let r = H.check("""
        float f() { S s; return K + float(A) + float(E::b); }
        struct S { float x; };
        constant float K = 1;
        enum Mode { A };
        enum class E { b };
        float g() { S s; return K + float(A) + float(E::b); }
        """)
        let errors = r.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.message) == ["unknown type name 'S'", "use of undeclared identifier 'K'",
                                          "use of undeclared identifier 'A'", "use of undeclared identifier 'E'"])
        #expect(errors.allSatisfy { $0.range.start.line == 1 && $0.notes.first?.message.contains("declared later") == true })
    }

    @Test func templatesAreNotSupported() {
        let r = H.check("template <typename T> T sq(T x) { return x * x; }")
        #expect(H.errors(r.diagnostics).first?.contains("not supported") == true)
        #expect(r.program == nil)
    }
}
