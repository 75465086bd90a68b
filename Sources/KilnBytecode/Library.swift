/// A compiled shader library: the contract between the compiler and the VM, Kiln's
/// equivalent of a `.metallib`.
///
/// A `Library` value in memory is only trusted when it came from the compiler or from
/// `Verifier.verify(_:)`; `LibraryReader` always verifies. The binary layout is
/// documented in `docs/library-format.md`.
public struct Library: Hashable, Sendable {
    /// Version of the compiler that produced the library, e.g. `"kiln 0.1.0"`.
    public var compilerVersion: String
    /// The source files the library was compiled from, in compile order.
    public var sources: [SourceRecord]
    /// Entry functions (helpers are inlined and have no entry of their own).
    public var functions: [Function]
    /// The constant pool: raw 32-bit words (float bits, ints), addressed by `const` and `ldk`.
    public var constants: [UInt32]
    /// All instructions of all functions; each function owns a prologue and a body range.
    public var code: [Instruction]
    /// Source locations of instructions, sorted by `firstInstruction`: an entry covers
    /// every instruction up to the next entry.
    public var debugLocations: [DebugLocation]
    /// Where source variables live, statement masks and loop iterations (`DebugInfo`), for
    /// the pixel debugger; empty in libraries from writers before format 1.1.
    public var debugInfo: DebugInfo

    public init(compilerVersion: String, sources: [SourceRecord], functions: [Function],
                constants: [UInt32], code: [Instruction], debugLocations: [DebugLocation],
                debugInfo: DebugInfo = DebugInfo()) {
        self.compilerVersion = compilerVersion
        self.sources = sources
        self.functions = functions
        self.constants = constants
        self.code = code
        self.debugLocations = debugLocations
        self.debugInfo = debugInfo
    }

    /// The entry function called `name`, if any.
    /// The instruction indexes of `range` that lie inside `code` (an unverified library may
    /// name ranges past it; everything reading code by a function's range clamps here).
    public func clampedRange(_ range: Range<UInt32>) -> Range<Int> {
        let lower = min(Int(range.lowerBound), code.count)
        return lower..<max(lower, min(Int(range.upperBound), code.count))
    }

    public func function(named name: String) -> Function? {
        functions.first { $0.name == name }
    }

