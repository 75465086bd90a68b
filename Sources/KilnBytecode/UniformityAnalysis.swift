/// Which body instructions of a function compute the same value in every lane of a batch.
///
/// A forward dataflow pass over the bytecode (Karrenberg & Hack's "uniform vs varying"
/// classification, on registers instead of SSA values). The fact it proves per program
/// point is: *register r holds the same 32 bits in all `laneCount` lanes*. The rules:
///
/// - `const`, `arg`, `texsize` write uniform registers;
/// - a lane-wise operation (`unary`/`binary`/`ternary` shapes, `sel` included) is uniform
///   when all its operands are: the same inputs give the same bits in every lane;
/// - loads (`ldr`, `ldk`, `ldb`) and texture reads (`sample`, `texread`) are uniform when
///   their index or coordinates are (and, for `ldr`, every register of the array is);
/// - `str` with a uniform index, value and mask keeps a uniform array uniform; any varying
///   operand makes the whole array varying;
/// - control flow is always batch-wide (`jz`/`jnz` read lane 0 of a uniform condition,
///   `jnone`/`jany` reduce a whole mask), so a branch never splits the lanes and merges
///   only have to meet the states of their predecessors (varying wins);
/// - on entry to the body the registers the prologue writes are uniform (it runs once over
///   all lanes from uniform words and constants), except lane inputs and the discard mask;
///   every other register is varying: the renderer (and `Executor.lanes`) may write any of
///   them between batches, and compiled code writes its temporaries before reading them.
///   The state at `ret` flows back to the entry, for what one batch leaves to the next. Masked writes need no special rule: divergent control flow is
/// lowered to `sel` on a varying mask, which the rule for lane-wise operations already
/// makes varying.
///
/// The VM uses the result to run uniform instructions on one lane and broadcast the value
/// (`UniformityAnalysis.isScalarizable`); the disassembler prints it. The analysis is a
/// function of the bytecode alone, so a library needs no extra field the verifier would
/// have to re-prove, and a hostile library gains nothing: a wrong fact is impossible.
public struct UniformityAnalysis: Sendable {
    /// For each instruction of the body (index relative to `function.body.lowerBound`):
    /// whether every register it writes is uniform afterwards. False for instructions that
    /// write nothing.
    public let uniform: [Bool]

    /// Most register-set words the pass keeps (one set per basic block: 32 MiB), and most
    /// units of work it does (instructions transferred, set words copied and met) before
    /// it gives up and calls everything varying. Compiled shaders stay far below both
    /// (bench/raymarch: 40 blocks of one word); only hostile libraries reach them.
    public static let maxStateWords = 4 << 20
    public static let maxWork = 50_000_000

