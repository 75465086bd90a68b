import KilnBytecode
import KilnLanguage

/// Collects the functions of every translation unit into one `Library`: optimizes each
/// lowered function, allocates its registers, and appends its code, constants and
/// debug locations.
struct LibraryAssembler {
    var code: [Instruction] = []
    var constants: [UInt32] = []
    /// First index of each word in `constants[..<indexedConstants]` (what `FunctionLowerer`
    /// reuses constants by): `constantIndexForNextFunction()` brings it up to date.
    var constantIndex = WordIndex()
    var indexedConstants = 0
    var debugLocations: [DebugLocation] = []
    var debugInfo = DebugInfo()
    var functions: [Function] = []
    let limits: LibraryLimits
    let optimize: Bool
    /// `CompileOptions.propagatesCopies`.
    var propagatesCopies = true
    /// `CompileOptions.numbersValues`.
    var numbersValues = true
    /// `CompileOptions.hoistsInvariants`.
    var hoistsInvariants = true

    /// Room for `count` elements in `array`, growing it geometrically.
    private static func reserve<Element>(_ count: Int, in array: inout [Element]) {
        if array.capacity < count { array.reserveCapacity(max(count, 2 * array.capacity)) }
    }

    /// The first index of each word of `constants`, for the next function's lowerer. Made
    /// when asked, not as each function is appended: a library of one function never needs it.
    mutating func constantIndexForNextFunction() -> WordIndex {
        for index in indexedConstants..<constants.count where constantIndex[constants[index]] == nil {
            constantIndex[constants[index]] = index
        }
        indexedConstants = constants.count
        return constantIndex
    }

