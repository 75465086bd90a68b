/// Proves that a library is safe to run without checks (`docs/library-format.md`,
/// "Verification").
///
/// After `verify` succeeds the VM may index registers, constants, uniform words, buffer
/// and texture slots and the code array with the instruction's fields directly, and run
/// `pc` forward without a bounds check: every range ends in `ret` and every jump stays in
/// the range it belongs to.
public enum Verifier {
    /// Most default components an `@arg` annotation may carry (a `float4x4`).
    public static let maxAnnotationDefaults = 16

    /// Throws the first rule `library` breaks, with a message that names the function,
    /// instruction and field.
    public static func verify(_ library: Library, limits: LibraryLimits = .default) throws(LibraryError) {
        try verify(library, limits: limits, offsets: nil)
    }

    static func verify(_ library: Library, limits: LibraryLimits, offsets: LibraryOffsets?) throws(LibraryError) {
        var context = Context(library: library, limits: limits, offsets: offsets)
        try context.verifyLibrary()
    }

    /// The state of one verification: the library, the limits, and where things lay in
    /// the bytes when there are bytes.
    struct Context {
        let library: Library
        let limits: LibraryLimits
        let offsets: LibraryOffsets?

        func fail(_ message: String, offset: Int?) -> LibraryError {
            LibraryError(message: message, offset: offset)
        }

        mutating func verifyLibrary() throws(LibraryError) {
            let provenanceOffset = offsets?.provenance
            guard library.functions.count <= limits.maxFunctions else {
                throw fail("\(library.functions.count) functions, more than the limit of \(limits.maxFunctions)", offset: offsets?.functions.first)
            }
            guard library.code.count <= limits.maxInstructions else {
                throw fail("\(library.code.count) instructions, more than the limit of \(limits.maxInstructions)", offset: offsets?.code)
            }
            guard library.constants.count <= limits.maxConstants else {
                throw fail("\(library.constants.count) constants, more than the limit of \(limits.maxConstants)", offset: nil)
            }
            guard library.sources.count <= Int(UInt16.max) + 1 else {
                throw fail("\(library.sources.count) sources, more than file indexes can address", offset: provenanceOffset)
            }
            for (index, source) in library.sources.enumerated() where source.sha256.count != LibraryFormat.sha256ByteCount {
                throw fail("source \(index) '\(source.name)': SHA-256 is \(source.sha256.count) bytes, not \(LibraryFormat.sha256ByteCount)", offset: offsets?.sources[safe: index])
            }
            try verifyDebugLocations()
            try verifyDebugInfo()
            var names = Set<String>()
            for index in library.functions.indices {
                let function = library.functions[index]
                let offset = offsets?.functions[safe: index]
                guard !function.name.isEmpty else {
                    throw fail("function \(index): empty name", offset: offset)
                }
                guard names.insert(function.name).inserted else {
                    throw fail("function '\(function.name)': name used by an earlier function", offset: offset)
                }
                try FunctionVerifier(context: self, function: function, offset: offset).verify()
            }
        }

        func verifyDebugLocations() throws(LibraryError) {
            var previous: UInt32?
            for (index, location) in library.debugLocations.enumerated() {
                let offset = offsets?.debugLocation(index)
                if let previous, location.firstInstruction <= previous {
                    throw fail("debug location \(index): instruction \(location.firstInstruction) does not follow \(previous) (the table must be sorted)", offset: offset)
                }
                guard Int(location.firstInstruction) < library.code.count else {
                    throw fail("debug location \(index): instruction \(location.firstInstruction) out of range (\(library.code.count) instructions)", offset: offset)
                }
                guard Int(location.file) < library.sources.count else {
                    throw fail("debug location \(index): file \(location.file) out of range (\(library.sources.count) sources)", offset: offset)
                }
                previous = location.firstInstruction
            }
        }
    }

    /// The checks of one entry function: its metadata, then every instruction of its
    /// prologue and body against its counts.
    struct FunctionVerifier {
        let context: Context
        let function: Function
        let offset: Int?
        var library: Library { context.library }
        var limits: LibraryLimits { context.limits }

        func fail(_ message: String) -> LibraryError {
            LibraryError(message: "function '\(function.name)': \(message)", offset: offset)
        }

