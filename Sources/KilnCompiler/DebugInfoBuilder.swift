import KilnBytecode

/// Turns one function's debug markers (over virtual registers and IR positions) into the
/// library's `DebugInfo` entries (over physical registers and instruction indexes), once
/// optimization and register allocation are done.
///
/// A marker fires at the next real instruction after it; when a label lies in between, it
/// belongs to the code falling into that label and is marked `fallthroughOnly`. A virtual
/// register becomes a `DebugValue`: its physical register and every instruction that
/// defines its register unit (the debugger takes the most recent one that wrote that
/// register). Values computed in the prologue or handed in as lane inputs have no
/// definitions in the body; a register the optimizer deleted becomes "optimised away".
struct DebugInfoBuilder {
    let allocation: RegisterAllocator
    /// Code index of each prologue and body IR instruction (nil for markers).
    let prologueAddress: [Int]
    let bodyAddress: [Int?]
    /// The body's final `ret`, where markers at the very end fire.
    let finalInstruction: Int
    /// Units the renderer writes before the body runs.
    let inputUnits: Set<Int>

    /// Appends the function's activations, variables, values and events, from its lowering
    /// `state`, to `info`, moving the activations and variables out of `state`. (The state is
    /// an argument, not a stored property: storing it copied the whole state, a retain and a
    /// release of each of its ~30 arrays.)
    func append(_ state: inout LoweringState, to info: inout DebugInfo) {
        let activationBase = UInt32(info.activations.count)
        let variableBase = UInt32(info.variables.count)
        // Moved, not copied: a copy retained each variable's name, type name and components
        // and the state's teardown released them again (~130 pairs a median compile). The
        // first function of a library, nearly always the only one, hands its arrays over whole.
        var activations: [DebugActivation] = [], variables: [DebugVariable] = []
        swap(&activations, &state.debugActivations)
        swap(&variables, &state.debugVariables)
        if activationBase > 0 {
            for index in variables.indices { variables[index].activation += activationBase }
        }
        if info.activations.isEmpty { info.activations = activations } else { info.activations += activations }
        if info.variables.isEmpty { info.variables = variables } else { info.variables += variables }
        // Tables indexed by unit, physical register and virtual register (all dense from 0),
        // not dictionaries: hashing them was a tenth of compiling an unrolled shader.
        // Definitions of each unit, as code indexes: unit u's are
        // `definitionAddresses[definitionStart[u] ..< definitionStart[u + 1]]`, in code order
        // (counted, then filled: one flat array instead of an array per unit).
        var definitionStart = PassTable(repeating: 0, count: state.units.count + 1)
        func forEachDefinition(_ body: (_ unit: Int, _ address: Int) -> Void) {
            for (index, instruction) in state.prologue.enumerated() {
                if let register = instruction.writes { body(state.registerUnit[register], prologueAddress[index]) }
            }
            for (index, instruction) in state.body.enumerated() {
                if let register = instruction.writes, let address = bodyAddress[index] { body(state.registerUnit[register], address) }
            }
        }
        forEachDefinition { unit, _ in definitionStart[unit + 1] += 1 }
        for unit in 0..<state.units.count { definitionStart[unit + 1] += definitionStart[unit] }
        var definitionAddresses = [UInt32](repeating: 0, count: definitionStart[state.units.count])
        var filled = PassTable(copying: definitionStart)
        forEachDefinition { unit, address in
            definitionAddresses[filled[unit]] = UInt32(address)
            filled[unit] += 1
        }
        let prologueCount = state.prologue.count
        // The unit whose value each physical register holds when the prologue ends (the body
        // never writes below `uniformRegisterCount`); -1 for none.
        var prologueHolder = PassTable(repeating: -1, count: allocation.registerCount)
        for instruction in state.prologue {
            guard let register = instruction.writes else { continue }
            let unit = state.registerUnit[register]
            guard allocation.base[unit] >= 0 else { continue }
            for offset in 0..<state.units[unit].size { prologueHolder[allocation.base[unit] + offset] = unit }
        }
        // Each virtual register's value index once asked for: `unknown`, `none` or the index.
        let unknown: Int64 = -2, none: Int64 = -1
        var valueIndex = PassTable(repeating: unknown, count: state.registerUnit.count)
        func value(_ register: VirtualRegister) -> UInt32? {
            if register >= 0, valueIndex[register] != unknown {
                return valueIndex[register] == none ? nil : UInt32(valueIndex[register])
            }
            var result: UInt32?
            let unit = register >= 0 ? state.registerUnit[register] : -1
            if unit >= 0, allocation.base[unit] >= 0 {
                let physical = UInt16(clamping: allocation.physical(register, state))
                if state.units[unit].isPrologue {
                    // Still in its register when the body starts: read by the body, or
                    // nothing after it in the prologue took the register.
                    if allocation.end[unit] > prologueCount || prologueHolder.indices.contains(Int(physical)) && prologueHolder[Int(physical)] == unit {
                        result = UInt32(info.values.count)
                        info.values.append(DebugValue(register: physical, definitions: []))
                    }
                } else if definitionStart[unit] < definitionStart[unit + 1] {
                    result = UInt32(info.values.count)
                    // A slice of the function's one array of definitions, not an array of its own.
                    let defined = definitionAddresses[definitionStart[unit] ..< definitionStart[unit + 1]]
                    info.values.append(DebugValue(register: physical, definitions: defined))
                } else if inputUnits.contains(unit) {
                    result = UInt32(info.values.count)
                    info.values.append(DebugValue(register: physical, definitions: []))
                }
            }
            if register >= 0 { valueIndex[register] = result.map(Int64.init) ?? none }
            return result
        }
        // Markers, each attached to the next real instruction. Every marker makes at most one
        // event: room for all of them up front instead of growing `events` one at a time.
        // (Grown at least twofold: a library of many functions is not copied once per function.)
        let events = info.events.count + state.debugEvents.count
        if info.events.capacity < events { info.events.reserveCapacity(max(events, 2 * info.events.capacity)) }
        var pending: [(event: Int, fallthroughOnly: Bool)] = []
        pending.reserveCapacity(8)
        func flush(at address: Int) {
            for (event, fallthroughOnly) in pending {
                guard let kind = convert(state.debugEvents[event].kind) else { continue }
                info.events.append(DebugEvent(instruction: UInt32(address), fallthroughOnly: fallthroughOnly, kind: kind))
            }
            pending.removeAll(keepingCapacity: true)
        }
        func convert(_ kind: PendingDebugEvent.Kind) -> DebugEvent.Kind? {
            switch kind {
            case .statement(let activation, let location, let mask):
                guard location < state.locations.count else { return nil }
                let l = state.locations[location]
                return .statement(activation: activationBase + UInt32(activation), file: UInt16(clamping: l.file),
                                  line: UInt32(clamping: l.line), column: UInt16(clamping: l.column),
                                  mask: mask.flatMap(value))
            case .bind(let variable, let components):
                return .bind(variable: variableBase + UInt32(variable), components: components.map(value))
            case .loopStart(let loop):
                return .loopStart(loop: UInt32(loop))
            case .iteration(let loop, let mask):
                return .iteration(loop: UInt32(loop), mask: mask.flatMap(value))
            case .loopEnd(let loop):
                return .loopEnd(loop: UInt32(loop))
            }
        }
        for (index, instruction) in state.body.enumerated() {
            if instruction.isDebug {
                pending.append((Int(instruction.imm), false))
            } else if instruction.isLabel {
                for i in pending.indices { pending[i].fallthroughOnly = true }
            } else if let address = bodyAddress[index] {
                flush(at: address)
            }
        }
        flush(at: finalInstruction)
    }
}
