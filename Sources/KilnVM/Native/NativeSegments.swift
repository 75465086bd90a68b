import KilnBytecode
import Foundation

/// Runs of lane-wide float and mask instructions compiled to x86-64 AVX2 machine code, each
/// run taking the batch eight lanes at a time through *all* its instructions with the values
/// in vector registers (docs/vm.md, "Native segments").
///
/// Why: an interpreted lane-wide instruction is a pass over the batch in memory — load the
/// operands, compute, store 128 lanes — plus a dispatch: about 24 cycles, of which 16 are
/// the stores. Inside a run the machine code loads a VM register the first time the run
/// reads it, keeps results in `ymm` registers for the instructions after, and stores only
/// what is live after the run (and what it has to move out of a full set of registers).
/// The same binary32 operations in the same order, each rounded on its own, with the same
/// operand order (a NaN's payload follows the left operand): the same bits as the
/// interpreter (`NativeSegmentTests` renders every corpus shader both ways).
///
/// A segment replaces nothing in the body: its first instruction carries `marker` in
/// `fusion`, the segment's index in `imm`, its length in `scalarRun` and the summed cost,
/// and the executor calls the code and skips the rest — so instruction counts and work are
/// those of the instructions one by one. The others carry the marker too (so `PairFusion`
/// leaves them alone) but are never dispatched.
enum NativeSegments {
    /// `PreparedInstruction.fusion` of a segment's instructions.
    static let marker: UInt8 = 0xFF
    /// Shorter runs stay in the interpreter (a pair fuses there instead).
    static let minimumLength = 3
    /// The longest segment (its length and summed cost must also fit the instruction's 16-bit
    /// fields).
    static let maximumLength = 4096

    /// A segment's entry: the register file's base in `rdi`, `constants` in `rsi`.
    typealias Entry = @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void

    /// The compiled segments of one body, their code kept alive by `memory`.
    final class Code: @unchecked Sendable {
        let memory: ExecutableMemory
        /// Entry addresses by segment index, behind a stable pointer for the executor.
        let entries: UnsafeMutablePointer<Entry>

        /// Segments with a batch-uniform version (`BatchUniformInputs`).
        let batchUniformRuns: Int

        init(memory: ExecutableMemory, offsets: [Int], batchUniformRuns: Int = 0) {
            self.memory = memory
            self.batchUniformRuns = batchUniformRuns
            entries = .allocate(capacity: max(1, offsets.count))
            for (index, offset) in offsets.enumerated() {
                (entries + index).initialize(to: unsafeBitCast(memory.base + offset, to: Entry.self))
            }
        }

        deinit { entries.deallocate() }
    }

    /// Whether this machine runs native segments: x86-64 with AVX2 (`sel` compares words,
    /// the one instruction that is not AVX; FMA is not needed), read once from the flags
    /// Linux reports.
    static let supported: Bool = {
        #if arch(x86_64) && os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return false }
        let words = Set(flags.split(separator: " ").map(String.init))
        // Linux lists `avx` only when the kernel saves the ymm registers (OSXSAVE).
        return words.contains("avx") && words.contains("avx2")
        #else
        return false
        #endif
    }()

    /// What a segment does for each opcode it may hold.
    enum Kind {
        /// `vOPps`: IEEE, with the left operand's NaN when both are NaN, as the interpreter;
        /// `and`, `or`, `xor` on the words' bits.
        case arithmetic(VectorAssembler.Operation)
        /// `fmin`/`fmax` (`KilnMath.minimum`/`maximum`): `vminps`/`vmaxps` pick the right
        /// operand when either is NaN; the rule wants the left one when the right is NaN.
        case minimum, maximum
        /// `ffloor`: `vroundps`, a NaN keeping its bits (`roundedGroup`).
        case floor
        /// `ffract`: x − ⌊x⌋, at most the largest float below 1 (`fractGroup`).
        case fract
        /// `fsqrt` (`squareRootGroup`): the root of |x| with x's sign, NaN where x < 0.
        case squareRoot
        /// `fabs`, `fneg`: the sign bit cleared or flipped, NaNs included; `not`: every bit.
        case absolute, negate, complement
        /// `mov`.
        case copy
        /// `feq`, `fne`, `flt`, `fle`: 1 where the comparison holds, else 0.
        case comparison(VectorAssembler.Predicate)
        /// `sel`: `R[c]` where `R[b]` ≠ 0, else `R[d]`.
        case select
    }

