import Testing
@testable import KilnLanguage
import KilnTestSupport

/// language.md §5: entry classification by signature, user-argument rules, stage functions,
/// samplers and `@arg` docs.
@Suite struct CheckerEntryTests {
    typealias H = CheckerHarness

    static let header = "#include <metal_stdlib>\n#include <SwiftUI/SwiftUI_Metal.h>\nusing namespace metal;\n"

    func entry(_ source: String) -> (EntryInfo?, [Diagnostic]) {
        let r = H.check(Self.header + source)
        return (r.program?.entries.first, r.diagnostics)
    }

    @Test func stitchableKindsFollowTheSignature() {
        #expect(entry("[[stitchable]] float2 d(float2 position, float t) { return position; }").0?.kind == .distortion)
        #expect(entry("[[stitchable]] half4 c(float2 position, half4 color, float t) { return color; }").0?.kind == .color)
        #expect(entry("[[stitchable]] half4 l(float2 position, SwiftUI::Layer layer) { return layer.sample(position); }").0?.kind == .layer)
        #expect(entry("[[stitchable]] half4 s(float2 position, float t) { return half4(1); }").0?.kind == .shape)
        // A half4 user argument that is not second is a shape's colour argument.
        let shape = entry("[[stitchable]] half4 s(float2 position, float t, half4 color) { return color; }")
        #expect(shape.0?.kind == .shape)
        #expect(shape.0?.firstUserArgument == 1)
        #expect(entry("[[stitchable]] half4 c(float2 p, half4 c) { return c; }").0?.firstUserArgument == 2)
    }

    @Test func helpersAreNotEntries() {
        let r = H.check(Self.header + "float helper(float x) { return x; }\n[[stitchable]] float2 d(float2 p) { return p * helper(1); }")
        #expect(r.program?.entries.count == 1)
        #expect(r.program?.functions.count == 2)
        #expect(r.program?.entries.first?.function == 1)
    }

    @Test func layerNotSecondExplainsWhy() {
        let (info, diagnostics) = entry("[[stitchable]] half4 b(float2 position, float radius, SwiftUI::Layer layer) {\n return layer.sample(position); }")
        #expect(info == nil)
        let error = diagnostics.first { $0.severity == .error }
        #expect(error?.message.contains("SwiftUI::Layer must be the second parameter of a layer effect") == true)
        #expect(error?.range.start.line == 4)
        let distortion = entry("[[stitchable]] float2 d(float2 position, SwiftUI::Layer layer) { return position; }")
        #expect(H.errors(distortion.1).first?.contains("Layer") == true)
    }

    @Test func stitchableSignatureErrors() {
        #expect(H.errors(entry("[[stitchable]] float4 c(float2 p) { return 1; }").1).first?.contains("must return float2") == true)
        #expect(H.errors(entry("[[stitchable]] half4 c(float p) { return 1; }").1).first?.contains("first parameter must be 'float2 position'") == true)
        #expect(H.errors(entry("[[stitchable]] half4 c(float2 p, int n) { return 1; }").1).first?.contains("no integer argument") == true)
        #expect(H.errors(entry("[[stitchable]] half4 c(float2 p, device const float *w) { return 1; }").1).first?.contains("followed by an 'int' count") == true)
        #expect(H.errors(entry("[[stitchable]] half4 c(float2 p, texture2d<float> t) { return 1; }").1).first?.contains("texture2d<half>") == true)
        #expect(H.errors(entry("[[stitchable]] half4 c(float2 p, bool b) { return 1; }").1).count == 1)
    }

    @Test func allowedUserArguments() {
        let (info, diagnostics) = entry("""
        [[stitchable]] half4 c(float2 p, SwiftUI::Layer layer, float a, half b, float3 c, half4 d,
                               device const float *w, int n, device const half4 *colors, int m, texture2d<half> image,
                               vector_float2 e) { return d; }
        """)
        #expect(H.errors(diagnostics).isEmpty, "\(diagnostics)")
        #expect(info?.kind == .layer)
    }

