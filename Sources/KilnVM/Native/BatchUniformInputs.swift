import KilnBytecode

/// Which part of a native segment can run once per batch instead of once per group of
/// eight lanes, when the registers it starts from hold one word in every lane.
///
/// Why: shader art hashes grid cells. `id = floor(uv)` differs between pixels, so the
/// compiler cannot call it uniform, but a cell is usually larger than a batch's 16 × 8 tile:
/// in many batches every lane holds the same `id`, and everything computed from it and from
/// uniform values alone — a star's hash, size, twinkle phase and tint; a lattice corner's
/// value — holds the same bits in every lane too. A segment with such work (its *members*)
/// gets a second version: a test that the registers the members start from (`tested`) hold
/// lane 0's word in all 128 lanes, then the members once, on the first group, into stack
/// slots, then the group loop over the other instructions, which reads them there. When
/// the test fails, the general loop runs. The same operations on the
/// same bits, so the same pictures (`NativeSegmentTests` renders every corpus shader both
/// ways); the instruction counts and work of the body are unchanged (docs/vm.md,
/// "Batch-uniform segments").
///
/// Which registers are worth testing is a guess (`plausibleAt`): the results of rounding
/// (`floor` …), of uniform (scalar) instructions, and what lane-wide arithmetic makes of
/// those, known constants and uniform registers alone. A wrong guess costs a failed test,
/// never a wrong pixel: only registers the test saw equal in every lane, known constants
/// and the prologue's uniform registers (equal in every lane by construction) feed members.
struct BatchUniformInputs {
    /// Registers written only by the prologue, not slots the renderer fills: one word in
    /// every lane, no test needed.
    let uniformOnEntry: Set<UInt16>
    let knownConstants: [UInt16: UInt32]
    /// Registers worth testing when a segment's members start from them, at the start of
    /// each run (by its first instruction): what the block wrote into them before the run
    /// decides, and, for registers the block has not written yet, what any instruction of
    /// the body writes (registers are reused, so that guess is coarse).
    let plausibleAt: [Int: Set<UInt16>]

    /// Runs with fewer members than this keep only the general loop: a test costs about
    /// 33 instructions per tested register, a member skipped saves about 25 per batch.
    static let minimumMembers = 16
    /// How many times over a hit must repay the full test (above).
    static let minimumPayback = 4
    /// Tested registers a run may have; past it the test costs more than it can save.
    static let maximumTested = 4

    init(body: [PreparedInstruction], code: [Instruction], blocks: BasicBlocks, runs: [Range<Int>], function: Function,
         knownConstants: [UInt16: UInt32]) {
        self.knownConstants = knownConstants
        let slots = Self.slots(of: function)
        let uniformOnEntry = Self.uniformRegisters(of: function, body: code)
        self.uniformOnEntry = uniformOnEntry
        var plausible = Set<UInt16>()
        for (index, instruction) in code.enumerated() where index < body.count {
            if Self.rounds(instruction.opcode) || body[index].isScalar {
                for register in UniformityAnalysis.destinations(instruction) { plausible.insert(UInt16(truncatingIfNeeded: register)) }
            }
        }
        // What arithmetic makes of plausible, constant and uniform values: a few rounds
        // reach the hash chains (a guess only, so no need for the exact fixed point).
        for _ in 0..<8 {
            var grew = false
            for instruction in code where NativeSegments.kind(instruction.opcode) != nil && !plausible.contains(instruction.a) {
                let known = plausible
                if NativeSegments.sources(of: instruction).allSatisfy({
                    known.contains($0) || knownConstants[$0] != nil || uniformOnEntry.contains($0)
                }) {
                    plausible.insert(instruction.a)
                    grew = true
                }
            }
            if !grew { break }
        }
        // Block by block, the value each register holds at each run's start.
        let runStarts = Set(runs.map(\.lowerBound))
        var plausibleAt: [Int: Set<UInt16>] = [:]
        for block in blocks.starts.indices {
            // A block starts from the body-wide guess, less the renderer's slots: a pixel's
            // position is reused as a temporary, but on entry it holds the position.
            var current = plausible.subtracting(slots)
            for index in blocks.range(of: block) {
                if runStarts.contains(index) { plausibleAt[index] = current }
                let instruction = code[index]
                let value = Self.rounds(instruction.opcode) || (index < body.count && body[index].isScalar)
                    || (NativeSegments.kind(instruction.opcode) != nil && NativeSegments.sources(of: instruction).allSatisfy {
                        current.contains($0) || knownConstants[$0] != nil || uniformOnEntry.contains($0)
                    })
                for register in UniformityAnalysis.destinations(instruction) {
                    let register = UInt16(truncatingIfNeeded: register)
                    if value { current.insert(register) } else { current.remove(register) }
                }
            }
        }
        self.plausibleAt = plausibleAt
    }

