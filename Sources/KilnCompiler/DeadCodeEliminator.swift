/// Removes instructions whose results nothing uses, across prologue and body.
///
/// Liveness is tracked per register unit (a group is live when any member is read).
/// Roots are the outputs, the discard register and everything jumps read; a definition
/// is kept when its unit is live. Iterating to a fixed point also removes cycles that
/// only feed themselves (an accumulator nobody reads). A jump to the instruction after it
/// goes too, conditional or not, with what computed its mask.
enum DeadCodeEliminator {
    static func run(_ state: inout LoweringState, roots: [VirtualRegister]) {
        // Jumps over nothing keep their masks' computations alive: remove those first, and
        // sweep again when the sweep emptied an arm (its `jnone` goes next).
        removeJumpsToNext(&state.body)
        repeat { sweep(&state, roots: roots) } while removeJumpsToNext(&state.body)
    }

    /// Marks from the roots to a fixed point and removes what stayed unmarked.
    private static func sweep(_ state: inout LoweringState, roots: [VirtualRegister]) {
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
    }

    /// A jump to `L` followed (through markers only) by `L:` does nothing, conditional or
    /// not: either way the next instruction runs (`jnone` over an arm whose code was all
    /// removed). Such a jump is never a loop's back edge, which goes backwards.
    /// Returns whether it removed a jump.
    @discardableResult
    static func removeJumpsToNext(_ body: inout [IRInstruction]) -> Bool {
        var removedJump = false
        var result: [IRInstruction] = []
        result.reserveCapacity(body.count)
        for (index, instruction) in body.enumerated() {
            let shape = instruction.opcode.shape
            if (shape == .jump || shape == .conditionalJump) && !instruction.isMarker {
                var next = index + 1
                var falls = false
                while next < body.count && body[next].isMarker {
                    if body[next].imm == instruction.imm { falls = true }
                    next += 1
                }
                if falls {
                    removedJump = true
                    continue
                }
            }
            result.append(instruction)
        }
        // Labels no jump names are not block boundaries: drop them.
        var targets = Set<UInt32>()
        for instruction in result where !instruction.isMarker {
            if instruction.opcode.shape == .jump || instruction.opcode.shape == .conditionalJump { targets.insert(instruction.imm) }
        }
        body = result.filter { !$0.isLabel || targets.contains($0.imm) }
        return removedJump
    }
}