    @Test func fragmentAndVertexFunctions() throws {
        let r = H.check(Self.header + """
        struct VOut { float4 position [[position]]; float2 uv [[user(uv)]]; float k [[flat]]; };
        struct Vertex { float2 at; };
        vertex VOut vs(uint vid [[vertex_id]], uint iid [[instance_id]], constant Vertex *vertices [[buffer(0)]]) {
            VOut o;
            o.position = float4(vertices[vid].at, 0, 1);
            return o;
        }
        fragment half4 fs(VOut in [[stage_in]], texture2d<half> t [[texture(1)]], sampler s [[sampler(0)]],
                          constant float &time [[buffer(0)]]) {
            return t.sample(s, in.uv) * half(time);
        }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let program = try #require(r.program)
        #expect(program.entries.map(\.kind) == [.vertex, .fragment])
        // Bindings are the checker's facts: a `constant float &` with [[buffer(0)]] is a uniform.
        #expect(program.entries[0].bindings == [.vertexID, .instanceID, .buffer(slot: 0)])
        #expect(program.entries[1].bindings == [.stageIn, .texture(slot: 1), .sampler, .uniform])
        #expect(program.structs[0].fields.map(\.attributes) == [["position"], ["user(uv)"], ["flat"]])
        let fs = program.functions[1]
        #expect(fs.parameters.map(\.attributes) == [["stage_in"], ["texture(1)"], ["sampler(0)"], ["buffer(0)"]])
        #expect(fs.parameters[3].isReference)
        #expect(fs.parameters[3].typeSpelling == "constant float &")
        #expect(fs.variables[3].isConst)
        #expect(program.functions[0].parameters[2].type == .pointer(.structure(1), .constant))
    }

    @Test func stageFunctionErrors() {
        let badReturn = H.check(Self.header + "fragment float2 fs() { return 0; }")
        #expect(H.errors(badReturn.diagnostics).count == 1)
        let vertexPosition = H.check(Self.header + "struct V { float4 p; };\nvertex V vs(uint id [[vertex_id]]) { V v; return v; }")
        #expect(H.errors(vertexPosition.diagnostics).first?.contains("[[position]]") == true)
        let stageIn = H.check(Self.header + "fragment float4 fs(float x [[stage_in]]) { return x; }")
        #expect(H.errors(stageIn.diagnostics).first?.contains("[[stage_in]]") == true)
    }

    @Test func constexprSamplers() throws {
        let r = H.check(Self.header + """
        constexpr sampler a;
        constexpr sampler b(filter::linear, address::repeat, coord::pixel);
        constexpr sampler c(mag_filter::linear, min_filter::linear, s_address::mirrored_repeat, t_address::mirrored_repeat);
        constexpr sampler d(address::clamp_to_zero, filter::nearest);
        fragment float4 fs(texture2d<float> t [[texture(0)]]) {
            constexpr sampler local(filter::linear);
            return t.sample(local, float2(0.5)) + t.sample(b, float2(0));
        }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let samplers = try #require(r.program?.globals.map(\.sampler))
        #expect(samplers[0] == SamplerState())
        #expect(samplers[1] == SamplerState(filter: .linear, address: .repeat, normalized: false))
        #expect(samplers[2] == SamplerState(filter: .linear, address: .mirroredRepeat, normalized: true))
        #expect(samplers[3] == SamplerState(filter: .nearest, address: .clampToZero, normalized: true))
        #expect(r.program?.functions[0].variables.first { $0.name == "local" }?.sampler == SamplerState(filter: .linear))
        let bad = H.check(Self.header + "constexpr sampler s(filter::cubic);")
        #expect(H.errors(bad.diagnostics).first?.contains("cubic") == true)
    }

    @Test func argumentDocsAttachToUserArguments() throws {
        let (info, diagnostics) = entry("""
        /// Waves.
        /// @arg amplitude 0...20 = 4 "wave height in points"
        /// @arg tint = 1, 0.5, 0, 1
        /// @arg nothing 0...1
        [[stitchable]] half4 w(float2 position, float amplitude, half4 tint) { return tint; }
        """)
        let docs = try #require(info?.argumentDocs)
        #expect(docs == [
            ArgumentDoc(name: "amplitude", minimum: 0, maximum: 20, defaultValue: [4], help: "wave height in points"),
            ArgumentDoc(name: "tint", minimum: nil, maximum: nil, defaultValue: [1, 0.5, 0, 1], help: ""),
        ])
        #expect(H.warnings(diagnostics).count == 1)
        #expect(H.warnings(diagnostics).first?.contains("'@arg nothing'") == true)
    }

    @Test func stitchableBindingsComeFromTheSignature() throws {
        let r = H.check(Self.header + """
        [[ stitchable ]] half4 tint(float2 position, half4 color, float amount, device const float *weights, int count) {
            return color * half(amount + weights[0] + float(count) + position.x);
        }
        [[ stitchable ]] half4 blur(float2 p, SwiftUI::Layer layer, float radius) { return layer.sample(p + radius); }
        """)
        #expect(H.errors(r.diagnostics).isEmpty, "\(r.diagnostics)")
        let program = try #require(r.program)
        #expect(program.entries.map(\.bindings) == [[.position, .color, .uniform, .buffer(slot: nil), .uniform],
                                                    [.position, .layer, .uniform]])
    }
}