    static func kind(_ opcode: Opcode) -> Kind? {
        switch opcode {
        case .fadd: .arithmetic(.add)
        case .fsub: .arithmetic(.sub)
        case .fmul: .arithmetic(.mul)
        case .fdiv: .arithmetic(.div)
        case .and: .arithmetic(.and)
        case .or: .arithmetic(.or)
        case .xor: .arithmetic(.xor)
        case .not: .complement
        case .fmin: .minimum
        case .fmax: .maximum
        case .ffloor: .floor
        case .ffract: .fract
        case .fsqrt: .squareRoot
        case .fabs: .absolute
        case .fneg: .negate
        case .mov: .copy
        case .feq: .comparison(.equal)
        case .fne: .comparison(.notEqual)
        case .flt: .comparison(.less)
        case .fle: .comparison(.lessOrEqual)
        case .sel: .select
        default: nil
        }
    }

    /// Where VM register `register`'s lanes start in the register file (`rdi`).
    static func displacement(_ register: UInt16) -> Int32 { Int32(register) * Int32(laneCount * 4) }

    /// The registers an instruction a segment may hold reads (`kind(_:)` not nil).
    static func sources(of instruction: Instruction) -> [UInt16] {
        switch kind(instruction.opcode) {
        case .arithmetic, .minimum, .maximum, .comparison: [instruction.b, instruction.c]
        case .select: [instruction.b, instruction.c, instruction.d]
        case .floor, .fract, .squareRoot, .absolute, .negate, .complement, .copy: [instruction.b]
        case nil: []
        }
    }

    /// The constants segments broadcast (`rsi` in their code), by `Constant`.
    enum Constant: Int, CaseIterable {
        case largestBelowOne, magnitudeMask, signMask, nan, allOnes

