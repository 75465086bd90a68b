import KilnBytecode

/// The debugger seam: run the body like `run()`, recording every executed instruction for
/// one lane. A separate loop over the same `Execution.step`, so the hot loop carries no
/// instrumentation.
extension Executor {
    /// Runs the body over all lanes (exactly as `run()` would) and returns, for `lane`, each
    /// executed instruction with its source location and the values it wrote to that lane.
    /// `lane` is clamped into `0 ..< laneCount`.
    public func trace(lane: Int) throws(VMError) -> [TraceStep] {
        let trace = trace(lane: lane, maxSteps: .max)
        if let failure = trace.failure { throw failure }
        return trace.steps
    }

    /// Like `trace(lane:)`, with the lane's registers at the start of the body, and at most
    /// `maxSteps` steps recorded: past that the batch runs on unrecorded (its outputs stay
    /// exactly what `run()` computes) and the trace says it was truncated. A run over the
    /// instruction budget returns its steps with `failure` set instead of throwing them away.
    public func trace(lane: Int, maxSteps: Int) -> LaneTrace {
        let lane = min(max(lane, 0), laneCount - 1)
        let library = prepared.library
        let start = prepared.bodyStart
        let m = machine
        var steps: [TraceStep] = []
        steps.reserveCapacity(min(maxSteps, 4096))
        let initial = (0..<prepared.registerCount).map { lanes(UInt16($0))[lane] }
        // The line table looked up once per instruction of the body, not once per step.
        let locations = (0..<prepared.body.count).map { library.location(ofInstruction: start + $0) }
        var truncated = false
        let count = prepared.body.count
        let (executed, failedAt) = prepared.body.withUnsafeBufferPointer { code in
            Executor.executeTracing(code.baseAddress!, m, budget: budget, lane: lane) { pc, instruction, flow, storeTarget in
                guard steps.count < maxSteps else {
                    truncated = true
                    return false
                }
                guard pc != count - 1 else { return true }        // the `ret` preparation appended
                let (first, run) = Self.destinationRun(of: instruction, storeTarget: storeTarget)
                var jumped = false
                if case .jump(let target) = flow, target != pc + 1 { jumped = true }
                steps.append(TraceStep(instruction: start + pc, opcode: instruction.opcode, location: locations[pc],
                                       first: first, count: run, jumped: jumped) { m[UInt32($0) * UInt32(laneCount)][lane] })
                return true
            }
        }
        return LaneTrace(initialRegisters: initial, steps: steps, truncated: truncated, executed: executed,
                         failure: failedAt >= 0 ? budgetError(instruction: start + failedAt) : nil)
    }

    /// The trace's loop: `execute`'s dispatch, all lanes, plus a call to `record` after each
    /// instruction with the element a `str` stored in `lane` (its target depends on index and
    /// mask values the store may overwrite, so it is found before the step). Recording stops
    /// for good when `record` returns false; the batch runs on. Out of line so the opcode
    /// switch is inlined and vectorized as in `execute`. Returns the instructions executed
    /// and the relative index of a jump that exceeded the budget, or -1.
    @inline(never)
    static func executeTracing(_ code: UnsafePointer<PreparedInstruction>, _ machine: Execution.Machine, budget: Int, lane: Int,
                               record: (_ pc: Int, _ instruction: PreparedInstruction, _ flow: Execution.Flow,
                                        _ storeTarget: UInt16?) -> Bool) -> (executed: Int, failedAt: Int) {
        var pc = 0, executed = 0
        var recording = true
        while true {
            let instruction = code[pc]
            executed &+= 1
            var storeTarget: UInt16?
            if recording && instruction.opcode == .str {
                let k = machine[instruction.c][lane]
                if k < instruction.imm && machine[instruction.d][lane] != 0 {
                    storeTarget = UInt16(truncatingIfNeeded: Int(instruction.a) / laneCount + Int(k))
                }
            }
            let flow = Execution.step(machine, instruction)
            if recording { recording = record(pc, instruction, flow, storeTarget) }
            switch flow {
            case .next:
                pc &+= 1
            case .jump(let target):
                if target <= pc && executed > budget { return (executed, pc) }
                pc = target
            case .finish:
                return (executed, -1)
            }
        }
    }

    /// The registers an instruction writes as a run `first ..< first + count` (no array).
    static func destinationRun(of i: PreparedInstruction, storeTarget: UInt16?) -> (first: UInt16, count: Int) {
        let a = UInt16(truncatingIfNeeded: Int(i.a) / laneCount)
        switch i.opcode.shape {
        case .none, .jump, .conditionalJump, .textureWrite: return (0, 0)
        case .storeRegisterArray: return storeTarget.map { ($0, 1) } ?? (0, 0)
        case .texture: return (a, 4)
        case .textureSize: return (a, 2)
        case .destConstant, .destArgument, .unary, .binary, .ternary, .loadRegisterArray,
             .loadConstantArray, .loadBuffer:
            return (a, 1)
        }
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
