import KilnBytecode
import KilnLanguage

/// A debug event over virtual registers, as lowering records it; `LibraryAssembler` turns
/// it into a `DebugEvent` once the code and the registers are final.
struct PendingDebugEvent {
    enum Kind {
        /// `location` indexes `LoweringState.locations`; `mask` nil means every lane runs.
        case statement(activation: Int, location: Int, mask: VirtualRegister?)
        case bind(variable: Int, components: [VirtualRegister])
        case loopStart(loop: Int)
        case iteration(loop: Int, mask: VirtualRegister?)
        case loopEnd(loop: Int)
    }
    var kind: Kind

    /// Calls `body` with each register the event names (copy propagation leaves those alone).
    func forEachRegister(_ body: (VirtualRegister) -> Void) {
        switch kind {
        case .statement(_, _, let mask), .iteration(_, let mask):
            if let mask { body(mask) }
        case .bind(_, let components):
            components.forEach(body)
        case .loopStart, .loopEnd:
            break
        }
    }

    /// Makes the event name `replacement` wherever it named `register` (copy coalescing).
    mutating func rename(_ register: VirtualRegister, to replacement: VirtualRegister) {
        func swap(_ r: VirtualRegister?) -> VirtualRegister? { r == register ? replacement : r }
        switch kind {
        case .statement(let activation, let location, let mask):
            kind = .statement(activation: activation, location: location, mask: swap(mask))
        case .bind(let variable, let components):
            kind = .bind(variable: variable, components: components.map { $0 == register ? replacement : $0 })
        case .loopStart, .loopEnd:
            break
        case .iteration(let loop, let mask):
            kind = .iteration(loop: loop, mask: swap(mask))
        }
    }
}

/// Debug markers: where statements start (and under which mask), where variables get their
/// values, where loop iterations begin. They are emitted beside the code and never change
/// it (`IRInstruction.isDebug`).
extension FunctionLowerer {
    /// Variables larger than this are not tracked (a 4096-float table would make every
    /// write to it a 16 KB event).
    static let maxTrackedComponents = 256

    func emitDebug(_ kind: PendingDebugEvent.Kind) {
        state.debugEvents.append(PendingDebugEvent(kind: kind))
        emitBody(.debug(state.debugEvents.count - 1))
    }

    /// The current mask as a debug operand: nil when every lane that entered the entry runs.
    var debugMask: VirtualRegister? {
        switch state.mask {
        case .all: return nil
        case .lanes(let register): return register
        case .retired, .unreachable: return zero
        }
    }

    /// Starts an activation of `function` (the entry, or an inlined call at `location`).
    func newActivation(_ function: FunctionID, at location: SourceLocation) -> Int {
        state.debugActivations.append(DebugActivation(
            function: program.functions[function].name, depth: UInt16(clamping: state.frames.count),
            file: UInt16(clamping: location.file), line: UInt32(clamping: location.line)))
        return state.debugActivations.count - 1
    }

    func statementEvent() {
        emitDebug(.statement(activation: state.frames[frameIndex].activation, location: state.currentLocation, mask: debugMask))
    }

    /// Records the current value of variable `id` of `frame` (its root, for references).
    func bindEvent(_ frame: Int, _ id: VariableID) {
        let root = resolveRoot(frame, id, nil)
        guard root.frame < state.frames.count, let slot = slot(root.frame, root.id),
              let registers = slot.components,
              !registers.isEmpty, registers.count <= Self.maxTrackedComponents else { return }
        // The variable's entry in the debug information, made at its first binding. Found
        // through its frame's table, indexed like the frame's variables (a frame is one
        // activation): a dictionary keyed by activation and variable hashed on every bind.
        if state.frames[root.frame].debugVariableIndex.isEmpty {
            state.frames[root.frame].debugVariableIndex = Array(repeating: -1, count: state.frames[root.frame].variables.count)
        }
        var variable = state.frames[root.frame].debugVariableIndex[root.id]
        if variable < 0 {
            let function = state.frames[root.frame].function
            // Read through the indexes, not from a copy of the `VariableInfo` (a copy retains its name and type).
            let type = program.functions[function].variables[root.id].type
            let components = debugComponents(type, prefix: "")
            guard components.count == registers.count else { return }
            state.debugVariables.append(DebugVariable(
                name: program.functions[function].variables[root.id].name, typeName: debugTypeName(type),
                activation: UInt32(state.frames[root.frame].activation),
                line: UInt32(clamping: program.functions[function].variables[root.id].range.start.line),
                components: components))
            variable = state.debugVariables.count - 1
            state.frames[root.frame].debugVariableIndex[root.id] = variable
        }
        emitDebug(.bind(variable: variable, components: registers))
    }

