import KilnBytecode
import KilnLanguage

/// An entry function lowered to the intermediate form, before register allocation.
struct LoweredFunction {
    var state: LoweringState
    var name: String
    var kind: FunctionKind
    var parameters: [Parameter]
    var returnTypeName: String
    /// Lane slots with the first virtual register of their group in `register`'s place.
    var inputs: [(slot: LaneSlot, first: VirtualRegister)]
    var outputs: [(slot: LaneSlot, first: VirtualRegister)]
    var discardRegister: VirtualRegister?
    var uniformWordCount: UInt32
    var bufferCount: UInt32
    var textureCount: UInt32
    var range: SourceRange
}

/// What binding an entry's parameters has handed out so far: the renderer-facing
/// parameters, lane inputs, uniform words and buffer/texture slots.
struct EntryBindings {
    var parameters: [Parameter] = []
    var inputs: [(slot: LaneSlot, first: VirtualRegister)] = []
    /// The next uniform word.
    var word: UInt32 = 0
    /// Slots handed out in order to parameters without an explicit `[[texture(n)]]` /
    /// `[[buffer(n)]]`, and the slot counts the function needs.
    var nextTexture: UInt32
    var nextBuffer: UInt32 = 0
    var textureCount: UInt32
    var bufferCount: UInt32 = 0

    /// A layer effect's `SwiftUI::Layer` takes texture slot 0.
    init(kind: FunctionKind) {
        nextTexture = kind == .layer ? 1 : 0
        textureCount = kind == .layer ? 1 : 0
    }
}

extension FunctionLowerer {
    /// Lowers the entry function with the binding conventions of the renderer: lane
    /// inputs (position, color, stage_in fields, vertex_id), uniform words for user
    /// arguments in parameter order, buffer and texture slots, result slots as outputs.
    func lowerEntry() throws -> LoweredFunction {
        let function = program.functions[entry.function]
        let kind = FunctionKind(entry.kind)
        var frame = Frame(function: entry.function, entryMask: .all, divergentDepth: 0, endLabel: newLabel(), isEntry: true)
        frame.variables = Array(repeating: nil, count: function.variables.count)
        frame.pinned = StatementScanner.dynamicallyIndexedVariables(of: function)
        frame.activation = newActivation(entry.function, at: function.range.start)
        state.frames.append(frame)
        state.currentLocation = 0
        state.locations.append(function.range.start)
        _ = state.locationNumbering.number(of: function.range.start.file << 32 | function.range.start.offset)

        for p in function.parameters { try checkSize(p.type, p.range) }
        try checkSize(function.returnType, function.range)
        var bindings = EntryBindings(kind: kind)
        if kind == .kernel {
            // A grid rarely fills whole batches: lanes past its edge must not run side
            // effects, so a kernel starts under the mask of lanes that are threads.
            let inGrid = laneInput(LaneSlot.inGridName, LaneSlot.inGridName, .bool, into: &bindings)[0]
            state.frames[0].entryMask = .lanes(inGrid)
            state.mask = .lanes(inGrid)
        }
        for index in function.parameters.indices {
            try bindParameter(index, of: function, kind: kind, into: &bindings)
        }
        for parameter in function.parameters { bindEvent(0, parameter.variable) }
        let outputs = declareResults(of: function, kind: kind)
        if kind == .fragment && functionDiscards[entry.function] {
            let register = newHome(uniform: false)
            emitBody(IRInstruction(opcode: .mov, a: register, b: zero))
            state.discardRegister = register
        }

        try lowerBlock(function.body, skipTo: state.frames[0].endLabel)
        placeLabel(state.frames[0].endLabel)

        let textureCount = max(bindings.textureCount, state.usedTextureSlots.max().map(Self.slotCount) ?? 0)
        let bufferCount = max(bindings.bufferCount, state.usedBufferSlots.max().map(Self.slotCount) ?? 0)
        let discardRegister = state.discardRegister
        // The state moves into the result (the lowerer is done with it), so the assembler's
        // passes own its arrays and write them in place instead of copying each first.
        return LoweredFunction(state: LoweringState.moved(from: &state), name: function.name, kind: kind, parameters: bindings.parameters,
                               returnTypeName: typeName(function.returnType), inputs: bindings.inputs, outputs: outputs,
                               discardRegister: discardRegister, uniformWordCount: bindings.word,
                               bufferCount: bufferCount, textureCount: textureCount, range: function.range)
    }

