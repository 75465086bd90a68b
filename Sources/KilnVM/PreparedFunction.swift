import KilnBytecode

/// One instruction in the VM's internal form: decoded once, so the hot loop only reads fields.
///
/// - register fields are *lane offsets* (`register × laneCount`), ready to add to the
///   register-file pointer;
/// - jump targets are indexes into the instruction's own code range (prologue or body);
/// - `const` carries the constant's bits in `imm` instead of a pool index;
/// - fields that are counts (`ldk`'s `d`) stay counts.
struct PreparedInstruction: Sendable {
    var opcode: Opcode
    var mode: UInt8
    /// A `FusedPair` raw value: this instruction and the next run as one (`PairFusion`);
    /// 0 for an instruction on its own. In the struct's padding.
    var fusion: UInt8 = 0
    var a: UInt32
    var b: UInt32
    var c: UInt32
    var d: UInt32
    var imm: UInt32
    /// `Opcode.workCost`, in the struct's padding.
    var cost: UInt16 = 1
    /// On a scalar instruction of `PreparedFunction.runBody`: the scalar instructions that
    /// follow back to back in its block from here, this one included (`Executor` runs them in
    /// one call, `Execution.scalarSteps`), and `cost` is their summed cost. 1 everywhere
    /// else. Also in the padding: the stride stays 28 bytes.
    var scalarRun: UInt16 = 1

    /// Set in `mode` when the instruction is uniform and scalarizable: the executor runs it
    /// on one lane and broadcasts (`Execution.scalarStep`). `sample`, the only opcode with
    /// a real mode, is never scalarized, so the bit cannot collide with a `SampleMode`.
    static let scalarFlag: UInt8 = 0x80
    var isScalar: Bool { mode & Self.scalarFlag != 0 }
    /// Set beside `scalarFlag` when some lane-wide reader may see the destination: the
    /// scalar step then copies lane 0 into every lane. Without it only lane 0 is written,
    /// which is all that other scalar instructions read.
    static let broadcastFlag: UInt8 = 0x40
    var broadcasts: Bool { mode & Self.broadcastFlag != 0 }
    /// Set on scalar transcendentals (`UniformMemo`): the result is looked up by operand
    /// bits in the executor's memo before it is computed; `d` (unused by unary and binary
    /// opcodes) holds the instruction's memo slot.
    static let memoFlag: UInt8 = 0x20
    var isMemoized: Bool { mode & Self.memoFlag != 0 }
    /// Set beside `memoFlag` on binary opcodes, whose memo key holds both operands
    /// (decided once here: `Opcode.shape` is a switch the hot path should not call).
    static let memoBinaryFlag: UInt8 = 0x10
    var memoKeysTwoOperands: Bool { mode & Self.memoBinaryFlag != 0 }
}

/// An entry function converted to the VM's internal form, shareable by all workers.
///
/// The library must already be verified (`Verifier.verify`, or it came from the compiler).
/// Preparation is still memory-safe on its own: the register file is sized to cover every
/// register an instruction names (`registerWords`), jump targets outside the range become
/// the appended `ret`, and each range ends in a `ret` even if the code forgot one.
public final class PreparedFunction: @unchecked Sendable {
    public let library: Library
    public let function: Function
    /// Index of the function in `library.functions`.
    public let functionIndex: Int
    let prologue: [PreparedInstruction]
    /// The body instruction for instruction, as the debugger and the cost heatmap step it.
    let body: [PreparedInstruction]
    /// The body `Executor.run()` executes: `body` with consumers moved up to their
    /// producers inside blocks (`PairScheduling`) and its pairs fused (`PairFusion`).
    let runBody: [PreparedInstruction]
    /// Pairs fused in `runBody`.
    public let fusedPairCount: Int
    /// `runBody`'s native segments (`NativeSegments`), nil when it has none.
    let nativeCode: NativeSegments.Code?
    /// Instructions of `runBody` inside native segments.
    public let nativeInstructionCount: Int
    /// Absolute index (into `Library.code`) of the first prologue / body instruction.
    let prologueStart: Int
    let bodyStart: Int
    /// Body instructions `UniformityAnalysis` proved uniform (scalarized or not).
    public let uniformInstructionCount: Int
    /// Scalar transcendentals with a slot in the executor's `UniformMemo`.
    let memoSlotCount: Int
    /// Registers the executor allocates (≥ `function.registerCount`).
    let registerCount: Int
    /// The constant pool behind a stable pointer, shared by every executor (for `ldk`).
    let constants: UnsafePointer<UInt32>
    let constantCount: Int

