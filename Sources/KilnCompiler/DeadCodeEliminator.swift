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

    /// Marks from the roots and removes what stayed unmarked. A unit turning live makes
    /// every instruction writing it kept, and what those read live in turn: a worklist over
    /// each unit's definitions reaches the same least fixed point as sweeping the whole
    /// code until nothing changes, in one visit per instruction instead of one per sweep.
    /// (Straight-line code needed only two sweeps, so the gain there is small — 0.3 % of
    /// raymarch's compile; a loop whose values feed back needs one sweep per step back.)
    private static func sweep(_ state: inout LoweringState, roots: [VirtualRegister]) {
        let unitOf = state.registerUnit
        let unitCount = state.units.count
        let prologueCount = state.prologue.count
        // Each unit's defining instructions as one flat array, `definitions[definitionStart[u]
        // ..< definitionStart[u + 1]]`; prologue indexes first, body indexes after them.
        var definitionStart = PassTable(repeating: 0, count: unitCount + 1)
        var live = PassTable(repeating: false, count: unitCount)
        // Units marked live whose definitions are still to visit (each at most once).
        var pending: [Int] = []
        pending.reserveCapacity(unitCount)
        func mark(_ register: VirtualRegister) {
            if register >= 0 && !live[unitOf[register]] {
                live[unitOf[register]] = true
                pending.append(unitOf[register])
            }
        }
        for root in roots { mark(root) }
        for part in [state.prologue, state.body] {
            for instruction in part {
                if let destination = instruction.writes {
                    definitionStart[unitOf[destination] + 1] += 1
                } else {
                    // Markers, jumps, `ret` and texture writes stay: what they read is live.
                    instruction.forEachRead(mark)
                }
            }
        }
        for u in 0..<unitCount { definitionStart[u + 1] += definitionStart[u] }
        var definitions = PassTable(repeating: 0, count: definitionStart[unitCount])
        var filled = PassTable(copying: definitionStart)
        for (offset, part) in [state.prologue, state.body].enumerated() {
            for index in part.indices {
                if let destination = part[index].writes {
                    definitions[filled[unitOf[destination]]] = offset == 0 ? index : prologueCount + index
                    filled[unitOf[destination]] += 1
                }
            }
        }
        while let u = pending.popLast() {
            var next = definitionStart[u]
            while next < definitionStart[u + 1] {
                let index = definitions[next]
                if index < prologueCount {
                    state.prologue[index].forEachRead(mark)
                } else {
                    state.body[index - prologueCount].forEachRead(mark)
                }
                next += 1
            }
        }
        func keeps(_ instruction: IRInstruction) -> Bool {
            guard let destination = instruction.writes else { return true }
            return live[unitOf[destination]]
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
        // Straight-line code (most small shaders, and every body once its jumps went):
        // nothing to look at, and no tables to make.
        guard body.contains(where: { $0.isJump || $0.isLabel }) else { return false }
        var drop = PassTable(repeating: false, count: body.count)
        var removedJump = false
        var labelCount = 0
        for index in body.indices where body[index].isJump {
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
        var named = PassTable(repeating: false, count: labelCount)
        for index in body.indices where !drop[index] && body[index].isJump { named[Int(body[index].imm)] = true }
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