    /// A lane input: one varying register per component, recorded as a lane slot.
    private func laneInput(_ name: String, _ attribute: String, _ type: KType, flat: Bool = false,
                           into bindings: inout EntryBindings) -> [VirtualRegister] {
        let group = newUnit(size: count(type), prologue: false)
        for member in group { state.isUniform[member] = false }
        if let valueType = valueType(type) {
            bindings.inputs.append((LaneSlot(name: name, attribute: attribute, type: valueType, register: 0, flat: flat), group[0]))
        }
        return group
    }

    /// Binds parameter `index` of the entry: where its value comes from (a lane input, the
    /// layer texture, a texture or buffer slot, a sampler, uniform words), declared as the
    /// parameter's variable, and described for the renderer.
    private func bindParameter(_ index: Int, of function: CheckedFunction, kind: FunctionKind,
                               into bindings: inout EntryBindings) throws {
        let p = function.parameters[index]
        let stitchable = entry.kind.isStitchable
        let annotation = entry.argumentDocs.first { $0.name == p.name }.map {
            ArgumentAnnotation(minimum: $0.minimum.map { Float($0) }, maximum: $0.maximum.map { Float($0) },
                               defaultValue: $0.defaultValue.map { Float($0) }, help: $0.help)
        }
        var storage: VariableStorage
        var binding: Binding
        var parameterValueType = valueType(p.type)
        switch entry.bindings[index] {
        case .position:
            // A stitchable effect's position is the lane slot "position" whatever its name.
            let name = stitchable && index < entry.firstUserArgument ? "position" : p.name
            storage = .components(laneInput(name, "position", p.type, into: &bindings))
            binding = .position
        case .color:
            storage = .components(laneInput("color", "color", p.type, into: &bindings))
            binding = .color
        case .layer:
            storage = .texture(slot: 0)
            binding = .layer
            parameterValueType = nil
        case .stageIn:
            guard case .structure(let s) = p.type else { throw fail("[[stage_in]] parameter '\(p.name)' is not a struct", p.range) }
            var registers: [VirtualRegister] = []
            for field in structs[s].fields {
                registers += laneInput(field.name, field.attributes.slotSpelling, field.type,
                                       flat: field.attributes.contains(.flat), into: &bindings)
            }
            storage = .components(registers)
            binding = .stageIn
            parameterValueType = nil
        case .vertexID:
            storage = .components(laneInput(p.name, "vertex_id", p.type, into: &bindings))
            binding = .vertexID
        case .instanceID:
            storage = .components(laneInput(p.name, "instance_id", p.type, into: &bindings))
            binding = .instanceID
        case .kernelInput(let input):
            storage = .components(laneInput(p.name, input.rawValue, p.type, into: &bindings))
            binding = .threadPosition
        case .texture(let explicit):
            let slot = explicit ?? bindings.nextTexture
            if explicit == nil { bindings.nextTexture += 1 }
            storage = .texture(slot: slot)
            if case .texture(_, let access) = p.type, access.canWrite {
                binding = .outputTexture(slot: slot)
            } else {
                binding = .texture(slot: slot)
            }
            bindings.textureCount = max(bindings.textureCount, Self.slotCount(slot))
            parameterValueType = nil
        case .sampler:
            storage = .sampler(nil)
            binding = .sampler
            parameterValueType = nil
        case .buffer(let explicit):
            guard case .pointer(let element, _) = p.type else { throw fail("buffer parameter '\(p.name)' is not a pointer", p.range) }
            let slot = explicit ?? bindings.nextBuffer
            if explicit == nil { bindings.nextBuffer += 1 }
            storage = .buffer(slot: slot, element: element)
            // A stitchable `floatArray` is followed by its element count (SwiftUI passes it).
            var countWord: UInt32?
            if stitchable, index + 1 < function.parameters.count,
               case .scalar(let k) = function.parameters[index + 1].type, k.isInteger {
                countWord = bindings.word
            }
            binding = .buffer(slot: slot, countWord: countWord)
            bindings.bufferCount = max(bindings.bufferCount, Self.slotCount(slot))
            parameterValueType = valueType(element)
        case .uniform:
            let first = bindings.word
            let registers = (0..<count(p.type)).map { argument(first + UInt32($0)) }
            bindings.word += UInt32(count(p.type))
            storage = .components(registers)
            binding = .uniform(word: first)
        }
        if case .components(let values) = storage, state.frames[0].pinned.contains(p.variable) {
            try declareValue(p.variable, type: p.type, values: values, pinned: true)
        } else {
            declare(p.variable, storage: storage)
        }
        bindings.parameters.append(Parameter(name: p.name, typeName: p.typeSpelling, valueType: parameterValueType,
                                             binding: binding, annotation: annotation))
    }