    /// The spellings of the scalar and vector types, made once for the process and indexed
    /// like `plainComponents`: a variable's type name was otherwise spelled out by string
    /// interpolation at every variable's first binding.
    private static let plainTypeNames: [String] = ScalarType.allCases.flatMap { scalar in
        (1...4).map { width in width == 1 ? scalar.name : scalar.name + String(width) }
    }

    /// `type` as the source spells it (`KType.spelling(structs:)`), for the debugger.
    func debugTypeName(_ type: KType) -> String {
        switch type {
        case .scalar(let k):
            return k.rawValue
        // `char` and `uchar` share `short`'s and `ushort`'s `ScalarType`, not their names.
        case .vector(let k, let n) where n >= 2 && n <= 4 && k != .char && k != .uchar:
            return Self.plainTypeNames[Int(ScalarType(k).rawValue) * 4 + n - 1]
        default:
            return type.spelling(structs: structs)
        }
    }

    /// A vector's component labels: one array for the process, not one per call.
    private static let componentNames = ["x", "y", "z", "w"]

    /// The components of every scalar and vector type as a whole variable (no prefix), made
    /// once for the process: nearly every variable is one, and each of them otherwise made
    /// its own array (a sixth of the debug information's allocations). Indexed by
    /// `ScalarType` × 4 + width − 1.
    private static let plainComponents: [[DebugVariable.Component]] = ScalarType.allCases.flatMap { scalar in
        (1...4).map { width in
            width == 1 ? [.init(label: "", scalar: scalar)]
                       : (0..<width).map { .init(label: componentNames[$0], scalar: scalar) }
        }
    }

    /// Labels and types of the scalarized components of `type`, in component order.
    func debugComponents(_ type: KType, prefix: String) -> [DebugVariable.Component] {
        let names = Self.componentNames
        func join(_ label: String) -> String { prefix.isEmpty ? label : prefix + "." + label }
        if prefix.isEmpty {
            switch type {
            case .scalar(let k): return Self.plainComponents[Int(ScalarType(k).rawValue) * 4]
            case .vector(let k, let n) where n >= 2 && n <= 4: return Self.plainComponents[Int(ScalarType(k).rawValue) * 4 + n - 1]
            default: break
            }
        }
        switch type {
        case .scalar(let k):
            return [.init(label: prefix, scalar: ScalarType(k))]
        case .vector(let k, let n):
            return (0..<n).map { .init(label: join(names[$0]), scalar: ScalarType(k)) }
        case .matrix(let k, let columns, let rows):
            return (0..<columns).flatMap { c in
                (0..<rows).map { r in .init(label: "\(prefix)[\(c)].\(names[r])", scalar: ScalarType(k)) }
            }
        case .array(let element, let n):
            guard n * max(1, count(element)) <= Self.maxTrackedComponents else { return [] }
            return (0..<n).flatMap { debugComponents(element, prefix: "\(prefix)[\($0)]") }
        case .structure(let index):
            return structs[index].fields.flatMap { debugComponents($0.type, prefix: join($0.name)) }
        default:
            return []
        }
    }

    func newLoopID() -> Int {
        state.loopCount += 1
        return state.loopCount - 1
    }
}
