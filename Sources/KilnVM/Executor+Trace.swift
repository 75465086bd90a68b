import KilnBytecode

/// The debugger seam: run the body like `run()`, recording every executed instruction for
/// one lane. A separate loop over the same `Execution.step`, so the hot loop carries no
/// instrumentation.
extension Executor {
    /// Runs the body over all lanes (exactly as `run()` would) and returns, for `lane`, each
    /// executed instruction with its source location and the values it wrote to that lane.
    /// `lane` is clamped into `0 ..< laneCount`.
    public func trace(lane: Int) throws(VMError) -> [TraceStep] {
        try trace(lane: lane, maxSteps: .max).steps
    }

    /// Like `trace(lane:)`, with the lane's registers at the start of the body, and at most
    /// `maxSteps` steps recorded: past that the batch runs on unrecorded (its outputs stay
    /// exactly what `run()` computes) and the trace says it was truncated.
    public func trace(lane: Int, maxSteps: Int) throws(VMError) -> LaneTrace {
        let lane = min(max(lane, 0), laneCount - 1)
        let library = prepared.library
        let start = prepared.bodyStart
        let m = machine
        var steps: [TraceStep] = []
        let initial = (0..<prepared.registerCount).map { lanes(UInt16($0))[lane] }
        var executed = 0
        var truncated = false
        try prepared.body.withUnsafeBufferPointer { (code) throws(VMError) in
            var pc = 0
            while true {
                let instruction = code[pc]
                executed += 1
                if steps.count >= maxSteps {
                    // Unrecorded from here: the same step function, no bookkeeping.
                    truncated = true
                    switch Execution.step(m, instruction) {
                    case .next: pc += 1
                    case .jump(let target):
                        if target <= pc && executed > budget { throw budgetError(instruction: start + pc) }
                        pc = target
                    case .finish: return
                    }
                    continue
                }
                // A store's destination depends on index and mask values it may overwrite.
                var storeTarget: UInt16?
                if instruction.opcode == .str {
                    let k = m[instruction.c][lane]
                    if k < instruction.imm && m[instruction.d][lane] != 0 {
                        storeTarget = UInt16(truncatingIfNeeded: Int(instruction.a) / laneCount + Int(k))
                    }
                }
                let flow = Execution.step(m, instruction)
                let synthetic = pc == code.count - 1          // the `ret` preparation appended
                if !synthetic {
                    let destinations = Self.destinations(of: instruction, storeTarget: storeTarget)
                    let writes = destinations.map { TraceStep.Write(register: $0, value: lanes($0)[lane]) }
                    var jumped = false
                    if case .jump(let target) = flow, target != pc + 1 { jumped = true }
                    steps.append(TraceStep(instruction: start + pc, opcode: instruction.opcode,
                                           location: library.location(ofInstruction: start + pc), writes: writes,
                                           jumped: jumped))
                }
                switch flow {
                case .next:
                    pc += 1
                case .jump(let target):
                    if target <= pc && executed > budget { throw budgetError(instruction: start + pc) }
                    pc = target
                case .finish:
                    return
                }
            }
        }
        return LaneTrace(initialRegisters: initial, steps: steps, truncated: truncated, executed: executed)
    }

    /// Registers an instruction writes (for `str`, the one element it stored in this lane).
    static func destinations(of i: PreparedInstruction, storeTarget: UInt16?) -> [UInt16] {
        let a = UInt16(truncatingIfNeeded: Int(i.a) / laneCount)
        switch i.opcode.shape {
        case .none, .jump, .conditionalJump, .textureWrite: return []
        case .storeRegisterArray: return storeTarget.map { [$0] } ?? []
        case .texture: return [a, a + 1, a + 2, a + 3]
        case .textureSize: return [a, a + 1]
        case .destConstant, .destArgument, .unary, .binary, .ternary, .loadRegisterArray,
             .loadConstantArray, .loadBuffer:
            return [a]
        }
    }
}
