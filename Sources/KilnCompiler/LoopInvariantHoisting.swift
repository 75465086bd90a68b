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
enum LoopInvariantHoisting {
    /// Moves invariant computations out of the loops of `state.body`; returns how many moved.
    /// `keep` are registers written outside the body too (inputs) or read after it (outputs,
    /// the discard mask): never moved, whatever the loop does with them.
    @discardableResult
    static func run(_ state: inout LoweringState, keep: [VirtualRegister]) -> Int {
        var definitions = [Int](repeating: 0, count: state.units.count)
        for instruction in state.prologue { if let r = instruction.writes, r >= 0 { definitions[state.registerUnit[r]] += 1 } }
        for instruction in state.body { if let r = instruction.writes, r >= 0 { definitions[state.registerUnit[r]] += 1 } }
        for register in keep where register >= 0 { definitions[state.registerUnit[register]] += 2 }
        var moved = 0
        var done = Set<UInt32>()
        // Each round takes the innermost loop not yet done; moving code shifts indices, so
        // the loops are found again after each.
        while let loop = innermostLoop(state.body, skipping: done) {
            done.insert(loop.label)
            moved += hoist(&state, loop: loop, definitions: definitions)
        }
        return moved
    }

    struct Loop {
        var label: UInt32
        /// Index of the label marker and of the last jump back to it.
        var head: Int, end: Int
    }

    /// The shortest loop whose label is not in `skipping` (shortest: no loop inside it is
    /// left, since an inner loop's region is strictly inside its outer one's).
    static func innermostLoop(_ body: [IRInstruction], skipping: Set<UInt32>) -> Loop? {
        var labelIndex: [UInt32: Int] = [:]
        var loops: [UInt32: Loop] = [:]
        for (index, instruction) in body.enumerated() {
            if instruction.isLabel { labelIndex[instruction.imm] = index; continue }
            guard !instruction.isDebug else { continue }
            let shape = instruction.opcode.shape
            guard shape == .jump || shape == .conditionalJump, !skipping.contains(instruction.imm),
                  let head = labelIndex[instruction.imm] else { continue }
            loops[instruction.imm, default: Loop(label: instruction.imm, head: head, end: index)].end = index
        }
        return loops.values.min { ($0.end - $0.head, $0.head) < ($1.end - $1.head, $1.head) }
    }

    private static func hoist(_ state: inout LoweringState, loop: Loop, definitions: [Int]) -> Int {
        let region = loop.head...loop.end
        var labelsInside = Set<UInt32>()
        for index in region where state.body[index].isLabel { labelsInside.insert(state.body[index].imm) }
        // Entered only by falling into the label: no jump from outside lands inside.
        for (index, instruction) in state.body.enumerated() where !region.contains(index) && !instruction.isMarker {
            let shape = instruction.opcode.shape
            if (shape == .jump || shape == .conditionalJump) && labelsInside.contains(instruction.imm) { return 0 }
        }
        var writesInside = [Int](repeating: 0, count: state.units.count)
        for index in region {
            if let r = state.body[index].writes, r >= 0 { writesInside[state.registerUnit[r]] += 1 }
        }
        // A result read before its one write (in an earlier pass of an enclosing loop) would
        // see the moved write's value where it saw an older one: such results stay.
        var firstRead = [Int](repeating: Int.max, count: state.units.count)
        for (index, instruction) in state.body.enumerated() {
            instruction.forEachRead { r in
                if r >= 0 { firstRead[state.registerUnit[r]] = min(firstRead[state.registerUnit[r]], index) }
            }
        }
        var moved: [IRInstruction] = []
        var movedIndices = Set<Int>()
        for index in region {
            let instruction = state.body[index]
            guard !instruction.isMarker, instruction.opcode != .mov else { continue }
            switch instruction.opcode.shape {
            case .unary, .binary, .ternary: break
            default: continue
            }
            guard let destination = instruction.writes, destination >= 0 else { continue }
            let unit = state.registerUnit[destination]
            guard definitions[unit] == 1, state.units[unit].size == 1, !state.units[unit].isPrologue,
                  firstRead[unit] > index else { continue }
            var invariant = true
            instruction.forEachRead { r in
                if r >= 0 && writesInside[state.registerUnit[r]] > 0 { invariant = false }
            }
            guard invariant else { continue }
            moved.append(instruction)
            movedIndices.insert(index)
            writesInside[unit] -= 1
        }
        guard !moved.isEmpty else { return 0 }
        var body: [IRInstruction] = []
        body.reserveCapacity(state.body.count)
        body.append(contentsOf: state.body[..<loop.head])
        body.append(contentsOf: moved)
        for index in loop.head..<state.body.count where !movedIndices.contains(index) { body.append(state.body[index]) }
        state.body = body
        return moved.count
    }
}