/// language.md, "Kernel functions": what a kernel entry may take and what it is told when
/// it takes something else.
@Suite struct CheckerKernelTests {
    typealias H = CheckerHarness

    func check(_ source: String) -> (EntryInfo?, [String]) {
        let r = H.check(CheckerEntryTests.header + source)
        return (r.program?.entries.first, H.errors(r.diagnostics))
    }

    @Test func aKernelIsAnEntryWithThreadPositions() {
        let (entry, errors) = check("""
            kernel void k(texture2d<half, access::write> out [[texture(0)]], texture2d<float> input [[texture(1)]],
                          constant float &time [[buffer(0)]], uint2 gid [[thread_position_in_grid]],
                          ushort2 local [[thread_position_in_threadgroup]], uint index [[thread_index_in_threadgroup]]) {
                out.write(half4(input.read(gid)) * half(time), gid);
            }
            """)
        #expect(errors == [])
        #expect(entry?.kind == .kernel)
        #expect(entry?.bindings == [.texture(slot: 0), .texture(slot: 1), .uniform,
                                    .kernelInput(.threadPositionInGrid), .kernelInput(.threadPositionInThreadgroup),
                                    .kernelInput(.threadIndexInThreadgroup)])
    }

    @Test func kernelSignatureErrors() {
        #expect(check("kernel float4 k(texture2d<half, access::write> o [[texture(0)]]) { return 1; }").1.first?
            .contains("must return 'void'") == true)
        #expect(check("kernel void k(texture2d<half> o [[texture(0)]], uint2 g [[thread_position_in_grid]]) {}").1.first?
            .contains("writes no texture, so there is nothing to preview") == true)
        #expect(check("kernel void k(texture2d<half, access::write> o, float2 g [[thread_position_in_grid]]) {}").1.first?
            .contains("must be uint, uint2, uint3") == true)
        #expect(check("kernel void k(texture2d<half, access::write> o, float x) {}").1.first?
            .contains("needs an attribute such as [[thread_position_in_grid]]") == true)
        #expect(check("kernel void k(texture2d<half, access::write> o, float4 p [[position]]) {}").1.first?
            .contains("[[position]] is not available in kernel functions") == true)
        #expect(check("[[stitchable]] kernel void k(texture2d<half, access::write> o) {}").1.first?
            .contains("cannot be combined with 'kernel'") == true)
    }

    @Test func textureAccessDecidesReadAndWrite() {
        let write = "texture2d<half, access::write> o [[texture(0)]], uint2 g [[thread_position_in_grid]]"
        #expect(check("kernel void k(\(write)) { half4 c = o.read(g); }").1.first?
            .contains("access::write cannot be read; declare it access::read_write") == true)
        #expect(check("kernel void k(\(write), texture2d<half, access::read> i) { i.write(half4(1), g); }").1.first?
            .contains("access::read cannot be written") == true)
        #expect(check("kernel void k(\(write)) { o.write(half3(1), g); }").1.first != nil)
        #expect(check("kernel void k(\(write)) { o.write(half4(1), float2(g)); }").1.first?
            .contains("coordinates must be uint2") == true)
        #expect(check("kernel void k(texture2d<half, access::read_write> o, uint2 g [[thread_position_in_grid]]) { o.write(o.read(g).bgra, g); }").1 == [])
    }

    @Test func kernelOnlyThingsStayInKernels() {
        #expect(check("fragment half4 f(texture2d<half, access::write> o [[texture(0)]]) { return 1; }").1.first?
            .contains("not supported: writable textures (access::write) outside kernel functions") == true)
        #expect(check("fragment half4 f(uint2 g [[thread_position_in_grid]]) { return 1; }").1.first?
            .contains("[[thread_position_in_grid]] is only available in kernel functions") == true)
        #expect(check("kernel void k(texture2d<half, access::write> o) { discard_fragment(); }").1.first?
            .contains("only allowed in fragment functions") == true)
    }
}