        func verify() throws(LibraryError) {
            guard Int(function.registerCount) <= limits.maxRegisters else {
                throw fail("registerCount \(function.registerCount) exceeds the limit of \(limits.maxRegisters)")
            }
            guard function.uniformRegisterCount <= function.registerCount else {
                throw fail("uniformRegisterCount \(function.uniformRegisterCount) exceeds registerCount \(function.registerCount)")
            }
            guard Int(function.uniformWordCount) <= limits.maxUniformWords else {
                throw fail("uniformWordCount \(function.uniformWordCount) exceeds the limit of \(limits.maxUniformWords)")
            }
            guard Int(function.bufferCount) <= limits.maxBuffers else {
                throw fail("bufferCount \(function.bufferCount) exceeds the limit of \(limits.maxBuffers)")
            }
            guard Int(function.textureCount) <= limits.maxTextures else {
                throw fail("textureCount \(function.textureCount) exceeds the limit of \(limits.maxTextures)")
            }
            guard function.parameters.count <= limits.maxParameters else {
                throw fail("\(function.parameters.count) parameters, more than the limit of \(limits.maxParameters)")
            }
            guard function.inputs.count <= limits.maxLaneSlots, function.outputs.count <= limits.maxLaneSlots else {
                throw fail("\(max(function.inputs.count, function.outputs.count)) lane slots, more than the limit of \(limits.maxLaneSlots)")
            }
            guard Int(function.file) < max(1, library.sources.count) else {
                throw fail("declaration file \(function.file) out of range (\(library.sources.count) sources)")
            }
            for (index, parameter) in function.parameters.enumerated() {
                try verify(parameter, index)
            }
            for slot in function.inputs {
                try verify(slot, "input")
                guard slot.register >= function.uniformRegisterCount else {
                    throw fail("input '\(slot.name)': register \(slot.register) is a uniform register (uniformRegisterCount \(function.uniformRegisterCount))")
                }
            }
            for slot in function.outputs { try verify(slot, "output") }
            if let register = function.discardRegister, register >= function.registerCount {
                throw fail("discard register \(register) out of range (registerCount \(function.registerCount))")
            }
            try verifyRange(function.prologue, name: "prologue", isPrologue: true)
            try verifyRange(function.body, name: "body", isPrologue: false)
        }

        func verify(_ type: ValueType, _ what: String) throws(LibraryError) {
            guard (1...4).contains(type.rows), (1...4).contains(type.columns) else {
                throw fail("\(what): type \(type.scalar.name) with \(type.rows) rows and \(type.columns) columns (each must be 1…4)")
            }
        }

        func verify(_ parameter: Parameter, _ index: Int) throws(LibraryError) {
            let what = "parameter \(index) '\(parameter.name)'"
            if let type = parameter.valueType { try verify(type, what) }
            let components = parameter.valueType?.componentCount ?? 0
            switch parameter.binding {
            case .uniform(let word):
                guard Int(word) + components <= Int(function.uniformWordCount) else {
                    throw fail("\(what): uniform words \(word)..<\(Int(word) + components) out of range (uniformWordCount \(function.uniformWordCount))")
                }
            case .buffer(let slot, let countWord):
                guard slot < function.bufferCount else {
                    throw fail("\(what): buffer slot \(slot) out of range (bufferCount \(function.bufferCount))")
                }
                if let countWord, countWord >= function.uniformWordCount {
                    throw fail("\(what): count word \(countWord) out of range (uniformWordCount \(function.uniformWordCount))")
                }
            case .texture(let slot), .outputTexture(let slot):
                guard slot < function.textureCount else {
                    throw fail("\(what): texture slot \(slot) out of range (textureCount \(function.textureCount))")
                }
            case .layer:
                guard function.textureCount >= 1 else {
                    throw fail("\(what): a layer needs texture slot 0 (textureCount 0)")
                }
            case .position, .color, .sampler, .stageIn, .vertexID, .instanceID, .threadPosition:
                break
            }
            if let annotation = parameter.annotation {
                let values = [annotation.minimum, annotation.maximum].compactMap { $0 } + annotation.defaultValue
                guard !values.contains(where: \.isNaN) else {
                    throw fail("\(what): annotation value is NaN")
                }
                if let minimum = annotation.minimum, let maximum = annotation.maximum, minimum > maximum {
                    throw fail("\(what): annotation range \(minimum)...\(maximum) is empty")
                }
                guard annotation.defaultValue.count <= Verifier.maxAnnotationDefaults else {
                    throw fail("\(what): \(annotation.defaultValue.count) default values, more than \(Verifier.maxAnnotationDefaults)")
                }
            }
        }