    /// The number of body instructions that are uniform.
    public var uniformCount: Int { uniform.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// Analyses `function`'s body in `library` (which need not be verified: out-of-range
    /// jumps end the range like `ret`, registers past the file count as varying).
    public init(library: Library, function: Function) {
        let bodyRange = library.clampedRange(function.body)
        uniform = Self.analyze(Array(library.code[bodyRange]), start: bodyRange.lowerBound,
                               prologue: library.code[library.clampedRange(function.prologue)], function: function)
    }

    /// Whether the VM may run an instruction of `opcode` that the analysis found uniform on
    /// one lane and broadcast its one destination register: a pure, lane-wise operation
    /// whose lane 0 depends only on lane 0 of its operands. Moves and constants are excluded
    /// because a broadcast costs what they cost; derivatives read neighbouring lanes.
    public static func isScalarizable(_ opcode: Opcode) -> Bool {
        switch opcode {
        case .mov, .const, .arg, .dfdx, .dfdy, .dfdxc, .dfdyc: return false
        default: break
        }
        switch opcode.shape {
        case .unary, .binary, .ternary, .loadRegisterArray, .loadConstantArray, .loadBuffer: return true
        default: return false
        }
    }

    // MARK: - The pass

    /// Applies one instruction to `state`; returns whether what it wrote is uniform.
    static func transfer(_ i: Instruction, _ state: inout RegisterSet) -> Bool {
        let a = Int(i.a), b = Int(i.b), c = Int(i.c), d = Int(i.d)
        let count = Int(min(i.imm, UInt32(UInt16.max) + 1))
        func write(_ register: Int, _ value: Bool) -> Bool { state[register] = value; return value }
        switch i.opcode.shape {
        case .none, .jump, .conditionalJump, .textureWrite:
            return false
        case .destConstant, .destArgument:
            return write(a, true)
        case .textureSize:
            state[a] = true
            return write(a + 1, true)
        case .unary:
            return write(a, state[b])
        case .binary:
            return write(a, state[b] && state[c])
        case .ternary:
            return write(a, state[b] && state[c] && state[d])
        case .loadRegisterArray:
            let value = state[c] && (0..<count).allSatisfy { state[b + $0] }
            return write(a, value)
        case .storeRegisterArray:
            if state[b] && state[c] && state[d] { return false }
            for k in 0..<count { state[a + k] = false }
            return false
        case .loadConstantArray, .loadBuffer:
            return write(a, state[b])
        case .texture:
            let value = state[b] && state[c]
            for k in 0..<4 { state[a + k] = value }
            return value
        }
    }

    static func analyze(_ body: [Instruction], start: Int, prologue: ArraySlice<Instruction>,
                        function: Function) -> [Bool] {
        guard !body.isEmpty else { return [] }
        let registerCount = BasicBlocks.registerSpan(of: body, minimum: Int(function.registerCount))
        // Entry: what the prologue wrote, less what the renderer writes per batch.
        var entry = RegisterSet(count: registerCount, full: false)
        for i in prologue { for r in destinations(i) where r < registerCount { entry[r] = true } }
        var perBatch: [Int] = []
        for slot in function.inputs {
            for k in 0..<max(1, slot.type.componentCount) { perBatch.append(Int(slot.register) + k) }
        }
        if let discard = function.discardRegister { perBatch.append(Int(discard)) }
        for r in perBatch { entry[r] = false }

        let blocks = BasicBlocks(body[...], start: start)
        // A bound on the pass itself (a verified library may have 2²⁰ instructions and 8192
        // registers): past it nothing is claimed uniform, which is always sound.
        let words = (registerCount + 63) / 64
        guard blocks.starts.count * words <= Self.maxStateWords else { return Array(repeating: false, count: body.count) }
        let blockCost = blocks.visitCosts(of: body, words: words)
        var spent = 0
        var states: [RegisterSet?] = Array(repeating: nil, count: blocks.starts.count)
        states[0] = entry
        var work: [Int] = [0]
        var queued = Array(repeating: false, count: blocks.starts.count)
        queued[0] = true
        func flow(_ state: RegisterSet, into block: Int) {
            if var existing = states[block] {
                guard existing.intersect(state) else { return }
                states[block] = existing
            } else {
                states[block] = state
            }
            if !queued[block] { queued[block] = true; work.append(block) }
        }
        while let block = work.popLast() {
            queued[block] = false
            guard var state = states[block] else { continue }
            spent += blockCost[block]
            guard spent <= Self.maxWork else { return Array(repeating: false, count: body.count) }
            for k in blocks.range(of: block) { _ = transfer(body[k], &state) }
            for successor in blocks.successors[block] { flow(state, into: successor) }
            // Leaving the body: the next batch starts from what this one left, inputs rewritten.
            if blocks.exits[block] { flow(exitState(state, perBatch), into: 0) }
        }

        var result = Array(repeating: false, count: body.count)
        for block in blocks.starts.indices {
            guard var state = states[block] else { continue }     // unreachable code
            for k in blocks.range(of: block) { result[k] = transfer(body[k], &state) }
        }
        return result
    }

    /// The registers an instruction may write (for `str`, any element of its array).
    @inlinable public static func destinations(_ i: Instruction) -> Range<Int> {
        let a = Int(i.a)
        switch i.opcode.shape {
        case .none, .jump, .conditionalJump, .textureWrite: return a..<a
        case .destConstant, .destArgument, .unary, .binary, .ternary, .loadRegisterArray,
             .loadConstantArray, .loadBuffer: return a..<a + 1
        case .textureSize: return a..<a + 2
        case .texture: return a..<a + 4
        case .storeRegisterArray: return a..<a + Int(min(i.imm, UInt32(UInt16.max) + 1))
        }
    }

    static func exitState(_ state: RegisterSet, _ perBatch: [Int]) -> RegisterSet {
        var next = state
        for r in perBatch { next[r] = false }
        return next
    }
}
