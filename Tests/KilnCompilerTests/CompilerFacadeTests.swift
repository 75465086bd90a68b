import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing

/// The façade: translation units, merging, provenance, limits, bindings.
@Suite struct CompilerFacadeTests {
    @Test func registerLimitIsANamedError() throws {
        // 40 live values at once cannot fit in 16 registers.
        var body = ""
        for i in 0..<40 { body += "float v\(i) = position.x * \(i + 2).0;\n" }
        body += "float s = 0;\n"
        for i in 0..<40 { body += "s += v\(i) * v\((i + 1) % 40);\n" }
        body += "return half4(s);"
        var options = CompileOptions()
        options.libraryLimits.maxRegisters = 16
        let result = Compiler.compile([SourceFile(name: "big.metal", text: colorEffect(body))], options: options)
        #expect(result.library == nil)
        let message = try #require(result.diagnostics.first { $0.severity == .error }?.message)
        #expect(message.contains("LibraryLimits.maxRegisters"), "\(message)")
        #expect(message.contains("16"))
        // With the default limit the same shader compiles.
        #expect(compileLibrary(colorEffect(body)) != nil)
    }

    @Test func hugeArraysAreRejectedBeforeLowering() throws {
        let result = Compiler.compile([SourceFile(name: "huge.metal", text: colorEffect("""
            float big[20000];
            big[int(position.x)] = 1;
            return half4(big[3]);
        """))])
        #expect(result.library == nil)
        #expect(result.diagnostics.contains { $0.message.contains("LibraryLimits.maxRegisters") }, "\(result.diagnostics.map(\.message))")
    }

    @Test func deepNestingDoesNotCrash() throws {
        var expression = "position.x"
        for _ in 0..<200 { expression = "(\(expression) + 1.0)" }
        var body = "float v = \(expression);\n"
        for _ in 0..<60 { body += "if (v > position.y) { v = v * 0.5;\n" }
        body += String(repeating: "}\n", count: 60)
        body += "return half4(v);"
        let result = Compiler.compile([SourceFile(name: "deep.metal", text: colorEffect(body))])
        if let library = result.library { try Verifier.verify(library) }
    }

    @Test func headersAreIncludedNotCompiled() throws {
        let header = SourceFile(name: "common.h", text: "static float twice(float x) { return x * 2.0; }\n")
        let a = SourceFile(name: "a.metal", text: """
            #include "common.h"
            [[ stitchable ]] float2 first(float2 position) { return float2(twice(position.x), position.y); }
            """)
        let b = SourceFile(name: "b.metal", text: """
            #include "common.h"
            [[ stitchable ]] float2 second(float2 position) { return position * 0.5; }
            """)
        let result = Compiler.compile([header, a, b])
        #expect(result.diagnostics.filter { $0.severity == .error }.isEmpty, "\(result.diagnostics.map(\.message))")
        let library = try #require(result.library)
        try Verifier.verify(library)
        #expect(library.functions.map(\.name) == ["first", "second"])
        #expect(library.sources.map(\.name) == ["common.h", "a.metal", "b.metal"])
        #expect(library.sources.allSatisfy { $0.sha256.count == 32 })
        #expect(library.compilerVersion == CompilerVersion.string)
        // Functions of the second unit have their code after the first's.
        #expect(library.functions[1].prologue.lowerBound >= library.functions[0].body.upperBound)
    }

    @Test func duplicateEntryAcrossUnitsIsAnError() {
        let a = SourceFile(name: "a.metal", text: "[[ stitchable ]] float2 same(float2 position) { return position; }\n")
        let b = SourceFile(name: "b.metal", text: "[[ stitchable ]] float2 same(float2 position) { return position * 2.0; }\n")
        let result = Compiler.compile([a, b])
        #expect(result.library == nil)
        #expect(result.diagnostics.contains { $0.severity == .error && $0.message.contains("duplicate") && $0.message.contains("same") })
    }

