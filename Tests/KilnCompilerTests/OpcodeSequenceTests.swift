import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing

/// Lua-style tests: small snippets and the exact opcodes they compile to.
@Suite struct OpcodeSequenceTests {
    @Test func straightLineCodeHasNoMasks() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float2 p = position * 2.0 + offset;
            return half4(color.rgb * half(p.x), color.a);
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(!body.contains("sel") && !body.contains("jnone") && !body.contains("and"))
        // p.y is dead; p.x = position.x * 2 + offset.x; three multiplies straight into the
        // output registers; alpha is copied from the input.
        #expect(body == ["fmul", "fadd", "fmul", "fmul", "fmul", "mov", "ret"], "\(body)")
    }

    /// After a divergent early `return`, the rest of the entry's body is skipped by a batch
    /// whose lanes all returned — when the rest is worth a `jnone` (a texture read, a loop,
    /// a call, many operations); two moves and an add are not.
    @Test func costlyCodeAfterAnEarlyReturnIsSkippable() throws {
        let costly = try #require(compileLibrary("""
            #include <metal_stdlib>
            using namespace metal;
            fragment float4 f(float4 p [[position]], texture2d<float> t [[texture(0)]], sampler s [[sampler(0)]]) {
                if (p.y < 10.0) return float4(1.0);
                return t.sample(s, p.xy * 0.01);
            }
            """))
        let body = costly.opcodes(try #require(costly.function(named: "f")).body)
        // The `if` arm's own `jnone`, then the guard right before the rest.
        #expect(body.filter { $0 == "jnone" }.count == 2, "\(body)")
        let guardIndex = try #require(body.lastIndex(of: "jnone"), "\(body)")
        #expect(body[(guardIndex + 1)...].contains("sample") && !body[..<guardIndex].contains("sample"), "\(body)")

        // The same inside an inlined helper: its rest skips to the helper's end.
        let helper = try #require(compileLibrary("""
            #include <metal_stdlib>
            using namespace metal;
            static float4 shade(float2 uv, texture2d<float> t, sampler s) {
                if (uv.y < 0.1) return float4(1.0);
                return t.sample(s, uv);
            }
            fragment float4 f(float4 p [[position]], texture2d<float> t [[texture(0)]], sampler s [[sampler(0)]]) {
                return shade(p.xy * 0.01, t, s) * 0.5;
            }
            """))
        let helperBody = helper.opcodes(try #require(helper.function(named: "f")).body)
        #expect(helperBody.filter { $0 == "jnone" }.count == 2, "\(helperBody)")

        let cheap = try #require(compileLibrary(colorEffect("""
            if (position.x < amount) return color;
            return color + half4(0.25);
        """)))
        let cheapBody = cheap.opcodes(try #require(cheap.function(named: "effect")).body)
        #expect(cheapBody.filter { $0 == "jnone" }.count == 1, "\(cheapBody)")
    }

    @Test func constantsAndArgumentMathLandInThePrologue() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float k = cos(amount) * 2.0;
            return color * half(k);
        """)))
        let f = try #require(library.function(named: "effect"))
        #expect(library.opcodes(f.prologue) == ["arg", "fcos", "const", "fmul", "ret"])
        #expect(library.opcodes(f.body) == ["fmul", "fmul", "fmul", "fmul", "ret"])
        #expect(f.uniformRegisterCount >= 1)
        // The body reads the hoisted product and never writes a uniform register.
        for instruction in library.code[Int(f.body.lowerBound)..<Int(f.body.upperBound)] where instruction.opcode != .ret {
            #expect(instruction.a >= f.uniformRegisterCount)
        }
    }

    @Test func constantFoldingIsExact() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float k = 0.1 + 0.2;
            return half4(k);
        """)))
        let f = try #require(library.function(named: "effect"))
        #expect(library.opcodes(f.prologue) == ["const", "ret"])
        let constant = library.code[Int(f.prologue.lowerBound)].imm
        #expect(library.constants[Int(constant)] == (Float(0.1) + Float(0.2)).bitPattern)
    }

    /// Plain and `fast::` calls are the binary32 opcodes; `precise::` (also spelled
    /// `metal::precise::`) the binary64 ones, where there are two; other functions have one.
    @Test func preciseNamespaceSelectsTheBinary64Opcodes() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float a = sin(amount) + fast::cos(amount) + metal::exp(amount) + exp2(amount) + tan(amount) + sinh(amount)
                + cosh(amount) + tanh(amount)
                + asin(amount) + acos(amount) + atan(amount) + atan2(amount, 2.0) + log(amount)
                + log2(amount) + fast::log10(amount) + pow(amount, 3.0) + powr(amount, 5.0);
            float b = precise::sin(amount) + metal::precise::cos(amount) + precise::exp(amount)
                + precise::exp2(amount) + precise::tan(amount) + precise::atan(amount) + precise::asin(amount)
                + precise::acos(amount) + precise::atan2(amount, 2.0) + precise::log(amount)
                + metal::precise::log2(amount) + precise::log10(amount) + precise::pow(amount, 3.0)
                + precise::powr(amount, 5.0) + precise::sinh(amount) + precise::cosh(amount) + precise::tanh(amount);
            return color * half(a + b);
        """)))
        let f = try #require(library.function(named: "effect"))
        let ops = library.opcodes(f.prologue)
        for op in ["fsin", "fcos", "fexp", "fexp2", "ftan", "psin", "pcos", "pexp", "pexp2", "ptan",
                   "fasin", "facos", "fatan", "fatan2", "flog", "flog2", "flog10",
                   "pasin", "pacos", "patan", "patan2", "plog", "plog2", "plog10", "fsinh", "fcosh", "ftanh",
                   "psinh", "pcosh", "ptanh"] {
            #expect(ops.filter { $0 == op }.count == 1, "\(op) in \(ops)")
        }
        #expect(ops.filter { $0 == "fpow" }.count == 2 && ops.filter { $0 == "ppow" }.count == 2, "\(ops)")
    }

    @Test func transcendentalsOfConstantsAreNotFolded() throws {
        let library = try #require(compileLibrary(colorEffect("return half4(sin(1.0));")))
        let f = try #require(library.function(named: "effect"))
        #expect(library.opcodes(f.prologue) == ["const", "fsin", "ret"])
    }

    @Test func uniformIfUsesJumps() throws {
        let library = try #require(compileLibrary(colorEffect("""
            half4 c = color;
            if (amount > 0.5) {
                c.r = 1.0h;
            }
            return c;
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.contains("jz"))
        #expect(!body.contains("jnone") && !body.contains("sel"))
        #expect(library.opcodes(f.prologue).contains("flt"))
    }

    @Test func divergentIfUsesMasks() throws {
        let library = try #require(compileLibrary(colorEffect("""
            half4 c = color;
            if (position.x > 10.0) {
                c.r = 1.0h;
            }
            return c;
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.contains("jnone"))
        #expect(body.contains("sel"))
        #expect(!body.contains("jz"))
    }

    @Test func divergentReturnRetiresLanes() throws {
        let library = try #require(compileLibrary(colorEffect("""
            if (position.x > 10.0) {
                return half4(1.0h);
            }
            return color;
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.contains("jnone"))
        #expect(body.filter { $0 == "sel" }.count == 8)
    }

    @Test func uniformLoopHasJnzBackEdge() throws {
        let library = try #require(compileLibrary(colorEffect("""
            half4 acc = 0;
            for (int i = 0; i < 40; i++) {     // above the unrolling limit (16 iterations)
                acc += color * half(i);
            }
            return acc;
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.contains("jnz"))
        #expect(!body.contains("jany") && !body.contains("sel"))
        try expectBackEdgesCharged(library, f)
    }

    @Test func divergentLoopHasJanyBackEdge() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float x = position.x;
            int n = 0;
            while (x > 1.0) {
                x = x * 0.5;
                n++;
            }
            return half4(half(n));
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.contains("jany"))
        #expect(body.contains("sel"))
        try expectBackEdgesCharged(library, f)
    }

    @Test func switchLowersToCompareChain() throws {
        let library = try #require(compileLibrary(colorEffect("""
            int band = int(position.x) % 3;
            half4 c = color;
            switch (band) {
                case 0: c.r = 0; break;
                case 1: c.g = 0;
                default: c.b = 0; break;
            }
            return c;
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.filter { $0 == "ieq" }.count == 2)
        #expect(body.contains("jnone"))
    }

    @Test func helperCallsAreInlined() throws {
        let library = try #require(compileLibrary("""
            #include <metal_stdlib>
            using namespace metal;
            static float twice(float x) { return x * 2.0; }
            [[ stitchable ]] float2 warp(float2 position, float amount) {
                return float2(twice(position.x), twice(amount));
            }
            """))
        let f = try #require(library.function(named: "warp"))
        #expect(library.opcodes(f.prologue) == ["arg", "const", "fmul", "ret"])
        #expect(library.opcodes(f.body) == ["fmul", "mov", "ret"])
    }

    @Test func constantArraysUseLdk() throws {
        let library = try #require(compileLibrary("""
            #include <metal_stdlib>
            using namespace metal;
            constant float kTable[4] = { 0.5, 0.25, 0.75, 1.0 };
            [[ stitchable ]] half4 effect(float2 position, half4 color) {
                int i = int(position.x) & 3;
                return color * half(kTable[i]);
            }
            """))
        let f = try #require(library.function(named: "effect"))
        #expect(library.opcodes(f.body).contains("ldk"))
        #expect(library.opcodes(f.prologue).count <= 3)
    }

    @Test func constLocalTablesUseLdkAndWritableArraysUseRegisterGroups() throws {
        let library = try #require(compileLibrary(colorEffect("""
            const float table[3] = { 0.25, 0.5, 1.0 };
            float scratch[3] = { 0, 0, 0 };
            int i = int(position.x) % 3;
            scratch[i] = table[i];
            return half4(scratch[(i + 1) % 3] + scratch[i]);
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.filter { $0 == "ldk" }.count == 1, "\(body)")
        #expect(body.filter { $0 == "str" }.count == 1)
        #expect(body.filter { $0 == "ldr" }.count == 2)
    }

    @Test func divergentInnerLoopKeepsOuterLoopUniform() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float s = 0;
            for (int i = 0; i < 3; i++) {
                float x = position.x;
                while (x > 1.0) { x *= 0.5; s += 1; }
                switch (int(x * 4)) { case 1: s += 2; break; default: break; }
            }
            return half4(s);
        """)))
        let f = try #require(library.function(named: "effect"))
        let body = library.opcodes(f.body)
        #expect(body.filter { $0 == "jnz" }.count == 1, "\(body)")
        #expect(body.filter { $0 == "jany" }.count == 1)
        try expectBackEdgesCharged(library, f)
    }

    @Test func vertexFunctionOutputs() throws {
        let library = try #require(compileLibrary("""
            #include <metal_stdlib>
            using namespace metal;
            struct V { float4 position [[position]]; float2 uv [[user(uv)]]; int id [[flat]]; };
            vertex V vmain(uint vid [[vertex_id]], constant float2 *points [[buffer(0)]]) {
                V out;
                out.position = float4(points[vid], 0, 1);
                out.uv = points[vid] * 0.5 + 0.5;
                out.id = int(vid);
                return out;
            }
            """))
        let f = try #require(library.function(named: "vmain"))
        #expect(f.kind == .vertex)
        #expect(f.inputs.map(\.attribute) == ["vertex_id"])
        #expect(f.outputs.map(\.name) == ["position", "uv", "id"])
        #expect(f.outputs.map(\.attribute) == ["position", "user(uv)", ""])
        #expect(f.outputs[2].flat)
        #expect(f.parameters[1].binding == .buffer(slot: 0, countWord: nil))
        let body = library.opcodes(f.body)
        #expect(body.filter { $0 == "ldb" }.count >= 2, "\(body)")
    }

    /// Every backward jump is a `jany` or `jnz` (the VM charges its budget there).
    func expectBackEdgesCharged(_ library: Library, _ f: Function) throws {
        for index in Int(f.body.lowerBound)..<Int(f.body.upperBound) {
            let instruction = library.code[index]
            let isJump = [.jmp, .jz, .jnz, .jnone, .jany].contains(instruction.opcode)
            if isJump && Int(instruction.imm) <= index {
                #expect(instruction.opcode == .jany || instruction.opcode == .jnz, "backward \(instruction.opcode) at \(index)")
            }
        }
    }
}
