import KilnBytecode

/// Hand-built libraries that exercise every part of the format: a distortion with a
/// prologue and a uniform branch, a fragment with textures and stage_in inputs, a vertex
/// function with buffers, register and constant arrays, and unicode annotations.
enum TestLibraries {
    static let waveSource = """
        #include <metal_stdlib>
        using namespace metal;

        /// @arg amplitude 0...20 = 4 "wave height"
        [[ stitchable ]] float2 wave(float2 position, float amplitude, float time) {
            float2 p = position;
            p.y += amplitude * sin(p.x * 0.1 + time);
            return p;
        }
        """

    static let paletteSource = """
        [[ stitchable ]] half4 palette(float2 position, half4 color, int index) {
            const float steps[4] = { 0.1, 0.2, 0.3, 0.4 };
            float a[3];
            for (int i = 0; i < 3; i++) { a[i] = steps[i]; }
            float k = a[index];
            return half4(color.rgb * k, color.a);
        }
        """

    /// A recognisable fake digest (the bytecode module has no SHA-256 of its own).
    static func digest(_ seed: UInt8) -> [UInt8] {
        (0..<32).map { UInt8(truncatingIfNeeded: Int($0) * 7 + Int(seed)) }
    }

    static func float(_ rows: UInt8 = 1) -> ValueType { ValueType(.float, rows: rows) }

    static func addWave(_ b: inout LibraryBuilder, file: UInt16) {
        let k = b.constant(Float(0.1))
        let function = LibraryBuilder.function(
            "wave", kind: .distortion, registerCount: 9, uniformRegisterCount: 3, uniformWordCount: 2,
            parameters: [
                Parameter(name: "position", typeName: "float2", valueType: float(2), binding: .position),
                Parameter(name: "amplitude", typeName: "float", valueType: float(), binding: .uniform(word: 0),
                          annotation: ArgumentAnnotation(minimum: 0, maximum: 20, defaultValue: [4], help: "wave height")),
                Parameter(name: "time", typeName: "float", valueType: float(), binding: .uniform(word: 1)),
            ],
            inputs: [LaneSlot(name: "position", attribute: "position", type: float(2), register: 3)],
            outputs: [LaneSlot(name: "result", attribute: "", type: float(2), register: 7)],
            file: file, line: 5, column: 18)
        b.addFunction(function, prologue: [
            Instruction(.arg, a: 0, imm: 0),
            Instruction(.arg, a: 1, imm: 1),
            Instruction(.const, a: 2, imm: k),
            Instruction(.ret),
        ], body: [
            Instruction(.mov, a: 7, b: 3),
            Instruction(.mov, a: 8, b: 4),
            Instruction(.jz, a: 0, imm: 8),
            Instruction(.fmul, a: 5, b: 3, c: 2),
            Instruction(.fadd, a: 5, b: 5, c: 1),
            Instruction(.fsin, a: 6, b: 5),
            Instruction(.fmul, a: 6, b: 0, c: 6),
            Instruction(.fadd, a: 8, b: 4, c: 6),
            Instruction(.ret),
        ], lines: [
            .init(0, inPrologue: true, file: file, line: 5, column: 18),
            .init(0, file: file, line: 6, column: 5),
            .init(3, file: file, line: 7, column: 5),
            .init(8, file: file, line: 8, column: 5),
        ])
    }