    @Test func sha256MatchesKnownDigest() throws {
        let library = try #require(compileLibrary("[[ stitchable ]] float2 f(float2 position) { return position; }", name: "x.metal"))
        // SHA-256 of the empty string is well known; of this text, check against a second hash.
        #expect(SHA256Digest.hex(SHA256Digest.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let text = "[[ stitchable ]] float2 f(float2 position) { return position; }"
        #expect(library.sources[0].sha256 == SHA256Digest.hash(Array(text.utf8)))
    }

    @Test func userArgumentBindings() throws {
        let library = try #require(compileLibrary("""
            #include <metal_stdlib>
            #include <SwiftUI/SwiftUI_Metal.h>
            using namespace metal;
            /// @arg strength 0...2 = 1 "how much"
            [[ stitchable ]] half4 blur(float2 position, SwiftUI::Layer layer, float strength,
                                        device const float *weights, int count, half4 tint, texture2d<half> image) {
                half4 acc = 0;
                for (int i = 0; i < count; i++) { acc += layer.sample(position + float2(i, 0)) * half(weights[i]); }
                return acc * tint * half(strength) + image.read(uint2(position));
            }
            """))
        let f = try #require(library.function(named: "blur"))
        #expect(f.kind == .layer)
        let bindings = f.parameters.map(\.binding)
        #expect(bindings == [.position, .layer, .uniform(word: 0), .buffer(slot: 0, countWord: 1),
                             .uniform(word: 1), .uniform(word: 2), .texture(slot: 1)])
        #expect(f.uniformWordCount == 6)
        #expect(f.bufferCount == 1)
        #expect(f.textureCount == 2)
        #expect(f.parameters[2].annotation == ArgumentAnnotation(minimum: 0, maximum: 2, defaultValue: [1], help: "how much"))
        #expect(f.parameters[3].typeName == "device const float *")
        #expect(f.parameters[3].valueType == ValueType(.float))
        #expect(f.parameters[5].valueType == ValueType(.half, rows: 4))
        #expect(f.inputs.map(\.name) == ["position"])
        #expect(f.outputs.map(\.name) == ["result"])
        #expect(f.outputs[0].type == ValueType(.half, rows: 4))
        // The loop bound is a uniform argument: jump-based loop, no lane masks.
        let body = library.opcodes(f.body)
        #expect(body.contains("jnz") && !body.contains("jany"))
        #expect(body.contains("ldb") && body.contains("sample") && body.contains("texread"))
    }

    @Test func fragmentBindingsAndDiscard() throws {
        let library = try #require(compileLibrary("""
            #include <metal_stdlib>
            using namespace metal;
            struct VertexOut { float4 position [[position]]; float2 uv; };
            constexpr sampler s(address::repeat, filter::nearest);
            fragment float4 iris(VertexOut in [[stage_in]], texture2d<float> a [[texture(1)]],
                                 constant float &t [[buffer(0)]]) {
                if (length(in.uv - 0.5) > t) discard_fragment();
                return a.sample(s, in.uv);
            }
            """))
        let f = try #require(library.function(named: "iris"))
        #expect(f.kind == .fragment)
        #expect(f.inputs.map(\.name) == ["position", "uv"])
        #expect(f.inputs.map(\.attribute) == ["position", ""])
        #expect(f.parameters.map(\.binding) == [.stageIn, .texture(slot: 1), .uniform(word: 0)])
        #expect(f.textureCount == 2)
        let discard = try #require(f.discardRegister)
        #expect(discard >= f.uniformRegisterCount && discard < f.registerCount)
        let sample = try #require(library.code[Int(f.body.lowerBound)..<Int(f.body.upperBound)].first { $0.opcode == .sample })
        #expect(SampleMode(rawValue: sample.mode) == SampleMode(normalized: true, linear: false, address: .repeat))
        #expect(sample.imm == 1)
    }

    @Test func debugLocationsFollowStatements() throws {
        let source = colorEffect("""
            float a = position.x * 3.0;
            float b = a + position.y;
            return half4(b);
        """)
        let library = try #require(compileLibrary(source))
        let f = try #require(library.function(named: "effect"))
        let lines = (Int(f.body.lowerBound)..<Int(f.body.upperBound)).compactMap { library.location(ofInstruction: $0)?.line }
        #expect(lines.first == 4)
        #expect(lines.contains(5))
        #expect(lines == lines.sorted())
    }
}