        func verify(_ slot: LaneSlot, _ what: String) throws(LibraryError) {
            try verify(slot.type, "\(what) '\(slot.name)'")
            let end = Int(slot.register) + slot.type.componentCount
            guard end <= Int(function.registerCount) else {
                throw fail("\(what) '\(slot.name)': registers \(slot.register)..<\(end) out of range (registerCount \(function.registerCount))")
            }
        }

        func verifyRange(_ range: Range<UInt32>, name: String, isPrologue: Bool) throws(LibraryError) {
            guard Int(range.upperBound) <= library.code.count else {
                throw fail("\(name) \(range.lowerBound)..<\(range.upperBound) lies outside the code (\(library.code.count) instructions)")
            }
            guard let last = range.last, library.code[Int(last)].opcode == .ret else {
                throw fail("\(name) \(range.lowerBound)..<\(range.upperBound) does not end with ret")
            }
            for index in Int(range.lowerBound)..<Int(range.upperBound) {
                try InstructionVerifier(function: self, index: index, range: range, isPrologue: isPrologue).verify()
            }
        }
    }

    /// The checks of one instruction against its operand shape.
    struct InstructionVerifier {
        let function: FunctionVerifier
        let index: Int
        let range: Range<UInt32>
        let isPrologue: Bool
        var instruction: Instruction { function.library.code[index] }
        var registerCount: Int { Int(function.function.registerCount) }
        var uniformRegisterCount: Int { Int(function.function.uniformRegisterCount) }

        func fail(_ message: String) -> LibraryError {
            LibraryError(message: "function '\(function.function.name)': instruction \(index) (\(instruction.opcode.mnemonic)): \(message)",
                         offset: function.context.offsets?.instruction(index))
        }

        /// A register the instruction reads.
        func source(_ register: UInt16) throws(LibraryError) {
            guard Int(register) < registerCount else {
                throw fail("register \(register) out of range (registerCount \(registerCount))")
            }
        }

        /// `count` consecutive registers from `first` that the instruction reads.
        func sources(_ first: UInt16, count: Int) throws(LibraryError) {
            let end = Int(first) + count
            guard end <= registerCount else {
                throw fail("registers \(first)..<\(end) out of range (registerCount \(registerCount))")
            }
        }

        /// `count` consecutive registers from `first` that the instruction writes: in range,
        /// and on the right side of the uniform boundary for the code range.
        func destinations(_ first: UInt16, count: Int = 1) throws(LibraryError) {
            let end = Int(first) + count
            guard end <= registerCount else {
                if count == 1 { throw fail("register \(first) out of range (registerCount \(registerCount))") }
                throw fail("registers \(first)..<\(end) out of range (registerCount \(registerCount))")
            }
            if isPrologue, end > uniformRegisterCount {
                throw fail("the prologue writes register \(end - 1), which is not a uniform register (uniformRegisterCount \(uniformRegisterCount))")
            }
            if !isPrologue, Int(first) < uniformRegisterCount {
                throw fail("the body writes uniform register \(first) (uniformRegisterCount \(uniformRegisterCount))")
            }
        }

        /// Fields the shape does not use must be zero, so every instruction has one encoding.
        /// (No array of fields: this runs once per instruction and must not allocate.)
        func unused(a: Bool = false, b: Bool = false, c: Bool = false, d: Bool = false,
                    imm: Bool = false, mode: Bool = true) throws(LibraryError) {
            let i = instruction
            func check(_ isUnused: Bool, _ name: String, _ value: UInt32) throws(LibraryError) {
                if isUnused && value != 0 { throw fail("unused field \(name) is \(value), must be 0") }
            }
            try check(a, "a", UInt32(i.a))
            try check(b, "b", UInt32(i.b))
            try check(c, "c", UInt32(i.c))
            try check(d, "d", UInt32(i.d))
            try check(imm, "imm", i.imm)
            try check(mode, "mode", UInt32(i.mode))
        }