    static func addCrossfade(_ b: inout LibraryBuilder, file: UInt16) {
        let threshold = b.constant(Float(0.01))
        let mode = SampleMode.samplerParameter.rawValue
        let function = LibraryBuilder.function(
            "crossfade", kind: .fragment, returnTypeName: "float4", registerCount: 28, uniformRegisterCount: 1,
            uniformWordCount: 1, textureCount: 2,
            parameters: [
                Parameter(name: "in", typeName: "VertexOut", valueType: nil, binding: .stageIn),
                Parameter(name: "from", typeName: "texture2d<float>", valueType: nil, binding: .texture(slot: 0)),
                Parameter(name: "to", typeName: "texture2d<float>", valueType: nil, binding: .texture(slot: 1)),
                Parameter(name: "s", typeName: "sampler", valueType: nil, binding: .sampler),
                Parameter(name: "progress", typeName: "constant float &", valueType: float(), binding: .uniform(word: 0),
                          annotation: ArgumentAnnotation(minimum: 0, maximum: 1, defaultValue: [0.5])),
            ],
            inputs: [
                LaneSlot(name: "position", attribute: "position", type: float(4), register: 1),
                LaneSlot(name: "uv", attribute: "user(uv)", type: float(2), register: 5),
                LaneSlot(name: "layerIndex", attribute: "", type: ValueType(.uint), register: 7, flat: true),
            ],
            outputs: [LaneSlot(name: "result", attribute: "color(0)", type: float(4), register: 20)],
            discardRegister: 26, file: file, line: 12, column: 1)
        var body: [Instruction] = [
            Instruction(.sample, a: 8, b: 5, c: 6, imm: 0, mode: mode),
            Instruction(.sample, a: 12, b: 5, c: 6, imm: 1, mode: mode),
        ]
        for component in UInt16(0)..<4 {
            body.append(Instruction(.fsub, a: 16, b: 12 + component, c: 8 + component))
            body.append(Instruction(.fma, a: 20 + component, b: 16, c: 0, d: 8 + component))
        }
        body += [
            Instruction(.texsize, a: 24, imm: 0),
            Instruction(.texread, a: 8, b: 24, c: 25, imm: 1),
            Instruction(.const, a: 27, imm: threshold),
            Instruction(.flt, a: 26, b: 23, c: 27),
            Instruction(.ret),
        ]
        b.addFunction(function, prologue: [Instruction(.arg, a: 0, imm: 0), Instruction(.ret)], body: body,
                      lines: [.init(0, inPrologue: true, file: file, line: 12), .init(0, file: file, line: 13, column: 5)])
    }

    static func addQuad(_ b: inout LibraryBuilder, file: UInt16) {
        let two = b.constant(UInt32(2)), one = b.constant(UInt32(1))
        let zero = b.constant(Float(0)), oneFloat = b.constant(Float(1))
        let function = LibraryBuilder.function(
            "quad", kind: .vertex, returnTypeName: "VertexOut", registerCount: 15, uniformRegisterCount: 1,
            uniformWordCount: 1, bufferCount: 2,
            parameters: [
                Parameter(name: "vid", typeName: "uint", valueType: ValueType(.uint), binding: .vertexID),
                Parameter(name: "verts", typeName: "constant float2 *", valueType: float(2), binding: .buffer(slot: 0, countWord: nil)),
                Parameter(name: "iid", typeName: "uint", valueType: ValueType(.uint), binding: .instanceID),
                Parameter(name: "offsets", typeName: "device const float *", valueType: float(), binding: .buffer(slot: 1, countWord: 0)),
                Parameter(name: "count", typeName: "int", valueType: ValueType(.int), binding: .uniform(word: 0)),
            ],
            inputs: [
                LaneSlot(name: "vertex_id", attribute: "vertex_id", type: ValueType(.uint), register: 1),
                LaneSlot(name: "instance_id", attribute: "instance_id", type: ValueType(.uint), register: 2),
            ],
            outputs: [
                LaneSlot(name: "position", attribute: "position", type: float(4), register: 11),
                LaneSlot(name: "uv", attribute: "user(uv)", type: float(2), register: 11),
            ],
            file: file, line: 3, column: 1)
        b.addFunction(function, prologue: [Instruction(.arg, a: 0, imm: 0), Instruction(.ret)], body: [
            Instruction(.const, a: 3, imm: two),
            Instruction(.imul, a: 4, b: 1, c: 3),
            Instruction(.ldb, a: 11, b: 4, imm: 0),
            Instruction(.const, a: 6, imm: one),
            Instruction(.iadd, a: 4, b: 4, c: 6),
            Instruction(.ldb, a: 12, b: 4, imm: 0),
            Instruction(.ldb, a: 8, b: 2, imm: 1),
            Instruction(.fadd, a: 11, b: 11, c: 8),
            Instruction(.const, a: 13, imm: zero),
            Instruction(.const, a: 14, imm: oneFloat),
            Instruction(.ret),
        ])
    }

