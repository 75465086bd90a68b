import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing

/// Bugs the differential oracle (`KilnIntegrationTests/DifferentialTests`) found, pinned
/// down by the shape of the code they now compile to. The same programs run through the
/// VM in `KilnIntegrationTests/CompilerRegressionTests`.
@Suite struct CompilerRegressionTests {
    /// A divergent `return` followed by a `break`/`continue` in a loop with uniform control:
    /// the jump to the exit (or the step) carries no mask, so the lanes that returned used
    /// to run on after the loop. Such a loop must be lowered masked (`jany` back edge).
    @Test(arguments: ["break;", "continue;"])
    func retirementBeforeBreakOrContinueMakesTheLoopMasked(_ exit: String) throws {
        let library = try #require(compileLibrary(colorEffect("""
            float f0 = 1.0;
            for (int j = 0; j < 7; j++) {
                if (position.y > 3.0) return half4(f0, 0, 0, 1);
                f0 += 1.0;
                \(exit)
            }
            return half4(f0, 1, 0, 1);
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.contains("jany"), "\(body)")
        #expect(!body.contains("jnz"), "\(body)")
    }

    /// A `break` with the loop's own mask still jumps: the loop stays uniform.
    @Test func plainBreakKeepsTheLoopUniform() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float f0 = 1.0;
            for (int j = 0; j < 7; j++) {
                if (amount > 3.0) break;
                f0 += 1.0;
            }
            return half4(f0);
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(!body.contains("jany") && body.contains("jnz"), "\(body)")
    }

    /// `v = v.yx` under a divergent `if` writes the homes with one `sel` per component; the
    /// second `sel` used to read the first one's result (`v` became `(y, y)`). No `sel` may
    /// read as its value a register an earlier `sel` wrote.
    @Test(arguments: ["v = v.yx;", "w.xz = float2(-w.z, w.x);", "w = float4(1.0, 2.0, position.y, w.z);"])
    func assignmentReadingItsOwnTargetCopiesFirst(_ statement: String) throws {
        let library = try #require(compileLibrary(colorEffect("""
            float2 v = position;
            float4 w = float4(position, amount, offset.x);
            if (position.x > position.y) { \(statement) }
            return half4(v.x, v.y, w.x + w.y, w.z + w.w);
        """)))
        let f = try #require(library.function(named: "effect"))
        var written = Set<UInt16>()
        for instruction in library.code[Int(f.body.lowerBound)..<Int(f.body.upperBound)] where instruction.opcode == .sel {
            #expect(!written.contains(instruction.c), "a sel reads r\(instruction.c), written by an earlier sel")
            written.insert(instruction.a)
        }
        #expect(!written.isEmpty)
    }

    static func limitError(_ source: String, _ options: CompileOptions) -> String? {
        let result = Compiler.compile([SourceFile(name: "limit.metal", text: source)], options: options)
        guard result.library == nil else { return nil }
        return result.diagnostics.first { $0.severity == .error }?.message
    }

    /// Uniform words, buffer and texture slots and parameters are checked at compile time
    /// with an error naming the `LibraryLimits` setting (the verifier's message names only
    /// counts, and a library the reader would refuse must not come out of the compiler).
    @Test func slotLimitsAreNamedErrors() throws {
        var options = CompileOptions()
        options.libraryLimits.maxUniformWords = 4
        // color effect: `color` is a lane input; float4 + float = 5 words.
        let words = try #require(Self.limitError(colorEffect("return half4(c * t);", arguments: "float4 c, float t"), options))
        #expect(words.contains("LibraryLimits.maxUniformWords"), "\(words)")

        options = CompileOptions()
        options.libraryLimits.maxBuffers = 0
        let buffers = try #require(Self.limitError(colorEffect("return half4(count > 0 ? values[0] : 0.0);",
                                                               arguments: "device const float *values, int count"), options))
        #expect(buffers.contains("LibraryLimits.maxBuffers"), "\(buffers)")

        options = CompileOptions()
        options.libraryLimits.maxTextures = 1
        let textures = try #require(Self.limitError("""
            #include <metal_stdlib>
            using namespace metal;
            constexpr sampler s(filter::nearest);
            struct VertexOut { float4 position [[position]]; float2 uv; };
            fragment float4 two(VertexOut in [[stage_in]], texture2d<float> a [[texture(1)]]) { return a.sample(s, in.uv); }
            """, options))
        #expect(textures.contains("LibraryLimits.maxTextures"), "\(textures)")

        // The reader refuses more parameters than `maxParameters`; the compiler says so first.
        options = CompileOptions()
        options.libraryLimits.maxParameters = 3
        let parameters = try #require(Self.limitError(colorEffect("return half4(p + q);", arguments: "float p, float q"), options))
        #expect(parameters.contains("LibraryLimits.maxParameters"), "\(parameters)")

        // Exactly at the limits compiles.
        options = CompileOptions()
        options.libraryLimits.maxUniformWords = 5
        #expect(compileLibrary(colorEffect("return half4(c * t);", arguments: "float4 c, float t"), options: options) != nil)
    }

    /// 40 helpers that each call the previous one twice: 2^40 inlined calls. Lowering must
    /// stop at `CompileOptions.maxInlinedCalls` with a named error, not run for hours.
    @Test func inliningBombStopsAtTheInlineLimit() throws {
        var bomb = "float h0(float x) { return x * 1.5 + 1.0; }\n"
        for i in 1...40 { bomb += "float h\(i)(float x) { return h\(i - 1)(x) + h\(i - 1)(x + 1.0); }\n" }
        var options = CompileOptions()
        options.maxInlinedCalls = 4096
        let message = try #require(Self.limitError(bomb + colorEffect("return half4(h40(amount));"), options))
        #expect(message.contains("CompileOptions.maxInlinedCalls"), "\(message)")
        // 2^6 - 1 calls fit.
        #expect(compileLibrary(bomb + colorEffect("return half4(h5(amount));"), options: options) != nil)
    }

    /// A slot number at the top of `UInt32` must not overflow counting slots.
    @Test func hugeBufferSlotIsALimitErrorNotATrap() throws {
        let source = """
            #include <metal_stdlib>
            using namespace metal;
            struct VertexOut { float4 position [[position]]; float2 uv; };
            fragment float4 big(VertexOut in [[stage_in]], constant float *v [[buffer(4294967295)]]) { return float4(v[0]); }
            """
        let result = Compiler.compile([SourceFile(name: "slot.metal", text: source)])
        #expect(result.library == nil)
        let messages = result.diagnostics.filter { $0.severity == .error }.map(\.message)
        #expect(!messages.isEmpty)
    }
}