        /// A jump target inside the range being executed.
        func target() throws(LibraryError) {
            guard range.contains(instruction.imm) else {
                throw fail("jump target \(instruction.imm) outside the \(isPrologue ? "prologue" : "body") \(range.lowerBound)..<\(range.upperBound)")
            }
        }

        func verify() throws(LibraryError) {
            let i = instruction
            let f = function.function
            switch i.opcode.shape {
            case .none:
                try unused(a: true, b: true, c: true, d: true, imm: true)
            case .destConstant:
                try unused(b: true, c: true, d: true)
                try destinations(i.a)
                guard Int(i.imm) < function.library.constants.count else {
                    throw fail("constant \(i.imm) out of range (\(function.library.constants.count) constants)")
                }
            case .destArgument:
                try unused(b: true, c: true, d: true)
                try destinations(i.a)
                guard i.imm < f.uniformWordCount else {
                    throw fail("argument word \(i.imm) out of range (uniformWordCount \(f.uniformWordCount))")
                }
            case .unary:
                try unused(c: true, d: true, imm: true)
                try source(i.b)
                try destinations(i.a)
            case .binary:
                try unused(d: true, imm: true)
                try source(i.b)
                try source(i.c)
                try destinations(i.a)
            case .ternary:
                try unused(imm: true)
                try source(i.b)
                try source(i.c)
                try source(i.d)
                try destinations(i.a)
            case .loadRegisterArray:
                try unused(d: true)
                guard i.imm >= 1 else { throw fail("array length 0") }
                try sources(i.b, count: Int(i.imm))
                try source(i.c)
                try destinations(i.a)
            case .storeRegisterArray:
                guard i.imm >= 1 else { throw fail("array length 0") }
                try unused()
                try source(i.b)
                try source(i.c)
                try source(i.d)
                try destinations(i.a, count: Int(i.imm))
            case .loadConstantArray:
                try unused(c: true)
                guard i.d >= 1 else { throw fail("constant array length 0") }
                let end = Int(i.imm) + Int(i.d)
                guard end <= function.library.constants.count else {
                    throw fail("constants \(i.imm)..<\(end) out of range (\(function.library.constants.count) constants)")
                }
                try source(i.b)
                try destinations(i.a)
            case .loadBuffer:
                try unused(c: true, d: true)
                guard i.imm < f.bufferCount else {
                    throw fail("buffer slot \(i.imm) out of range (bufferCount \(f.bufferCount))")
                }
                try source(i.b)
                try destinations(i.a)
            case .texture:
                try unused(d: true, mode: i.opcode != .sample)
                guard i.mode <= SampleMode.maxRawValue else {
                    throw fail("sample mode \(i.mode) out of range (at most \(SampleMode.maxRawValue))")
                }
                guard i.imm < f.textureCount else {
                    throw fail("texture slot \(i.imm) out of range (textureCount \(f.textureCount))")
                }
                try source(i.b)
                try source(i.c)
                try destinations(i.a, count: 4)
            case .textureWrite:
                try unused()
                guard i.imm < f.textureCount else {
                    throw fail("texture slot \(i.imm) out of range (textureCount \(f.textureCount))")
                }
                guard f.kind == .kernel else { throw fail("texwrite outside a kernel function") }
                // Only a kernel's own output images may change: other slots hold the
                // caller's content, which outlives the draw.
                guard f.parameters.contains(where: { $0.binding == .outputTexture(slot: i.imm) }) else {
                    throw fail("texwrite to texture slot \(i.imm), which is not an output texture")
                }
                try sources(i.a, count: 4)
                try source(i.b)
                try source(i.c)
                try source(i.d)
            case .textureSize:
                try unused(b: true, c: true, d: true)
                guard i.imm < f.textureCount else {
                    throw fail("texture slot \(i.imm) out of range (textureCount \(f.textureCount))")
                }
                try destinations(i.a, count: 2)
            case .jump:
                try unused(a: true, b: true, c: true, d: true)
                try target()
            case .conditionalJump:
                try unused(b: true, c: true, d: true)
                try source(i.a)
                try target()
            }
        }
    }
}