    /// `uniformExecution: false` runs every instruction over all lanes, `pairFusion: false`
    /// every instruction on its own, `nativeSegments: false` every instruction in the
    /// interpreter (for tests that check none changes a bit, and for measuring what they save).
    public init(library: Library, functionIndex: Int, uniformExecution: Bool = true, pairFusion: Bool = true,
                nativeSegments: Bool = true) {
        self.library = library
        self.functionIndex = functionIndex
        let function = library.functions.indices.contains(functionIndex)
            ? library.functions[functionIndex]
            : Function(name: "", kind: .shape, parameters: [], returnTypeName: "", registerCount: 0,
                       uniformRegisterCount: 0, uniformWordCount: 0, bufferCount: 0, textureCount: 0,
                       prologue: 0..<0, body: 0..<0, inputs: [], outputs: [], discardRegister: nil,
                       file: 0, line: 0, column: 0)
        self.function = function
        var highestRegister = Int(function.registerCount)
        func prepare(_ range: Range<UInt32>) -> [PreparedInstruction] {
            let clamped = library.clampedRange(range)
            let (lower, upper) = (clamped.lowerBound, clamped.upperBound)
            var prepared: [PreparedInstruction] = []
            prepared.reserveCapacity(upper - lower + 1)
            for index in lower..<upper {
                let (instruction, registersUsed) = Self.prepare(library.code[index], range: lower..<upper,
                                                                 constants: library.constants)
                prepared.append(instruction)
                highestRegister = max(highestRegister, registersUsed)
            }
            prepared.append(PreparedInstruction(opcode: .ret, mode: 0, a: 0, b: 0, c: 0, d: 0, imm: 0))
            return prepared
        }
        prologue = prepare(function.prologue)
        var body = prepare(function.body)
        // Uniform work runs once per batch instead of once per lane.
        let uniformity = UniformityAnalysis(library: library, function: function)
        for (index, uniform) in uniformity.uniform.enumerated()
        where uniform && uniformExecution && UniformityAnalysis.isScalarizable(body[index].opcode) {
            body[index].mode |= PreparedInstruction.scalarFlag
            body[index].cost = Self.scalarCost(body[index].opcode)
        }
        // Uniform transcendentals remember their results by operand (`UniformMemo`).
        var memoSlots = 0
        for index in body.indices where body[index].isScalar && UniformMemo.isWorthIt(body[index].opcode) {
            body[index].mode |= PreparedInstruction.memoFlag
            if body[index].opcode.shape == .binary { body[index].mode |= PreparedInstruction.memoBinaryFlag }
            body[index].d = UInt32(memoSlots)
            memoSlots += 1
        }
        memoSlotCount = memoSlots
        let bodyRange = library.clampedRange(function.body)
        let bodyCode = Array(library.code[bodyRange])
        let blocks = BasicBlocks(bodyCode[...], start: bodyRange.lowerBound)
        Self.markBroadcasts(&body, code: bodyCode, blocks: blocks, function: function)
        self.body = body
        var runBody = body, runCode = bodyCode
        if pairFusion || nativeSegments { PairScheduling.schedule(&runBody, &runCode, blocks: blocks) }
        // Segments first: inside one, a pair's intermediate stays in a register anyway.
        nativeCode = nativeSegments
            ? NativeSegments.compile(&runBody, code: runCode, blocks: blocks, function: function, library: library) : nil
        nativeInstructionCount = nativeCode == nil ? 0 : runBody.count { $0.fusion == NativeSegments.marker }
        fusedPairCount = pairFusion ? PairFusion.fuse(&runBody, code: runCode, blocks: blocks, function: function) : 0
        Self.markScalarRuns(&runBody, code: runCode, blocks: blocks)
        self.runBody = runBody
        uniformInstructionCount = uniformity.uniformCount
        prologueStart = Int(function.prologue.lowerBound)
        bodyStart = Int(function.body.lowerBound)
        // Lane slots and the discard mask are registers the renderer touches directly.
        for slot in function.inputs + function.outputs {
            highestRegister = max(highestRegister, Int(slot.register) + slot.type.componentCount)
        }
        if let discard = function.discardRegister { highestRegister = max(highestRegister, Int(discard) + 1) }
        registerCount = max(1, highestRegister)
        let pool = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, library.constants.count))
        Executor.copy(library.constants, into: pool)
        constants = UnsafePointer(pool)
        constantCount = library.constants.count
    }

    deinit { UnsafeMutablePointer(mutating: constants).deallocate() }

    /// Sets `broadcastFlag` on the scalar instructions whose result a lane-wide reader may
    /// see before it is overwritten: a backward liveness pass over the body's blocks where
    /// only lane-wide reads count as uses — every operand of an instruction that is not
    /// scalar, the masks `jnone`/`jany` reduce, and at the exit the outputs and discard mask
    /// the renderer reads. Operands of scalar instructions and `jz`/`jnz` conditions read
    /// lane 0 only, so a value only they consume stays in lane 0.
    static func markBroadcasts(_ body: inout [PreparedInstruction], code: [Instruction], blocks: BasicBlocks,
                               function: Function) {
        guard !code.isEmpty else { return }
        let registerCount = BasicBlocks.registerSpan(of: code)
        let exitLive = BlockLiveness.rendererReads(of: function, registerCount: registerCount)

        // Which instructions' reads are lane-wide: not a scalar one's, not a `jz`/`jnz`'s
        // (lane 0 only). A copy, so the transfer does not capture `body` (an `inout`
        // parameter: every access from the closure would be checked for exclusivity).
        let laneWideReads = code.indices.map { !body[$0].isScalar && code[$0].opcode != .jz && code[$0].opcode != .jnz }
        let operands = DecodedOperands(code)
        /// live := live − defs(i) ∪ laneWideUses(i).
        func transfer(_ index: Int, _ live: inout RegisterSet) {
            operands.removeWrites(of: index, from: &live)
            if laneWideReads[index] { operands.addReads(of: index, to: &live) }
        }

        // Bounded like `UniformityAnalysis`; past the bound every scalar result is broadcast,
        // which is always correct.
        guard let liveness = BlockLiveness(blocks: blocks, code: code, registerCount: registerCount, exitLive: exitLive,
                                           exitReentersBody: false, transfer: transfer) else {
            for index in body.indices where body[index].isScalar { body[index].mode |= PreparedInstruction.broadcastFlag }
            return
        }
        for block in blocks.starts.indices {
            var live = liveness.liveOut(block)
            for index in blocks.range(of: block).reversed() {
                if body[index].isScalar && live[Int(code[index].a)] { body[index].mode |= PreparedInstruction.broadcastFlag }
                transfer(index, &live)
            }
        }
    }

    /// Sets `scalarRun` and the run's summed `cost` on every scalar instruction of `body`,
    /// from the end of each run backwards. A run ends before a block boundary (control may
    /// enter there, and must find a run that starts there) and where its length or summed
    /// cost would no longer fit 16 bits.
    static func markScalarRuns(_ body: inout [PreparedInstruction], code: [Instruction], blocks: BasicBlocks) {
        guard !code.isEmpty, body.count > code.count else { return }
        for index in (0..<code.count).reversed() where body[index].isScalar {
            let next = index + 1
            guard next < code.count, !blocks.startsBlock[next], body[next].isScalar, body[next].scalarRun < UInt16.max else { continue }
            let (cost, overflow) = body[index].cost.addingReportingOverflow(body[next].cost)
            guard !overflow else { continue }
            body[index].cost = cost
            body[index].scalarRun = body[next].scalarRun + 1
        }
    }

    /// The work a scalarized instruction charges: one lane of the operation (a 64th of its
    /// lane-wide weight) plus the broadcast, about one cheap lane-wide instruction.
    static func scalarCost(_ opcode: Opcode) -> UInt16 {
        1 + opcode.workCost / UInt16(laneCount)
    }

    /// Decodes one instruction; also returns one past the highest register it touches.
    static func prepare(_ instruction: Instruction, range: Range<Int>, constants: [UInt32])
        -> (PreparedInstruction, Int)
    {
        let lanes = UInt32(laneCount)
        // Only `sample` has a mode, of 4 bits; the rest of the byte is the VM's own flags
        // (scalar, broadcast, memo), which an unverified library must not be able to set.
        let mode = instruction.opcode == .sample ? instruction.mode & SampleMode.maxRawValue : 0
        var prepared = PreparedInstruction(opcode: instruction.opcode, mode: mode,
                                           a: UInt32(instruction.a) * lanes, b: UInt32(instruction.b) * lanes,
                                           c: UInt32(instruction.c) * lanes, d: UInt32(instruction.d) * lanes,
                                           imm: instruction.imm, cost: instruction.opcode.workCost)
        let a = Int(instruction.a), b = Int(instruction.b), c = Int(instruction.c), d = Int(instruction.d)
        let count = Int(min(instruction.imm, UInt32(UInt16.max) + 1))
        var used = 0
        switch instruction.opcode.shape {
        case .none:
            break
        case .destConstant:
            used = a + 1
            let index = Int(instruction.imm)
            prepared.imm = constants.indices.contains(index) ? constants[index] : 0
        case .destArgument, .textureSize:
            used = instruction.opcode == .texsize ? a + 2 : a + 1
        case .unary:
            used = max(a, b) + 1
        case .binary:
            used = max(a, b, c) + 1
        case .ternary:
            used = max(a, b, c, d) + 1
        case .loadRegisterArray:
            used = max(a + 1, b + count, c + 1)
            prepared.imm = UInt32(count)
        case .storeRegisterArray:
            used = max(a + count, b + 1, c + 1, d + 1)
            prepared.imm = UInt32(count)
        case .loadConstantArray:
            used = max(a, b) + 1
            prepared.d = UInt32(instruction.d)                   // a count, not a register
        case .loadBuffer:
            used = max(a, b) + 1
        case .texture:
            used = max(a + 4, b + 1, c + 1)
        case .textureWrite:
            used = max(a + 4, b + 1, c + 1, d + 1)
        case .jump, .conditionalJump:
            used = a + 1
            let target = Int(instruction.imm)
            // Relative to the range; anything outside lands on the appended `ret`.
            prepared.imm = UInt32(range.contains(target) ? target - range.lowerBound : range.count)
        }
        return (prepared, used)
    }
}