    static func addPalette(_ b: inout LibraryBuilder, file: UInt16) {
        let steps = b.constantArray([0.1, 0.2, 0.3, 0.4].map { Float($0).bitPattern })
        let zero = b.constant(UInt32(0)), one = b.constant(UInt32(1)), three = b.constant(UInt32(3))
        let function = LibraryBuilder.function(
            "palette", kind: .color, returnTypeName: "half4", registerCount: 21, uniformRegisterCount: 1,
            uniformWordCount: 1,
            parameters: [
                Parameter(name: "position", typeName: "float2", valueType: float(2), binding: .position),
                Parameter(name: "color", typeName: "half4", valueType: ValueType(.half, rows: 4), binding: .color),
                Parameter(name: "index", typeName: "int", valueType: ValueType(.int), binding: .uniform(word: 0)),
            ],
            inputs: [
                LaneSlot(name: "position", attribute: "position", type: float(2), register: 1),
                LaneSlot(name: "color", attribute: "color", type: ValueType(.half, rows: 4), register: 3),
            ],
            outputs: [LaneSlot(name: "result", attribute: "", type: ValueType(.half, rows: 4), register: 17)],
            file: file, line: 1, column: 18)
        b.addFunction(function, prologue: [Instruction(.arg, a: 0, imm: 0), Instruction(.ret)], body: [
            Instruction(.const, a: 7, imm: zero),
            Instruction(.const, a: 8, imm: one),
            Instruction(.const, a: 9, imm: three),
            Instruction(.ldk, a: 13, b: 7, d: 4, imm: steps),
            Instruction(.ilt, a: 14, b: 7, c: 9),
            Instruction(.str, a: 10, b: 13, c: 7, d: 14, imm: 3),
            Instruction(.iadd, a: 7, b: 7, c: 8),
            Instruction(.ilt, a: 15, b: 7, c: 9),
            Instruction(.jany, a: 15, imm: 3),
            Instruction(.ldr, a: 16, b: 10, c: 0, imm: 3),
            Instruction(.fmul, a: 17, b: 3, c: 16),
            Instruction(.fmul, a: 18, b: 4, c: 16),
            Instruction(.fmul, a: 19, b: 5, c: 16),
            Instruction(.mov, a: 20, b: 6),
            Instruction(.ret),
        ], lines: [
            .init(0, file: file, line: 4, column: 10),
            .init(3, file: file, line: 4, column: 49),
            .init(9, file: file, line: 5, column: 5),
            .init(10, file: file, line: 6, column: 5),
        ])
    }

    static func addGlow(_ b: inout LibraryBuilder, file: UInt16) {
        let function = LibraryBuilder.function(
            "glow", kind: .layer, returnTypeName: "half4", registerCount: 11, uniformRegisterCount: 4,
            uniformWordCount: 5, bufferCount: 1, textureCount: 1,
            parameters: [
                Parameter(name: "position", typeName: "float2", valueType: float(2), binding: .position),
                Parameter(name: "layer", typeName: "SwiftUI::Layer", valueType: nil, binding: .layer),
                Parameter(name: "radius", typeName: "float", valueType: float(), binding: .uniform(word: 0),
                          annotation: ArgumentAnnotation(minimum: 0, maximum: 10, defaultValue: [2],
                                                         help: "Radius of the glow — in pixels ✨")),
                Parameter(name: "tint", typeName: "float3", valueType: float(3), binding: .uniform(word: 1),
                          annotation: ArgumentAnnotation(defaultValue: [1, 0.5, 0.25], help: "Tönung 色 🎨")),
                Parameter(name: "weights", typeName: "device const float *", valueType: float(),
                          binding: .buffer(slot: 0, countWord: 4)),
                Parameter(name: "count", typeName: "int", valueType: ValueType(.int), binding: .uniform(word: 4)),
            ],
            inputs: [LaneSlot(name: "position", attribute: "position", type: float(2), register: 4)],
            outputs: [LaneSlot(name: "result", attribute: "", type: ValueType(.half, rows: 4), register: 7)],
            file: file, line: 2, column: 1)
        b.addFunction(function, prologue: [
            Instruction(.arg, a: 0, imm: 0), Instruction(.arg, a: 1, imm: 1),
            Instruction(.arg, a: 2, imm: 2), Instruction(.arg, a: 3, imm: 3), Instruction(.ret),
        ], body: [
            Instruction(.fadd, a: 6, b: 4, c: 0),
            Instruction(.sample, a: 7, b: 6, c: 5, imm: 0, mode: SampleMode.layer.rawValue),
            Instruction(.fmul, a: 7, b: 7, c: 1),
            Instruction(.fmul, a: 8, b: 8, c: 2),
            Instruction(.fmul, a: 9, b: 9, c: 3),
            Instruction(.ret),
        ])
    }

