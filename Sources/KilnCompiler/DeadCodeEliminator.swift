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
    /// removed). Such a jump is never a loop's back edge, which goes backwards. Labels no
    /// jump names are not block boundaries and go too. In place, and only when there is
    /// something to remove (this runs after every sweep). Returns whether a jump went.
    @discardableResult
    static func removeJumpsToNext(_ body: inout [IRInstruction]) -> Bool {
        var drop = [Bool](repeating: false, count: body.count)
        var removedJump = false
        var labelCount = 0
        for index in body.indices where !body[index].isMarker {
            let shape = body[index].opcode.shape
            guard shape == .jump || shape == .conditionalJump else { continue }
            labelCount = max(labelCount, Int(body[index].imm) + 1)
            var next = index + 1
            while next < body.count && body[next].isMarker {
                // Only a label marker names a label (a debug marker's `imm` is an event).
                if body[next].isLabel && body[next].imm == body[index].imm {
                    drop[index] = true
                    removedJump = true
                    break
                }
                next += 1
            }
        }
        var named = [Bool](repeating: false, count: labelCount)
        for index in body.indices where !drop[index] && !body[index].isMarker {
            let shape = body[index].opcode.shape
            if shape == .jump || shape == .conditionalJump { named[Int(body[index].imm)] = true }
        }
        var dropsSomething = removedJump
        for index in body.indices where body[index].isLabel {
            let label = Int(body[index].imm)
            if label >= labelCount || !named[label] {
                drop[index] = true
                dropsSomething = true
            }
        }
        guard dropsSomething else { return false }
        body.removeFlagged(drop)
        return removedJump
    }
}