    /// The registers the renderer fills or reads between batches (also never known
    /// constants: `NativeSegments.knownConstants(of:in:)`).
    static func slots(of function: Function) -> Set<UInt16> {
        var slots = Set<UInt16>()
        for slot in function.inputs + function.outputs {
            for register in Int(slot.register)..<Int(slot.register) + slot.type.componentCount { slots.insert(UInt16(register)) }
        }
        if let discard = function.discardRegister { slots.insert(discard) }
        return slots
    }

    /// Registers below the uniform count that the body never writes and the renderer does
    /// not fill (slots are numbered after the uniform registers today; this does not rely
    /// on it): one word in every lane.
    static func uniformRegisters(of function: Function, body code: [Instruction]) -> Set<UInt16> {
        var writtenInBody = Set<UInt16>()
        for instruction in code {
            for register in UniformityAnalysis.destinations(instruction) { writtenInBody.insert(UInt16(truncatingIfNeeded: register)) }
        }
        let slots = slots(of: function)
        return Set((0..<function.uniformRegisterCount).filter { !writtenInBody.contains($0) && !slots.contains($0) })
    }

    /// A rounding to an integral value: what makes a grid cell's id.
    static func rounds(_ opcode: Opcode) -> Bool {
        switch opcode {
        case .ffloor, .fceil, .ftrunc, .fround, .frint: true
        default: false
        }
    }

    /// A run's batch-uniform version.
    struct Plan {
        /// The members (indexes in the body), each with its stack slot.
        var slot: [Int: Int] = [:]
        var slotCount: Int { slot.count }
        /// Registers whose lanes must all hold lane 0's word, in the order they are tested.
        var tested: [UInt16] = []
        /// For each instruction, the operands a member wrote last, with that member's slot.
        var memberOperands: [Int: [UInt16: Int]] = [:]
        /// Registers whose last write in the run is a member's, with its slot.
        var memberFinals: [(register: UInt16, slot: Int)] = []
    }

    /// Members a run may have: each takes 32 bytes of stack while the segment runs.
    static let maximumMembers = 512
    /// Distinct needs (sets of registers to test) whose pairs the choice of the tested set
    /// tries: the most common ones.
    static let maximumNeedsSearched = 32