    /// A kernel: thread positions and the in-grid mask as lane inputs, an output texture
    /// written with `texwrite` under that mask.
    static func addStripes(_ b: inout LibraryBuilder, file: UInt16) {
        let one = b.constant(Float(1)), zero = b.constant(Float(0))
        let function = LibraryBuilder.function(
            "stripes", kind: .kernel, returnTypeName: "void", registerCount: 8, uniformRegisterCount: 1,
            uniformWordCount: 1, textureCount: 1,
            parameters: [
                Parameter(name: "out", typeName: "texture2d<half, access::write>", valueType: nil, binding: .outputTexture(slot: 0)),
                Parameter(name: "gid", typeName: "uint2", valueType: ValueType(.uint, rows: 2), binding: .threadPosition),
                Parameter(name: "level", typeName: "float", valueType: float(), binding: .uniform(word: 0)),
            ],
            inputs: [
                LaneSlot(name: "in_grid", attribute: "in_grid", type: ValueType(.bool), register: 1),
                LaneSlot(name: "gid", attribute: "thread_position_in_grid", type: ValueType(.uint, rows: 2), register: 2),
            ],
            outputs: [],
            file: file, line: 3, column: 1)
        b.addFunction(function, prologue: [Instruction(.arg, a: 0, imm: 0), Instruction(.ret)], body: [
            Instruction(.mov, a: 4, b: 0),
            Instruction(.const, a: 5, imm: zero),
            Instruction(.const, a: 6, imm: zero),
            Instruction(.const, a: 7, imm: one),
            Instruction(.texwrite, a: 4, b: 2, c: 3, d: 1, imm: 0),
            Instruction(.ret),
        ])
    }

    typealias Adder = (inout LibraryBuilder, UInt16) -> Void

    static func single(_ name: String, _ add: Adder) -> Library {
        var builder = LibraryBuilder(compilerVersion: "kiln 0.1.0", sources: [SourceRecord(name: name, sha256: digest(1))])
        add(&builder, 0)
        return builder.library
    }

    static var wave: Library { single("wave.metal", addWave) }
    static var crossfade: Library { single("crossfade.metal", addCrossfade) }
    static var quad: Library { single("quad.metal", addQuad) }
    static var palette: Library { single("palette.metal", addPalette) }
    static var glow: Library { single("glow.metal", addGlow) }
    static var stripes: Library { single("stripes.metal", addStripes) }

    /// All five functions in one library, one source file each.
    static var combined: Library {
        let files = ["wave.metal", "crossfade.metal", "quad.metal", "palette.metal", "glow.metal"]
        var builder = LibraryBuilder(compilerVersion: "kiln 0.1.0",
                                     sources: files.enumerated().map { SourceRecord(name: $1, sha256: digest(UInt8($0))) })
        addWave(&builder, file: 0)
        addCrossfade(&builder, file: 1)
        addQuad(&builder, file: 2)
        addPalette(&builder, file: 3)
        addGlow(&builder, file: 4)
        return builder.library
    }

    /// The source texts of `combined`, indexed like its sources.
    static var combinedTexts: [String] { [waveSource, "", "", paletteSource, ""] }

    static var all: [(String, Library)] {
        [("wave", wave), ("crossfade", crossfade), ("quad", quad), ("palette", palette), ("glow", glow), ("stripes", stripes), ("combined", combined)]
    }
}
