/// Loop-invariant code motion: a computation inside a loop whose operands the loop never
/// writes is moved to just before the loop, so it runs once per batch instead of once per
/// iteration.
///
/// Why: shader art computes per-pixel values inside loops that do not depend on the loop —
/// `exp(-length(uv0))` in the loop of the palette tutorial every shader-art collection has a
/// copy of, `int(position.x)` in an index, a ray's inverse direction inside a march. Uniform
/// values are already once per batch (the VM broadcasts them); these are varying, so the
/// VM computed them over every lane on every iteration.
///
/// Exact: a moved instruction is a plain computation (`unary`, `binary`, `ternary` shapes, as
/// in `ValueNumbering`: a function of its operands' bits, reading no mask it is not given),
/// its operands hold the same bits at the new place as on every iteration, and its result
/// register is written nowhere else. Masked lanes and iterations that would have skipped
/// it compute a value nobody reads, as masked lanes already do. Pictures do not change by
/// a bit (`LoopInvariantHoistingTests`); the pixel debugger shows the moved instruction once,
/// before the loop, with its source line.
///
/// A loop is a label and the conditional or plain jumps back to it from later in the body;
/// its region runs from the label to the last of them. Code moves only out of a loop that
/// is entered by falling into its label — no jump from outside the region lands inside it —
/// so the new place runs before every entry. Inner loops go first, so a value invariant in
/// both moves out of both.
///
/// Linear in the body per level of loop nesting: the loops are found once, and moving code
/// out of one only reorders its own region (what moves lands just before its label, still
/// inside any enclosing loop), so every other loop keeps its bounds and its entries. That
/// needs loops that nest; lowering makes nothing else, and a body whose regions overlap
/// is left as it is. (Finding the innermost loop again after each move, over the whole
/// body, took 9.8 s for a source of 3 000 small loops that compiles in 0.6 s.)
enum LoopInvariantHoisting {
    /// Moves invariant computations out of the loops of `state.body`; returns how many moved.
    /// `keep` are registers written outside the body too (inputs) or read after it (outputs,
    /// the discard mask): never moved, whatever the loop does with them.
    @discardableResult
    static func run(_ state: inout LoweringState, keep: [VirtualRegister]) -> Int {
        let loops = enteredByFallingIn(nestedLoops(state.body), state.body)
        guard !loops.isEmpty else { return 0 }
        var definitions = PassTable(repeating: 0, count: state.units.count)
        for instruction in state.prologue { if let r = instruction.writes, r >= 0 { definitions[state.registerUnit[r]] += 1 } }
        // A result read before its one write (in an earlier pass of an enclosing loop) would
        // see the moved write's value where it saw an older one: such results stay. Moving a
        // write earlier, or a read of a value written before the loop, never makes a new one.
        var firstRead = PassTable(repeating: Int.max, count: state.units.count)
        var readBeforeWrite = PassTable(repeating: false, count: state.units.count)
        for (index, instruction) in state.body.enumerated() {
            instruction.forEachRead { r in
                if r >= 0 { firstRead[state.registerUnit[r]] = min(firstRead[state.registerUnit[r]], index) }
            }
            if let r = instruction.writes, r >= 0 {
                let unit = state.registerUnit[r]
                definitions[unit] += 1
                if firstRead[unit] < index { readBeforeWrite[unit] = true }
            }
        }
        for register in keep where register >= 0 { definitions[state.registerUnit[register]] += 2 }
        var moved = 0
        var writesInside = PassTable(repeating: 0, count: state.units.count)   // all 0 between loops
        for loop in loops.sorted(by: { ($0.end - $0.head, $0.head) < ($1.end - $1.head, $1.head) }) {
            moved += hoist(&state, loop: loop, definitions: definitions, readBeforeWrite: readBeforeWrite,
                           writesInside: &writesInside)
        }
        return moved
    }

    struct Loop {
        var label: UInt32
        /// Index of the label marker and of the last jump back to it.
        var head: Int, end: Int
    }

    /// Every loop of `body`, or none when two regions overlap without one containing the other.
    static func nestedLoops(_ body: [IRInstruction]) -> [Loop] {
        var labelIndex: [UInt32: Int] = [:]
        var loops: [UInt32: Loop] = [:]
        for (index, instruction) in body.enumerated() {
            if instruction.isLabel { labelIndex[instruction.imm] = index; continue }
            guard instruction.isJump, let head = labelIndex[instruction.imm] else { continue }
            loops[instruction.imm, default: Loop(label: instruction.imm, head: head, end: index)].end = index
        }
        let byHead = loops.values.sorted { ($0.head, -$0.end) < ($1.head, -$1.end) }
        var open: [Loop] = []
        for loop in byHead {
            while let last = open.last, last.end < loop.head { open.removeLast() }
            if let last = open.last, loop.end > last.end { return [] }
            open.append(loop)
        }
        return byHead
    }

    /// The loops no jump from outside their region enters.
    static func enteredByFallingIn(_ loops: [Loop], _ body: [IRInstruction]) -> [Loop] {
        guard !loops.isEmpty else { return [] }
        var sources: [UInt32: [Int]] = [:]
        for (index, instruction) in body.enumerated() where instruction.isJump {
            sources[instruction.imm, default: []].append(index)
        }
        var entered: [Loop] = []
        next: for loop in loops {
            let region = loop.head...loop.end
            for index in region where body[index].isLabel {
                guard let jumps = sources[body[index].imm] else { continue }
                if jumps.contains(where: { !region.contains($0) }) { continue next }
            }
            entered.append(loop)
        }
        return entered
    }

    /// `writesInside` is all zeros on entry and on return (a scratch array shared by the
    /// loops, so each costs its region, not the function's units).
    private static func hoist(_ state: inout LoweringState, loop: Loop, definitions: borrowing PassTable<Int>,
                              readBeforeWrite: borrowing PassTable<Bool>, writesInside: inout PassTable<Int>) -> Int {
        let region = loop.head...loop.end
        for index in region {
            if let r = state.body[index].writes, r >= 0 { writesInside[state.registerUnit[r]] += 1 }
        }
        defer {
            for index in region {
                if let r = state.body[index].writes, r >= 0 { writesInside[state.registerUnit[r]] = 0 }
            }
        }
        var moved: [IRInstruction] = []
        var stays: [IRInstruction] = []
        for index in region {
            let instruction = state.body[index]
            guard instruction.isPlainComputation, let destination = instruction.writes, destination >= 0 else {
                stays.append(instruction)
                continue
            }
            let unit = state.registerUnit[destination]
            var invariant = definitions[unit] == 1 && state.units[unit].size == 1 && !state.units[unit].isPrologue
                && !readBeforeWrite[unit]
            instruction.forEachRead { r in
                if r >= 0 && writesInside[state.registerUnit[r]] > 0 { invariant = false }
            }
            if invariant {
                moved.append(instruction)
                writesInside[unit] -= 1
            } else {
                stays.append(instruction)
            }
        }
        guard !moved.isEmpty else { return 0 }
        // The same length: indices outside the region do not move.
        state.body.replaceSubrange(region, with: moved + stays)
        return moved.count
    }
}