    /// The members of `run` and what the test must check, or nil when the run is not worth
    /// a second version.
    ///
    /// An instruction is a member when each operand was last written (in the run, before
    /// it) by a member, or not written in the run and then a known constant, a uniform
    /// register or a plausible register (tested). Members' results go to stack slots, not to
    /// their registers, so computing them ahead of the other instructions changes no value
    /// any instruction reads; the loop after reads them there, and stores them into the
    /// registers live after the run whose last write was a member's.
    func plan(for run: ArraySlice<Instruction>, liveAfter: RegisterSet) -> Plan? {
        // Which registers to test. Each instruction that could be a member needs a set of
        // them (the plausible registers its operands come from, through other such
        // instructions), as a bit mask over the run's first 64 candidates; the tested set
        // is the union of one or two of those sets (at most `maximumTested` registers) that
        // lets the most instructions be members. A greedy choice register by register
        // misses the hash chains, which need two or three registers before any of their
        // instructions counts.
        let plausible = plausibleAt[run.startIndex] ?? []
        var candidates: [UInt16] = []
        var needs: [UInt16: UInt64] = [:]          // register → the candidates its value needs
        var required: [UInt64] = []                // per possible instruction
        var written = Set<UInt16>()
        for instruction in run {
            var mask: UInt64 = 0
            var possible = true
            for source in NativeSegments.sources(of: instruction) {
                if let need = needs[source] {
                    mask |= need
                } else if written.contains(source) {
                    possible = false            // last written by an instruction that cannot be a member
                    break
                } else if knownConstants[source] == nil && !uniformOnEntry.contains(source) {
                    guard plausible.contains(source) else { possible = false; break }
                    let bit: Int
                    if let index = candidates.firstIndex(of: source) { bit = index } else {
                        guard candidates.count < 64 else { possible = false; break }
                        candidates.append(source)
                        bit = candidates.count - 1
                    }
                    mask |= 1 << UInt64(bit)
                }
            }
            if possible && mask.nonzeroBitCount <= Self.maximumTested {
                needs[instruction.a] = mask
                required.append(mask)
            } else {
                needs[instruction.a] = nil
            }
            written.insert(instruction.a)
        }
        // The most common needs only, so the pairs stay few on any run (a run may hold 4096
        // instructions with as many different needs: a prepare must not take seconds).
        var frequency: [UInt64: Int] = [:]
        for mask in required { frequency[mask, default: 0] += 1 }
        let distinct = frequency.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(Self.maximumNeedsSearched).map(\.key)
        var best: (mask: UInt64, count: Int) = (0, 0)
        for (i, first) in distinct.enumerated() {
            for second in distinct[i...] {
                let union = first | second
                guard union.nonzeroBitCount <= Self.maximumTested else { continue }
                let count = required.reduce(0) { $0 + ($1 & ~union == 0 ? 1 : 0) }
                if count > best.count || (count == best.count && union.nonzeroBitCount < best.mask.nonzeroBitCount) {
                    best = (union, count)
                }
            }
        }
        let testing = Set(candidates.indices.filter { best.mask & (1 << UInt64($0)) != 0 }.map { candidates[$0] })
        var plan = members(of: run, plausible: plausible, testing: testing)
        // Worth a second version when the members a hit skips (in 15 of 16 groups, about
        // 1.6 machine instructions each) repay the full test (about 35 per register) several
        // times over: a test that fails late, or hits rarely, must not cost more than it wins.
        guard plan.slot.count >= Self.minimumMembers,
              plan.slot.count * 24 >= Self.minimumPayback * plan.tested.count * 35 else { return nil }
        plan.memberFinals = plan.memberFinals.filter { liveAfter[Int($0.register)] }
        return plan
    }

    /// The members of `run` when the plausible registers in `testing` may be tested.
    private func members(of run: ArraySlice<Instruction>, plausible: Set<UInt16>, testing: Set<UInt16>) -> Plan {
        var plan = Plan()
        var lastWrite: [UInt16: Int] = [:]
        for (index, instruction) in zip(run.indices, run) {
            var newlyTested: [UInt16] = []
            var fromMembers: [UInt16: Int] = [:]
            var member = plan.slot.count < Self.maximumMembers
            for source in NativeSegments.sources(of: instruction) {
                if let writer = lastWrite[source] {
                    if let slot = plan.slot[writer] { fromMembers[source] = slot } else { member = false }
                } else if knownConstants[source] == nil && !uniformOnEntry.contains(source) {
                    if !plausible.contains(source) || !testing.contains(source) {
                        member = false
                    } else if !plan.tested.contains(source) && !newlyTested.contains(source) {
                        newlyTested.append(source)
                    }
                }
            }
            if !fromMembers.isEmpty { plan.memberOperands[index] = fromMembers }
            if member {
                plan.slot[index] = plan.slot.count
                plan.tested += newlyTested
            }
            lastWrite[instruction.a] = index
        }
        for (register, writer) in lastWrite.sorted(by: { $0.key < $1.key }) {
            if let slot = plan.slot[writer] { plan.memberFinals.append((register, slot)) }
        }
        return plan
    }
}