@Suite struct ArgumentDocParserTests {
    @Test func fullLine() {
        let result = ArgumentDocParser.parse([" @arg k -0.5...0.5 = 0.16 \"positive: barrel\""])
        #expect(result.docs == [ArgumentDoc(name: "k", minimum: -0.5, maximum: 0.5, defaultValue: [0.16], help: "positive: barrel")])
        #expect(result.problems.isEmpty)
    }

    @Test func partsAreOptional() {
        let result = ArgumentDocParser.parse(["@arg a", "@arg b 1...2", "@arg c = 3", "@arg d \"help only\"", "not an arg line"])
        #expect(result.docs.map(\.name) == ["a", "b", "c", "d"])
        #expect(result.docs[1].minimum == 1 && result.docs[1].maximum == 2)
        #expect(result.docs[2].defaultValue == [3])
        #expect(result.docs[3].help == "help only")
    }

    @Test func hexColorDefaults() {
        let result = ArgumentDocParser.parse(["@arg glow = #ff000080", "@arg plain = #00ff00"])
        #expect(result.docs.first?.defaultValue == [1, 0, 0, 128.0 / 255])
        #expect(result.docs.last?.defaultValue == [0, 1, 0, 1])
    }

    /// Numbers take the literals' exact fast path when they can: the same values `Double(String)`
    /// gives, signs, exponents, leading zeros and long mantissas (which fall back) included.
    @Test func numbersAreWhatStrtodReads() {
        var random = SeededRandom(seed: 42_1)
        let digits = Array("0123456789")
        for _ in 0..<20_000 {
            var text = ["", "-", "+"][Int(random.next() % 3)]
            text += String((0..<Int(1 + random.next() % 19)).map { _ in digits[Int(random.next() % 10)] })
            if random.next() % 2 == 0 { text += "." + String((0..<Int(random.next() % 8)).map { _ in digits[Int(random.next() % 10)] }) }
            if random.next() % 4 == 0 { text += "e" + ["", "-", "+"][Int(random.next() % 3)] + String(random.next() % 40) }
            let parsed = ArgumentDocParser.parse(["@arg v = \(text)"])
            #expect(parsed.docs.first?.defaultValue.first?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test func malformedLinesAreProblems() {
        let result = ArgumentDocParser.parse(["@arg", "@arg x 1...", "@arg y = ", "@arg z \"open", "@arg w 2...1", "@arg v 1 2"])
        #expect(result.docs.isEmpty)
        #expect(result.problems.count == 6)
    }
}