    /// The source location of instruction `index`, if the debug table covers it.
    public func location(ofInstruction index: Int) -> DebugLocation? {
        // Binary search for the last entry whose firstInstruction ≤ index.
        var low = 0, high = debugLocations.count
        while low < high {
            let mid = (low + high) / 2
            if Int(debugLocations[mid].firstInstruction) <= index { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : debugLocations[low - 1]
    }
}

/// One source file that went into a library.
public struct SourceRecord: Hashable, Sendable {
    /// The file name as given to the compiler (e.g. `wave.metal`).
    public var name: String
    /// SHA-256 of the file's bytes (32 bytes).
    public var sha256: [UInt8]

    public init(name: String, sha256: [UInt8]) {
        self.name = name
        self.sha256 = sha256
    }
}

/// Maps a run of instructions to the source position they came from.
public struct DebugLocation: Hashable, Sendable {
    /// First instruction (index into `Library.code`) this entry covers.
    public var firstInstruction: UInt32
    /// Index into `Library.sources`.
    public var file: UInt16
    /// 1-based line.
    public var line: UInt32
    /// 1-based column.
    public var column: UInt16

    public init(firstInstruction: UInt32, file: UInt16, line: UInt32, column: UInt16) {
        self.firstInstruction = firstInstruction
        self.file = file
        self.line = line
        self.column = column
    }
}

/// What an entry function is, which decides how the renderer drives it.
public enum FunctionKind: UInt8, Hashable, Sendable, CaseIterable {
    /// `float2 f(float2 position, args…)`: the source is sampled at the returned position.
    case distortion = 0
    /// `half4 f(float2 position, half4 color, args…)`: the new color of the pixel.
    case color
    /// `half4 f(float2 position, SwiftUI::Layer layer, args…)`: the new color; the layer is texture 0.
    case layer
    /// `half4 f(float2 position, args…)`: a fill without content.
    case shape
    /// A Metal `vertex` function: geometry for the rasterizer.
    case vertex
    /// A Metal `fragment` function: a full-screen pass or the color stage of a draw.
    case fragment
    /// A Metal `kernel` function: run over a grid the size of the frame, which shows the
    /// first texture it writes (`Binding.outputTexture`).
    case kernel

    /// The lowercase name used in JSON and on the command line. (Spelled out: see
    /// `ScalarType.name`.)
    public var name: String {
        switch self {
        case .distortion: return "distortion"
        case .color: return "color"
        case .layer: return "layer"
        case .shape: return "shape"
        case .vertex: return "vertex"
        case .fragment: return "fragment"
        case .kernel: return "kernel"
        }
    }
}

/// Scalar element types. `half` is stored and computed as binary32.
public enum ScalarType: UInt8, Hashable, Sendable, CaseIterable {
    case bool = 0, int, uint, short, ushort, float, half

    /// The MSL spelling. Spelled out rather than `String(describing: self)`, which reflects
    /// the case name through `Mirror`: on first use a protocol-conformance scan of the whole
    /// binary (~0.5 M instructions), 3 % of a whole-process `kiln compile`.
    public var name: String {
        switch self {
        case .bool: return "bool"
        case .int: return "int"
        case .uint: return "uint"
        case .short: return "short"
        case .ushort: return "ushort"
        case .float: return "float"
        case .half: return "half"
        }
    }
}

/// The shape of a value the renderer exchanges with a function: scalar, vector,
/// matrix, or a fixed array of them. Structs are described as lists of `LaneSlot`s.
public struct ValueType: Hashable, Sendable {
    public var scalar: ScalarType
    /// Matrix columns; 1 for scalars and vectors.
    public var columns: UInt8
    /// Vector length or matrix rows; 1 for scalars.
    public var rows: UInt8
    /// Array length; 0 for a single value.
    public var arrayLength: UInt32

    public init(_ scalar: ScalarType, rows: UInt8 = 1, columns: UInt8 = 1, arrayLength: UInt32 = 0) {
        self.scalar = scalar
        self.rows = rows
        self.columns = columns
        self.arrayLength = arrayLength
    }

    /// Number of 32-bit components (registers or argument words) a value occupies.
    public var componentCount: Int { Int(rows) * Int(columns) * max(1, Int(arrayLength)) }

    /// The MSL spelling: `float`, `half4`, `float2x2`, `float[5]`.
    public var name: String {
        var text = scalar.name
        if columns > 1 { text += "\(columns)x\(rows)" } else if rows > 1 { text += "\(rows)" }
        if arrayLength > 0 { text += "[\(arrayLength)]" }
        return text
    }
}

/// How a parameter of an entry function is bound when the function runs.
public enum Binding: Hashable, Sendable {
    /// The pixel position (`float2 position` of the stitchable kinds); lane input.
    case position
    /// The source color of a color effect (`half4 color`); lane input.
    case color
    /// The `SwiftUI::Layer` of a layer effect: texture slot 0, sampled in pixels.
    case layer
    /// A user argument stored in the uniform block at `word` (one word per component).
    case uniform(word: UInt32)
    /// A pointer argument (`device const float *`, `constant T *` `[[buffer(n)]]`): buffer slot `slot`.
    /// `countWord` is the uniform word of the `int` count parameter that follows a
    /// SwiftUI array argument, if any.
    case buffer(slot: UInt32, countWord: UInt32?)
    /// A texture (`texture2d<…>` argument, or `[[texture(n)]]`) at texture slot `slot`.
    case texture(slot: UInt32)
    /// A `sampler` parameter; the preview binds linear filtering with clamp-to-edge.
    case sampler
    /// The `[[stage_in]]` struct of a fragment function; its fields are `Function.inputs`.
    case stageIn
    /// `[[vertex_id]]`: lane input.
    case vertexID
    /// `[[instance_id]]`: lane input.
    case instanceID
    /// A kernel's texture with `access::write` or `read_write` at texture slot `slot`: an
    /// image the size of the grid, transparent black until written. The frame shows the
    /// output texture with the lowest slot.
    case outputTexture(slot: UInt32)
    /// A kernel's thread position (`[[thread_position_in_grid]]`, …): lane input whose
    /// `LaneSlot.attribute` names which.
    case threadPosition
}

/// Preview metadata from a doc comment: `/// @arg amplitude 0...20 = 4 "wave height"`.
public struct ArgumentAnnotation: Hashable, Sendable {
    public var minimum: Float?
    public var maximum: Float?
    /// Default components (one for scalars, N for vectors and colors).
    public var defaultValue: [Float]
    public var help: String

    public init(minimum: Float? = nil, maximum: Float? = nil, defaultValue: [Float] = [], help: String = "") {
        self.minimum = minimum
        self.maximum = maximum
        self.defaultValue = defaultValue
        self.help = help
    }
}

/// A parameter of an entry function, as a preview UI or a renderer needs it.
public struct Parameter: Hashable, Sendable {
    public var name: String
    /// The MSL spelling of the declared type (`float`, `half4`, `device const float *`,
    /// `texture2d<half>`, `SwiftUI::Layer`, `constant Uniforms &`).
    public var typeName: String
    /// The value type of a uniform argument or of a buffer's elements (nil for textures,
    /// samplers, layers, stage_in).
    public var valueType: ValueType?
    public var binding: Binding
    public var annotation: ArgumentAnnotation?

    public init(name: String, typeName: String, valueType: ValueType?, binding: Binding,
                annotation: ArgumentAnnotation? = nil) {
        self.name = name
        self.typeName = typeName
        self.valueType = valueType
        self.binding = binding
        self.annotation = annotation
    }
}

/// A per-lane value the renderer writes before the body runs (inputs) or reads after it
/// (outputs): a scalarized parameter, stage_in field, or result component group.
public struct LaneSlot: Hashable, Sendable {
    /// Field or parameter name (`position`, `color`, `uv`, `result`).
    public var name: String
    /// The Metal attribute, without brackets: `position`, `color(0)`, `user(uv)`,
    /// `vertex_id`, `instance_id`, `attribute(0)`, or empty.
    public var attribute: String
    public var type: ValueType
    /// First register; the slot occupies `type.componentCount` consecutive registers.
    public var register: UInt16
    /// `[[flat]]`: not interpolated by the rasterizer.
    public var flat: Bool

    /// The name and attribute of a kernel's first lane input, a `bool`: 1 for a lane that is
    /// a thread of the grid, 0 for one past its edge (it runs masked off, writing nothing).
    public static let inGridName = "in_grid"

    public init(name: String, attribute: String, type: ValueType, register: UInt16, flat: Bool = false) {
        self.name = name
        self.attribute = attribute
        self.type = type
        self.register = register
        self.flat = flat
    }
}

/// An entry function of a library.
///
/// Execution model: the renderer fills the uniform block, buffers and textures, runs
/// `prologue` once per worker (it computes every value that depends only on uniforms
/// into registers `0 ..< uniformRegisterCount`, which the body never writes), then for
/// every batch of lanes writes `inputs`, runs `body`, and reads `outputs`.
public struct Function: Hashable, Sendable {
    public var name: String
    public var kind: FunctionKind
    public var parameters: [Parameter]
    /// The declared return type's MSL spelling (`float2`, `half4`, a struct name).
    public var returnTypeName: String
    /// Lane-wide registers the function needs.
    public var registerCount: UInt16
    /// Registers `0 ..< uniformRegisterCount` are written only by the prologue.
    public var uniformRegisterCount: UInt16
    /// Number of 32-bit words of the uniform argument block.
    public var uniformWordCount: UInt32
    /// Number of buffer slots and texture slots the function reads.
    public var bufferCount: UInt32
    public var textureCount: UInt32
    /// Instruction ranges (absolute indexes into `Library.code`).
    public var prologue: Range<UInt32>
    public var body: Range<UInt32>
    public var inputs: [LaneSlot]
    public var outputs: [LaneSlot]
    /// For fragment functions that call `discard_fragment()`: a mask register whose set
    /// lanes were discarded (their output is left transparent).
    public var discardRegister: UInt16?
    /// Where the function is declared.
    public var file: UInt16
    public var line: UInt32
    public var column: UInt16

    public init(name: String, kind: FunctionKind, parameters: [Parameter], returnTypeName: String,
                registerCount: UInt16, uniformRegisterCount: UInt16, uniformWordCount: UInt32,
                bufferCount: UInt32, textureCount: UInt32, prologue: Range<UInt32>, body: Range<UInt32>,
                inputs: [LaneSlot], outputs: [LaneSlot], discardRegister: UInt16?,
                file: UInt16, line: UInt32, column: UInt16) {
        self.name = name
        self.kind = kind
        self.parameters = parameters
        self.returnTypeName = returnTypeName
        self.registerCount = registerCount
        self.uniformRegisterCount = uniformRegisterCount
        self.uniformWordCount = uniformWordCount
        self.bufferCount = bufferCount
        self.textureCount = textureCount
        self.prologue = prologue
        self.body = body
        self.inputs = inputs
        self.outputs = outputs
        self.discardRegister = discardRegister
        self.file = file
        self.line = line
        self.column = column
    }

    /// Instructions in the prologue and the body.
    public var instructionCount: Int { prologue.count + body.count }
}

/// Hard limits on what a library may contain. The verifier rejects anything larger, so
/// a hostile file cannot make the VM allocate without bound. Each is a named setting.
public struct LibraryLimits: Hashable, Sendable {
    /// Maximum lane-wide registers per function (memory per worker = registers × lanes × 4 bytes).
    public var maxRegisters: Int = 8192
    /// Maximum instructions in a library.
    public var maxInstructions: Int = 1 << 20
    /// Maximum constant-pool words.
    public var maxConstants: Int = 1 << 20
    /// Maximum entry functions.
    public var maxFunctions: Int = 4096
    /// Maximum uniform words, buffer slots and texture slots per function.
    public var maxUniformWords: Int = 1 << 16
    public var maxBuffers: Int = 31
    public var maxTextures: Int = 31
    /// Maximum parameters, and lane slots in each of `inputs` and `outputs`, per function
    /// (checked while reading, so a file cannot make the reader build millions of records).
    public var maxParameters: Int = 256
    public var maxLaneSlots: Int = 1024
    /// Maximum bytes of a library file.
    public var maxLibraryBytes: Int = 64 << 20

    public init() {}
    public static let `default` = LibraryLimits()
}
