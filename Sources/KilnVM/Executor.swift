import KilnBytecode

/// Runs one prepared function over batches of `laneCount` lanes. One executor per worker
/// thread; it is not thread-safe itself.
///
/// `init` allocates the register file once (`registerCount × laneCount` words, 64-byte
/// aligned), copies the draw's uniforms and buffers into stable storage and runs the
/// prologue, which fills the uniform registers. Then, per batch, the caller writes the
/// input registers (`lanes(_:)` / `floatLanes(_:)`), calls `run()`, and reads the outputs.
/// See `docs/vm.md` for the SPMD rules.
public final class Executor {
    public let prepared: PreparedFunction
    /// Retained so the texel storages the texture views point into stay alive.
    public let resources: DrawResources
    private let registers: UnsafeMutablePointer<UInt32>
    private let registerCount: Int
    private let uniforms: UnsafeMutablePointer<UInt32>
    private let buffers: UnsafeMutablePointer<Execution.BufferView>
    private let bufferWords: UnsafeMutablePointer<UInt32>
    private let textures: UnsafeMutablePointer<TextureView>
    private let scratch: UnsafeMutablePointer<UInt32>
    private let memo: UnsafeMutablePointer<UniformMemo.Entry>
    let machine: Execution.Machine
    let budget: Int