        var word: UInt32 {
            switch self {
            case .largestBelowOne: KilnMath.largestBelowOne.bitPattern
            case .magnitudeMask: 0x7FFF_FFFF
            case .signMask: 0x8000_0000
            case .nan: Float.nan.bitPattern
            case .allOnes: 0xFFFF_FFFF
            }
        }
    }
    static let constants: UnsafeMutablePointer<UInt32> = {
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: Constant.allCases.count)
        for constant in Constant.allCases { (table + constant.rawValue).initialize(to: constant.word) }
        return table
    }()

    /// The registers that hold one known word in every lane while `function`'s body runs:
    /// written by exactly one instruction of prologue and body together, a `const` of the
    /// prologue (which runs before any batch, on every lane, and has no jumps), and not a
    /// slot the renderer writes or reads between batches.
    static func knownConstants(of function: Function, in library: Library) -> [UInt16: UInt32] {
        var writes: [Int: Int] = [:]
        for register in BatchUniformInputs.slots(of: function) { writes[Int(register)] = 2 }
        let prologue = library.code[library.clampedRange(function.prologue)]
        // The compiler's prologues are straight-line; one with a jump could skip a `const`.
        guard !prologue.contains(where: { $0.opcode.shape == .jump || $0.opcode.shape == .conditionalJump }) else { return [:] }
        for instruction in prologue + library.code[library.clampedRange(function.body)] {
            for register in UniformityAnalysis.destinations(instruction) { writes[register, default: 0] += 1 }
        }
        var known: [UInt16: UInt32] = [:]
        for instruction in prologue where instruction.opcode == .const && writes[Int(instruction.a)] == 1
            && Int(instruction.imm) < library.constants.count {
            known[instruction.a] = library.constants[Int(instruction.imm)]
        }
        return known
    }

    /// Finds the runs of `body` (the prepared form of `code`) worth compiling, compiles
    /// them and marks their instructions. Returns nil when there is none, or this machine
    /// cannot run them. `library` holds the prologue and constants (`knownConstants(of:in:)`).
    static func compile(_ body: inout [PreparedInstruction], code: [Instruction], blocks: BasicBlocks,
                        function: Function, library: Library) -> Code? {
        guard supported, !code.isEmpty, body.count > code.count else { return nil }
        var runs: [Range<Int>] = []
        for block in blocks.starts.indices {
            var start: Int?
            var cost = 0
            func close(at end: Int) {
                if let first = start, end - first >= minimumLength { runs.append(first..<end) }
                start = nil
                cost = 0
            }
            for index in blocks.range(of: block) {
                guard !body[index].isScalar, body[index].fusion == 0, kind(code[index].opcode) != nil else {
                    close(at: index)
                    continue
                }
                // The run's length and summed cost live in 16-bit fields.
                if let first = start, index - first == maximumLength || cost + Int(body[index].cost) > Int(UInt16.max) {
                    close(at: index)
                }
                if start == nil { start = index }
                cost += Int(body[index].cost)
            }
            close(at: blocks.range(of: block).upperBound)
        }
        guard !runs.isEmpty, let liveAfter = liveAfterRuns(runs, code: code, blocks: blocks, function: function)
        else { return nil }

        let knownConstants = knownConstants(of: function, in: library)
        let batchUniform = BatchUniformInputs(body: body, code: code, blocks: blocks, runs: runs, function: function,
                                              knownConstants: knownConstants)
        var assembler = VectorAssembler()
        var offsets: [Int] = []
        var batchUniformRuns = 0
        for (index, run) in runs.enumerated() {
            offsets.append(assembler.bytes.count)
            if emit(code[run], liveAfter: liveAfter[index], knownConstants: knownConstants, batchUniform: batchUniform,
                    into: &assembler) {
                batchUniformRuns += 1
            }
        }
        guard let memory = ExecutableMemory(assembler.bytes) else { return nil }
        for (index, run) in runs.enumerated() {
            var cost: UInt16 = 0
            for i in run { cost += body[i].cost; body[i].fusion = marker }
            body[run.lowerBound].imm = UInt32(index)
            body[run.lowerBound].scalarRun = UInt16(run.count)
            body[run.lowerBound].cost = cost
        }
        return Code(memory: memory, offsets: offsets, batchUniformRuns: batchUniformRuns)
    }

    /// One run on its own, stored where live (`liveAfter`): what tests step.
    static func assemble(_ run: [Instruction], liveAfter: RegisterSet, knownConstants: [UInt16: UInt32] = [:]) -> Code? {
        guard supported else { return nil }
        var assembler = VectorAssembler()
        emit(run[...], liveAfter: liveAfter, knownConstants: knownConstants, into: &assembler)
        return ExecutableMemory(assembler.bytes).map { Code(memory: $0, offsets: [0]) }
    }

    /// The registers live after each run (`BodyLiveness`); nil when the analysis would
    /// exceed its bounds.
    private static func liveAfterRuns(_ runs: [Range<Int>], code: [Instruction], blocks: BasicBlocks,
                                      function: Function) -> [RegisterSet]? {
        var runEndingAt: [Int: Int] = [:]
        for (index, run) in runs.enumerated() { runEndingAt[run.upperBound - 1] = index }
        var result = Array(repeating: RegisterSet(count: 0, full: false), count: runs.count)
        let analysed = BodyLiveness.visitLiveAfter(code: code, blocks: blocks, function: function) { index, live in
            if let run = runEndingAt[index] { result[run] = live }
        }
        return analysed ? result : nil
    }

    /// One run as a loop over the batch's groups of eight lanes. Values live in `ymm`
    /// registers from their first read or their definition on; a register that has to make
    /// room goes back to memory if it holds a result not stored yet, and at the end the
    /// results still unstored are stored if they are live after the run.
    ///
    /// `knownConstants` are the registers that hold one value in every lane throughout the
    /// body (`knownConstants(of:in:)`): a `min` or `max` with such an operand, when it is
    /// no NaN, needs no NaN fix-up. With `batchUniform`, a run worth it gets a batch-uniform
    /// version first (`BatchUniformInputs`; true when it did): the test, the members once
    /// on the first group into stack slots, the loop over the others; the general loop is
    /// where a failed test jumps.
    @discardableResult
    static func emit(_ run: ArraySlice<Instruction>, liveAfter: RegisterSet, knownConstants: [UInt16: UInt32] = [:],
                     batchUniform: BatchUniformInputs? = nil, into assembler: inout VectorAssembler) -> Bool {
        var versioned = false
        if let batchUniform, let plan = batchUniform.plan(for: run, liveAfter: liveAfter) {
            versioned = true
            // Every lane of every tested register equal to its first lane, or the general loop.
            // First the tile's first and last pixels alone (two loads and a compare per
            // register): where cells are smaller than a tile, that fails nearly every time.
            var toGeneral: [Int] = []
            for register in plan.tested {
                let base = displacement(register)
                toGeneral.append(assembler.jumpUnlessEqualWords(base, base + Int32(laneCount * 4 - 4)))
            }
            assembler.zeroGroupOffset()
            let first = 0, equal = 1, all = 2
            var started = false
            for register in plan.tested {
                let base = displacement(register)
                assembler.broadcastWord(first, displacement: base)
                for group in 0..<(laneCount / 8) {
                    let at = base + Int32(group * 32)
                    if started {
                        assembler.equalWords(equal, first, at: at)
                        assembler.operation(.and, all, all, equal)
                    } else {
                        assembler.equalWords(all, first, at: at)
                        started = true
                    }
                }
            }
            // No tested register: the members read only values every lane holds alike.
            if started { toGeneral.append(assembler.jumpUnlessAllSet(all)) }
            assembler.openSlots(plan.slotCount)
            emitPass(run, including: { plan.slot[$0] != nil }, values: .once(plan), knownConstants: knownConstants,
                     into: &assembler)
            emitPass(run, including: { plan.slot[$0] == nil }, values: .afterOnce(plan, liveAfter: liveAfter),
                     knownConstants: knownConstants, into: &assembler)
            assembler.closeSlots()
            assembler.returnFromSegment()
            for jump in toGeneral { assembler.patchJump(jump) }
        }
        emitPass(run, including: { _ in true }, values: .general(liveAfter: liveAfter), knownConstants: knownConstants,
                 into: &assembler)
        assembler.returnFromSegment()
        return versioned
    }

    /// Where a pass finds and leaves values.
    enum PassValues {
        /// The whole run over every group: operands and results in VM registers.
        case general(liveAfter: RegisterSet)
        /// A batch-uniform run's members, once, on the first group: results in stack slots.
        case once(BatchUniformInputs.Plan)
        /// The rest of that run over every group: members' results read from their slots,
        /// and stored where the run's last write of a live register was a member's.
        case afterOnce(BatchUniformInputs.Plan, liveAfter: RegisterSet)
    }

    /// A value a `ymm` register can hold: a VM register's (in the register file, at the
    /// current group) or a member's result (in a stack slot, the same for every group).
    enum ValueKey: Equatable {
        case register(UInt16)
        case slot(Int)
    }

    /// The instructions of `run` that `including` takes: as a loop over the batch's groups,
    /// or once on the first group (`.once`).
    private static func emitPass(_ run: ArraySlice<Instruction>, including: (Int) -> Bool, values: PassValues,
                                 knownConstants: [UInt16: UInt32], into assembler: inout VectorAssembler) {
        // The plan of a batch-uniform version, if this pass is part of one.
        let plan: BatchUniformInputs.Plan? = switch values {
        case .general: nil
        case .once(let plan), .afterOnce(let plan, _): plan
        }
        /// Where operand `register` of instruction `index` comes from: a member's slot when
        /// a member wrote it last, else the register.
        func key(_ register: UInt16, at index: Int) -> ValueKey {
            if let slot = plan?.memberOperands[index]?[register] { return .slot(slot) }
            return .register(register)
        }
        // What each ymm register holds, whether it still has to be stored, and when it was
        // last used (the least recently used makes room).
        var holds = [ValueKey?](repeating: nil, count: 16)
        var dirty = [Bool](repeating: false, count: 16)
        var lastUse = [Int](repeating: -1, count: 16)
        func find(_ value: ValueKey) -> Int? { holds.firstIndex(of: value) }
        func load(_ ymm: Int, _ value: ValueKey) {
            switch value {
            case .register(let register): assembler.load(ymm, displacement: displacement(register))
            case .slot(let slot): assembler.loadSlot(ymm, slot)
            }
        }
        func store(_ ymm: Int, _ value: ValueKey) {
            switch value {
            case .register(let register): assembler.store(ymm, displacement: displacement(register))
            case .slot(let slot): assembler.storeSlot(ymm, slot)
            }
        }
        func free(avoiding pinned: [Int]) -> Int {
            if let empty = holds.indices.first(where: { holds[$0] == nil && !pinned.contains($0) }) { return empty }
            let victim = holds.indices.filter { !pinned.contains($0) }.min { lastUse[$0] < lastUse[$1] }!
            if dirty[victim], let value = holds[victim] { store(victim, value) }
            holds[victim] = nil
            dirty[victim] = false
            return victim
        }

        /// The ymm register holding operand `register` of instruction `index`, loaded if it
        /// is in none.
        func operand(_ register: UInt16, index: Int, avoiding pinned: [Int] = []) -> Int {
            let value = key(register, at: index)
            let held = find(value) ?? {
                let ymm = free(avoiding: pinned)
                load(ymm, value)
                holds[ymm] = value
                return ymm
            }()
            lastUse[held] = index
            return held
        }
        /// A ymm register for an intermediate: it holds no VM register afterwards.
        func temporary(avoiding pinned: [Int]) -> Int { free(avoiding: pinned) }
        /// `vOPps` of VM registers `left` and `right` into a fresh ymm register, the right
        /// operand read from the register file when no ymm register holds it.
        func binary(_ operation: VectorAssembler.Operation, _ left: UInt16, _ right: UInt16, index: Int) -> Int {
            let rightKey = key(right, at: index)
            let heldRight = find(rightKey)
            let leftYmm = operand(left, index: index, avoiding: heldRight.map { [$0] } ?? [])
            if let heldRight {
                lastUse[heldRight] = index
                let destination = free(avoiding: [leftYmm, heldRight])
                assembler.operation(operation, destination, leftYmm, heldRight)
                return destination
            }
            guard case .register = rightKey else {
                let rightYmm = operand(right, index: index, avoiding: [leftYmm])
                let destination = free(avoiding: [leftYmm, rightYmm])
                assembler.operation(operation, destination, leftYmm, rightYmm)
                return destination
            }
            let destination = free(avoiding: [leftYmm])
            assembler.operation(operation, destination, leftYmm, rightAt: displacement(right))
            return destination
        }
        func isNumber(_ register: UInt16) -> Bool {
            knownConstants[register].map { !Float(bitPattern: $0).isNaN } ?? false
        }

        var start = 0
        if case .once = values {} else { start = assembler.beginGroupLoop() }
        for (index, instruction) in zip(run.indices, run) where including(index) {
            let destination: Int
            switch kind(instruction.opcode)! {
            case .arithmetic(let operation):
                destination = binary(operation, instruction.b, instruction.c, index: index)
            case .minimum, .maximum:
                let operation: VectorAssembler.Operation = if case .minimum = kind(instruction.opcode)! { .min } else { .max }
                // `vminps l, r` is `l < r ? l : r` — the rule (`KilnMath.minimum`) whenever r
                // is no NaN; with a number k on the left, `vminps r, k` is the rule too except
                // where r == k with other bits, which only ±0 can be.
                if isNumber(instruction.c) {
                    destination = binary(operation, instruction.b, instruction.c, index: index)
                    break
                }
                if isNumber(instruction.b), knownConstants[instruction.b]! & 0x7FFF_FFFF != 0 {
                    destination = binary(operation, instruction.c, instruction.b, index: index)
                    break
                }
                let left = operand(instruction.b, index: index)
                let right = operand(instruction.c, index: index, avoiding: [left])
                destination = free(avoiding: [left, right])
                assembler.operation(operation, destination, left, right)
                let nan = temporary(avoiding: [left, right, destination])
                assembler.compare(nan, right, right, .unordered)
                assembler.blend(destination, destination, left, mask: nan)
            case .floor:
                let source = operand(instruction.b, index: index)
                destination = free(avoiding: [source])
                assembler.floor(destination, source)
                let nan = temporary(avoiding: [source, destination])
                assembler.compare(nan, source, source, .unordered)
                assembler.blend(destination, destination, source, mask: nan)
            case .fract:
                let source = operand(instruction.b, index: index)
                let floor = temporary(avoiding: [source])
                assembler.floor(floor, source)
                destination = free(avoiding: [source, floor])
                assembler.operation(.sub, destination, source, floor)
                // min(L, f): L where L < f, else f — NaN f stays f, as `fractGroup`'s select.
                assembler.broadcastConstant(floor, index: Constant.largestBelowOne.rawValue)
                assembler.operation(.min, destination, floor, destination)
            case .squareRoot:
                // `vsqrtps` already is the rule's √|x| with x's sign for x ≥ 0, −0 and NaN x
                // (a NaN comes back quieted with its sign, as the rule's OR puts it back);
                // x < 0 gets the rule's NaN instead of the default one.
                let source = operand(instruction.b, index: index)
                destination = free(avoiding: [source])
                assembler.squareRoot(destination, source)
                let mask = temporary(avoiding: [source, destination])
                assembler.operation(.xor, mask, mask, mask)
                assembler.compare(mask, source, mask, .less)
                let nan = temporary(avoiding: [source, mask, destination])
                assembler.broadcastConstant(nan, index: Constant.nan.rawValue)
                assembler.blend(destination, destination, nan, mask: mask)
            case .absolute, .negate, .complement:
                let source = operand(instruction.b, index: index)
                let mask = temporary(avoiding: [source])
                let (constant, operation): (Constant, VectorAssembler.Operation) = switch kind(instruction.opcode)! {
                case .absolute: (.magnitudeMask, .and)
                case .negate: (.signMask, .xor)
                default: (.allOnes, .xor)
                }
                assembler.broadcastConstant(mask, index: constant.rawValue)
                destination = free(avoiding: [source, mask])
                assembler.operation(operation, destination, source, mask)
            case .copy:
                let source = operand(instruction.b, index: index)
                destination = free(avoiding: [source])
                assembler.copy(destination, source)
            case .comparison(let predicate):
                let left = operand(instruction.b, index: index)
                let right = operand(instruction.c, index: index, avoiding: [left])
                destination = free(avoiding: [left, right])
                assembler.compare(destination, left, right, predicate)
                assembler.shiftRightWords(destination, destination, by: 31)     // all ones → 1
            case .select:
                let condition = operand(instruction.b, index: index)
                let whenSet = operand(instruction.c, index: index, avoiding: [condition])
                let whenClear = operand(instruction.d, index: index, avoiding: [condition, whenSet])
                let zero = temporary(avoiding: [condition, whenSet, whenClear])
                assembler.operation(.xor, zero, zero, zero)
                assembler.equalWords(zero, condition, zero)            // all ones where the condition is 0
                destination = free(avoiding: [condition, whenSet, whenClear, zero])
                assembler.blend(destination, whenSet, whenClear, mask: zero)
            }
            // The destination's old value, wherever it was held, is overwritten (a member's
            // result goes to its own slot, which nothing held).
            let result: ValueKey
            if case .once(let plan) = values { result = .slot(plan.slot[index]!) } else { result = .register(instruction.a) }
            if let old = find(result) {
                holds[old] = nil
                dirty[old] = false
            }
            holds[destination] = result
            dirty[destination] = true
            lastUse[destination] = index
        }
        switch values {
        case .once:
            // Every member's result in its slot, for the loop after.
            for ymm in holds.indices where dirty[ymm] {
                if let value = holds[ymm], case .slot = value { store(ymm, value) }
            }
        case .general(let liveAfter), .afterOnce(_, let liveAfter):
            for ymm in holds.indices where dirty[ymm] {
                if case .register(let register) = holds[ymm], liveAfter[Int(register)] {
                    assembler.store(ymm, displacement: displacement(register))
                }
            }
            if let plan {
                // A live register a member wrote last gets that member's value, over whatever
                // an earlier general instruction left there.
                for (register, slot) in plan.memberFinals where liveAfter[Int(register)] {
                    let ymm = find(.slot(slot)) ?? {
                        let ymm = free(avoiding: [])
                        assembler.loadSlot(ymm, slot)
                        holds[ymm] = .slot(slot)
                        return ymm
                    }()
                    assembler.store(ymm, displacement: displacement(register))
                }
            }
            assembler.endGroupLoop(start: start, byteCount: Int32(laneCount * 4))
        }
    }
}