    /// Appends a lowered function; returns a diagnostic when it exceeds a library limit.
    mutating func append(_ lowered: consuming LoweredFunction) -> Diagnostic? {
        // The state moved out, not copied: a copy shares its arrays, and the passes' first
        // write to each would copy the whole array.
        var lowered = lowered
        var state = LoweringState.moved(from: &lowered.state)
        let roots = lowered.outputs.flatMap { output in
            (0..<output.slot.type.componentCount).map { output.first + $0 }
        } + (lowered.discardRegister.map { [$0] } ?? [])
        let inputRegisters = lowered.inputs.map { $0.first }
        if optimize {
            let kept = roots + inputRegisters
            DeadCodeEliminator.run(&state, roots: kept)
            CopyCoalescer.run(&state)
            let renumbered = numbersValues ? ValueNumbering.run(&state) : 0
            if propagatesCopies {
                CopyPropagator.run(&state)
                // A recomputation that became a copy may have been the only reader of another
                // copy (`i.x + 1` feeding `· 127.1`): sweep once more. Only after propagation,
                // which moves the debugger's bindings off copies that go.
                if renumbered > 0 { DeadCodeEliminator.run(&state, roots: kept) }
            }
            if hoistsInvariants { LoopInvariantHoisting.run(&state, keep: kept) }
        } else {
            DeadCodeEliminator.removeJumpsToNext(&state.body)
        }
        // The verifier (and the reader) reject these too, but in the library's terms: name the setting.
        let slotChecks: [(count: Int, limit: Int, what: String, setting: String)] = [
            (Int(lowered.uniformWordCount), limits.maxUniformWords, "uniform words", "maxUniformWords"),
            (Int(lowered.bufferCount), limits.maxBuffers, "buffer slots", "maxBuffers"),
            (Int(lowered.textureCount), limits.maxTextures, "texture slots", "maxTextures"),
            (lowered.parameters.count, limits.maxParameters, "parameters", "maxParameters"),
            (lowered.inputs.count, limits.maxLaneSlots, "input lane slots", "maxLaneSlots"),
            (lowered.outputs.count, limits.maxLaneSlots, "output lane slots", "maxLaneSlots"),
        ]
        for check in slotChecks where check.count > check.limit {
            return .error("function '\(lowered.name)' needs \(check.count) \(check.what), more than the limit of \(check.limit) (LibraryLimits.\(check.setting))", at: lowered.range)
        }
        let allocation = RegisterAllocator(state, pinnedLive: roots, inputs: inputRegisters)
        let limit = min(limits.maxRegisters, Int(UInt16.max))
        if allocation.registerCount > limit {
            return .error("function '\(lowered.name)' needs \(allocation.registerCount) registers, more than the limit of \(limit) (LibraryLimits.maxRegisters)", at: lowered.range)
        }
        func physical(_ register: VirtualRegister) -> UInt16 {
            register < 0 ? 0 : UInt16(allocation.physical(register, state))
        }
        let prologueStart = code.count
        let prologueEnd = prologueStart + state.prologue.count + 1
        // Labels are numbered densely from 0 (`FunctionLowerer.newLabel`): their addresses in
        // an array, not a dictionary (-1: not placed).
        var labelAddress = [Int](repeating: -1, count: state.labelCount)
        var address = prologueEnd
        for instruction in state.body {
            if instruction.isLabel {
                let label = Int(instruction.imm)
                if label >= labelAddress.count { labelAddress += repeatElement(-1, count: label + 1 - labelAddress.count) }
                labelAddress[label] = address
            } else if !instruction.isDebug {
                address += 1
            }
        }
        let bodyEnd = address + 1
        func jumpTarget(_ label: UInt32) -> UInt32 {
            let label = Int(label)
            return UInt32(label < labelAddress.count && labelAddress[label] >= 0 ? labelAddress[label] : bodyEnd - 1)
        }
        if bodyEnd > limits.maxInstructions {
            return .error("the library needs \(bodyEnd) instructions, more than the limit of \(limits.maxInstructions) (LibraryLimits.maxInstructions)", at: lowered.range)
        }
        // The lowering state's pool starts with the library's.
        constants = state.constants
        if constants.count > limits.maxConstants {
            return .error("the library needs \(constants.count) constants, more than the limit of \(limits.maxConstants) (LibraryLimits.maxConstants)", at: lowered.range)
        }
        var lastLocation: (file: Int, line: Int, column: Int)?
        func note(_ location: Int) {
            guard location < state.locations.count else { return }
            let l = state.locations[location]
            if let last = lastLocation, last == (l.file, l.line, l.column) { return }
            lastLocation = (l.file, l.line, l.column)
            let entry = DebugLocation(firstInstruction: UInt32(code.count), file: UInt16(clamping: l.file),
                                      line: UInt32(clamping: l.line), column: UInt16(clamping: l.column))
            if let previous = debugLocations.last, previous.firstInstruction == entry.firstInstruction {
                debugLocations[debugLocations.count - 1] = entry
            } else {
                debugLocations.append(entry)
            }
        }
        func encode(_ instruction: IRInstruction) {
            note(instruction.location)
            var out = Instruction(instruction.opcode, mode: instruction.mode)
            switch instruction.shape {
            case .none: break
            case .destConstant, .destArgument, .textureSize:
                out.a = physical(instruction.a); out.imm = instruction.imm
            case .unary:
                out.a = physical(instruction.a); out.b = physical(instruction.b)
            case .binary:
                out.a = physical(instruction.a); out.b = physical(instruction.b); out.c = physical(instruction.c)
            case .ternary:
                out.a = physical(instruction.a); out.b = physical(instruction.b)
                out.c = physical(instruction.c); out.d = physical(instruction.d)
            case .loadRegisterArray, .texture:
                out.a = physical(instruction.a); out.b = physical(instruction.b); out.c = physical(instruction.c)
                out.imm = instruction.imm
            case .storeRegisterArray, .textureWrite:
                out.a = physical(instruction.a); out.b = physical(instruction.b)
                out.c = physical(instruction.c); out.d = physical(instruction.d); out.imm = instruction.imm
            case .loadConstantArray:
                out.a = physical(instruction.a); out.b = physical(instruction.b)
                out.d = instruction.literalCount; out.imm = instruction.imm
            case .loadBuffer:
                out.a = physical(instruction.a); out.b = physical(instruction.b); out.imm = instruction.imm
            case .jump:
                out.imm = jumpTarget(instruction.imm)
            case .conditionalJump:
                out.a = physical(instruction.a)
                out.imm = jumpTarget(instruction.imm)
            }
            code.append(out)
        }
        // The function's code is exactly `bodyEnd - prologueStart` instructions, and each
        // makes at most one location entry: room for both up front (at least doubling, so
        // a library of many functions is not copied once per function).
        Self.reserve(bodyEnd, in: &code)
        Self.reserve(debugLocations.count + bodyEnd - prologueStart, in: &debugLocations)
        var prologueAddress: [Int] = []
        prologueAddress.reserveCapacity(state.prologue.count)
        for instruction in state.prologue {
            prologueAddress.append(code.count)
            encode(instruction)
        }
        code.append(Instruction(.ret))
        var bodyAddress: [Int?] = []
        bodyAddress.reserveCapacity(state.body.count)
        for instruction in state.body {
            if instruction.isMarker {
                bodyAddress.append(nil)
            } else {
                bodyAddress.append(code.count)
                encode(instruction)
            }
        }
        code.append(Instruction(.ret))
        DebugInfoBuilder(allocation: allocation, prologueAddress: prologueAddress, bodyAddress: bodyAddress,
                         finalInstruction: code.count - 1,
                         inputUnits: Set(lowered.inputs.map { state.registerUnit[$0.first] }))
            .append(&state, to: &debugInfo)

        let location = lowered.range.start
        functions.append(Function(
            name: lowered.name, kind: lowered.kind, parameters: lowered.parameters,
            returnTypeName: lowered.returnTypeName, registerCount: UInt16(allocation.registerCount),
            uniformRegisterCount: UInt16(allocation.uniformRegisterCount), uniformWordCount: lowered.uniformWordCount,
            bufferCount: lowered.bufferCount, textureCount: lowered.textureCount,
            prologue: UInt32(prologueStart)..<UInt32(prologueEnd), body: UInt32(prologueEnd)..<UInt32(bodyEnd),
            inputs: lowered.inputs.map { entry in
                var slot = entry.slot
                slot.register = physical(entry.first)
                return slot
            },
            outputs: lowered.outputs.map { entry in
                var slot = entry.slot
                slot.register = physical(entry.first)
                return slot
            },
            discardRegister: lowered.discardRegister.map(physical),
            file: UInt16(clamping: location.file), line: UInt32(clamping: location.line), column: UInt16(clamping: location.column)))
        return nil
    }
}