    /// Results: one output slot per returned struct field, or one `result` slot; their
    /// registers are the entry frame's return home.
    private func declareResults(of function: CheckedFunction, kind: FunctionKind) -> [(slot: LaneSlot, first: VirtualRegister)] {
        var outputs: [(slot: LaneSlot, first: VirtualRegister)] = []
        var returnHome: [VirtualRegister] = []
        func output(_ name: String, _ attribute: String, _ type: KType, flat: Bool) {
            let group = newUnit(size: count(type), prologue: false)
            for member in group { state.isHome[member] = true }
            returnHome += group
            if let valueType = valueType(type) {
                outputs.append((LaneSlot(name: name, attribute: attribute, type: valueType, register: 0, flat: flat), group[0]))
            }
        }
        if case .structure(let s) = function.returnType {
            for field in structs[s].fields {
                output(field.name, field.attributes.slotSpelling, field.type, flat: field.attributes.contains(.flat))
            }
        } else if function.returnType != .void {
            output("result", kind == .fragment ? "color(0)" : "", function.returnType, flat: false)
        }
        state.frames[0].returnHome = returnHome
        return outputs
    }

    /// Slots needed to use `slot`: `slot + 1`, saturating so `[[buffer(4294967295)]]` cannot
    /// trap; a count that large fails the `LibraryLimits` check with a diagnostic.
    static func slotCount(_ slot: UInt32) -> UInt32 { slot == .max ? slot : slot + 1 }

    /// The renderer-facing shape of a scalar, vector, matrix or array of them.
    func valueType(_ type: KType) -> ValueType? {
        switch type {
        case .scalar(let k): return ValueType(ScalarType(k))
        case .vector(let k, let n): return ValueType(ScalarType(k), rows: UInt8(n))
        case .matrix(let k, let c, let r): return ValueType(ScalarType(k), rows: UInt8(r), columns: UInt8(c))
        case .array(let element, let n):
            guard var inner = valueType(element), inner.arrayLength == 0 else { return nil }
            inner.arrayLength = UInt32(n)
            return inner
        default: return nil
        }
    }

    func typeName(_ type: KType) -> String {
        switch type {
        case .void: return "void"
        case .structure(let s): return structs[s].name
        default: return valueType(type)?.name ?? "\(type)"
        }
    }
}

extension ScalarType {
    init(_ kind: ScalarKind) {
        switch kind {
        case .bool: self = .bool
        case .int: self = .int
        case .uint: self = .uint
        // Libraries have 16-bit kinds only; 8-bit values are narrowed in the code itself.
        case .short, .char: self = .short
        case .ushort, .uchar: self = .ushort
        case .float: self = .float
        case .half: self = .half
        }
    }
}

extension FunctionKind {
    init(_ kind: EntryKind) {
        switch kind {
        case .distortion: self = .distortion
        case .color: self = .color
        case .layer: self = .layer
        case .shape: self = .shape
        case .vertex: self = .vertex
        case .fragment: self = .fragment
        case .kernel: self = .kernel
        }
    }
}