    /// Prepares the state for `prepared` with `resources` and runs the prologue once.
    /// Throws if the prologue exceeds the instruction budget.
    public init(_ prepared: PreparedFunction, resources: DrawResources) throws(VMError) {
        self.prepared = prepared
        self.resources = resources
        budget = max(0, resources.limits.instructionBudgetPerLane)
        registerCount = prepared.registerCount
        let words = registerCount * laneCount
        registers = UnsafeMutableRawPointer
            .allocate(byteCount: words * MemoryLayout<UInt32>.stride, alignment: 64)
            .bindMemory(to: UInt32.self, capacity: words)
        registers.initialize(repeating: 0, count: words)

        let uniformWords = resources.uniforms
        let uniforms = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, uniformWords.count))
        Executor.copy(uniformWords, into: uniforms)
        self.uniforms = uniforms

        // All buffers in one allocation, each slot a view into it.
        let total = resources.buffers.reduce(0) { $0 + $1.count }
        let bufferWords = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, total))
        bufferWords.initialize(repeating: 0, count: max(1, total))
        let buffers = UnsafeMutablePointer<Execution.BufferView>.allocate(capacity: max(1, resources.buffers.count))
        var offset = 0
        for (slot, words) in resources.buffers.enumerated() {
            words.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { (bufferWords + offset).update(from: base, count: source.count) }
            }
            (buffers + slot).initialize(to: .init(words: UnsafePointer(bufferWords + offset), count: words.count))
            offset += words.count
        }
        self.bufferWords = bufferWords
        self.buffers = buffers

        let textures = UnsafeMutablePointer<TextureView>.allocate(capacity: max(1, resources.textures.count))
        for (slot, texture) in resources.textures.enumerated() {
            (textures + slot).initialize(to: TextureView(texture))
        }
        self.textures = textures

        let scratchWords = Execution.scratchWordsPerLane * laneCount
        let scratch = UnsafeMutableRawPointer
            .allocate(byteCount: scratchWords * MemoryLayout<UInt32>.stride, alignment: 64)
            .bindMemory(to: UInt32.self, capacity: scratchWords)
        scratch.initialize(repeating: 0, count: scratchWords)
        self.scratch = scratch
        let memoCount = max(1, prepared.memoSlotCount * UniformMemo.entriesPerSlot)
        let memo = UnsafeMutablePointer<UniformMemo.Entry>.allocate(capacity: memoCount)
        memo.initialize(repeating: UniformMemo.Entry(key: 0, value: 0, filled: 0), count: memoCount)
        self.memo = memo

        machine = Execution.Machine(
            registers: registers, constants: prepared.constants, constantCount: prepared.constantCount,
            uniforms: UnsafePointer(uniforms), uniformCount: uniformWords.count,
            buffers: UnsafePointer(buffers), bufferCount: resources.buffers.count,
            textures: UnsafePointer(textures), textureCount: resources.textures.count,
            scratch: scratch, memo: memo, nativeEntries: prepared.nativeCode?.entries)

        try runRange(prepared.prologue, start: prepared.prologueStart)
    }

    /// Copies `words` into `destination` (which has room for max(1, count) words; an
    /// empty source leaves one zero word so the pointer is never dangling).
    static func copy(_ words: [UInt32], into destination: UnsafeMutablePointer<UInt32>) {
        destination.initialize(repeating: 0, count: max(1, words.count))
        words.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { destination.update(from: base, count: source.count) }
        }
    }

    deinit {
        registers.deallocate()
        uniforms.deallocate()
        bufferWords.deallocate()
        buffers.deallocate()
        textures.deallocate()
        scratch.deallocate()
        memo.deallocate()
    }

    /// The `laneCount` words of `register` (inputs are written, outputs read, through this).
    public func lanes(_ register: UInt16) -> UnsafeMutablePointer<UInt32> {
        precondition(Int(register) < registerCount, "register \(register) outside the register file")
        return registers + Int(register) * laneCount
    }

    /// The same lanes seen as binary32.
    public func floatLanes(_ register: UInt16) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer(lanes(register)).assumingMemoryBound(to: Float.self)
    }

    /// Runs the body over all lanes once.
    public func run() throws(VMError) {
        try runRange(prepared.runBody, start: prepared.bodyStart)
    }

    /// The work the last `run()` (or the prologue, after `init`) did: the `Opcode.workCost`
    /// of every instruction executed, each over all `laneCount` lanes. Draws add it up to
    /// bound a whole frame (`RenderLimits.maxFrameWork`).
    public internal(set) var work = 0
    /// Instructions the last `run()` executed (unweighted; each over all lanes).
    public internal(set) var instructions = 0
    /// Of those, the ones run on one lane and broadcast (uniform, see `UniformityAnalysis`).
    public internal(set) var scalarInstructions = 0

    private func runRange(_ code: [PreparedInstruction], start: Int) throws(VMError) {
        var work = 0, instructions = 0, scalar = 0
        let failure = code.withUnsafeBufferPointer { buffer in
            Executor.execute(buffer.baseAddress!, machine, budget: budget, work: &work, instructions: &instructions,
                             scalar: &scalar)
        }
        self.work = work
        self.instructions = instructions
        scalarInstructions = scalar
        if failure >= 0 { throw budgetError(instruction: start + failure) }
    }

    /// The hot loop: fetch, dispatch (`Execution.step`, inlined; `scalarStep` for uniform
    /// instructions, a native segment's code, `fusedStep` for fused pairs), count, and check the budget on backward jumps only. Returns −1 when the range reaches `ret`, or the relative index
    /// of the jump that exceeded the budget; `work` is the cost of what ran.
    @inline(never)
    static func execute(_ code: UnsafePointer<PreparedInstruction>, _ machine: Execution.Machine, budget: Int,
                        work total: inout Int, instructions: inout Int, scalar: inout Int) -> Int {
        var pc = 0
        var executed = 0
        var scalarExecuted = 0
        var work = 0
        while true {
            let instruction = code[pc]
            executed &+= 1
            work &+= Int(instruction.cost)
            if instruction.isScalar {
                // A run of uniform instructions in one call; `cost` is the run's (`scalarRun`).
                let run = Int(instruction.scalarRun)
                scalarExecuted &+= run
                executed &+= run &- 1
                Execution.scalarSteps(machine, code + pc, count: run)
                pc &+= run
                continue
            }
            if instruction.fusion != 0 {
                if instruction.fusion == NativeSegments.marker {
                    // A run of float instructions as machine code; `cost` is the run's.
                    let run = Int(instruction.scalarRun)
                    machine.nativeEntries.unsafelyUnwrapped[Int(instruction.imm)](UnsafeMutableRawPointer(machine.registers),
                                                                                   NativeSegments.constants)
                    executed &+= run &- 1
                    pc &+= run
                    continue
                }
                // Two instructions in one step (`PairFusion`); the second is skipped.
                Execution.fusedStep(machine, code + pc)
                executed &+= 1
                pc &+= 2
                continue
            }
            switch Execution.step(machine, instruction) {
            case .next:
                pc &+= 1
            case .jump(let target):
                if target <= pc && executed > budget {
                    total = work; instructions = executed; scalar = scalarExecuted
                    return pc
                }
                pc = target
            case .finish:
                total = work
                instructions = executed
                scalar = scalarExecuted
                return -1
            }
        }
    }

    /// The budget error, naming the loop's source line.
    func budgetError(instruction: Int) -> VMError {
        let library = prepared.library
        let location = library.location(ofInstruction: instruction)
        var place = "instruction \(instruction)"
        if let location {
            let file = library.sources.indices.contains(Int(location.file))
                ? library.sources[Int(location.file)].name : "<file \(location.file)>"
            place = "\(file):\(location.line)"
        }
        return VMError(
            message: "instruction budget exceeded (limit instructionBudgetPerLane = \(budget)): runaway loop at \(place)",
            instruction: instruction, location: location)
    }
}
