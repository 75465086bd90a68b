/// Removes instructions whose results nothing uses, across prologue and body.
///
/// Liveness is tracked per register unit (a group is live when any member is read).
/// Roots are the outputs, the discard register and everything jumps read; a definition
/// is kept when its unit is live. Iterating to a fixed point also removes cycles that
/// only feed themselves (an accumulator nobody reads).
enum DeadCodeEliminator {
    static func run(_ state: inout LoweringState, roots: [VirtualRegister]) {
        var live = [Bool](repeating: false, count: state.units.count)
        for root in roots { live[state.registerUnit[root]] = true }
        func unit(_ register: VirtualRegister) -> Int { state.registerUnit[register] }
        func keeps(_ instruction: IRInstruction) -> Bool {
            if instruction.isMarker { return true }
            switch instruction.opcode.shape {
            case .none, .jump, .conditionalJump: return true
            default:
                guard let destination = instruction.writes else { return true }
                return live[unit(destination)]
            }
        }
        var changed = true
        while changed {
            changed = false
            for index in state.body.indices.reversed() where keeps(state.body[index]) {
                state.body[index].forEachRead { register in
                    if register >= 0 && !live[unit(register)] { live[unit(register)] = true; changed = true }
                }
            }
            for index in state.prologue.indices.reversed() where keeps(state.prologue[index]) {
                state.prologue[index].forEachRead { register in
                    if register >= 0 && !live[unit(register)] { live[unit(register)] = true; changed = true }
                }
            }
        }
        state.prologue.removeAll { !keeps($0) }
        state.body.removeAll { !keeps($0) }
        removeJumpsToNext(&state.body)
    }

    /// `jmp L` followed (through labels only) by `L:` does nothing.
    static func removeJumpsToNext(_ body: inout [IRInstruction]) {
        var result: [IRInstruction] = []
        result.reserveCapacity(body.count)
        for (index, instruction) in body.enumerated() {
            if instruction.opcode == .jmp && !instruction.isMarker {
                var next = index + 1
                var falls = false
                while next < body.count && body[next].isMarker {
                    if body[next].imm == instruction.imm { falls = true }
                    next += 1
                }
                if falls { continue }
            }
            result.append(instruction)
        }
        // Labels no jump names are not block boundaries: drop them.
        var targets = Set<UInt32>()
        for instruction in result where !instruction.isMarker {
            if instruction.opcode.shape == .jump || instruction.opcode.shape == .conditionalJump { targets.insert(instruction.imm) }
        }
        body = result.filter { !$0.isLabel || targets.contains($0.imm) }
    }
}
