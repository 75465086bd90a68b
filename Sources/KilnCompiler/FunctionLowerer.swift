import KilnBytecode
import KilnLanguage

/// Why lowering stopped early.
enum LoweringError: Error {
    /// A loop tried as uniform turned out to need masks: roll back and lower it masked.
    case respeculate
    /// A home a uniform loop attempt assumed uniform received a varying value: retry the
    /// loop with that home varying from the start.
    case becameVarying(VirtualRegister)
    /// A uniform `if` tried without a mask home retired lanes by mask: redo it with one.
    case branchNeedsMaskHome
    /// A loop inside a loop being unrolled cannot be unrolled: lower the outer one as a loop.
    case notUnrollable
    /// The program uses something the compiler cannot lower.
    case diagnostic(Diagnostic)
}

/// Lowers one entry function (with every helper it calls inlined) to the intermediate
/// form: a prologue of uniform values and a body, over virtual registers.
///
/// The rules it follows are written down in `docs/compiler.md`: scalarized values,
/// renaming for straight-line code, home registers for variables written inside
/// control flow, execution masks for divergent control flow, jumps for uniform control.
final class FunctionLowerer {
    let program: CheckedProgram
    let entry: EntryInfo
    var state = LoweringState()
    /// Uniform attempts left (`speculatesUniformLoops`, and a uniform `if` that may need a
    /// mask home); past it loops are masked and such `if`s keep one.
    var speculationBudget = 64
    /// Per function: whether it (or something it calls) can `discard_fragment()`.
    let functionDiscards: [Bool]

    /// `LibraryLimits.maxRegisters`: no single value may need more components than this.
    let maxComponents: Int
    /// `CompileOptions.maxInlinedCalls`, and the calls inlined so far.
    var maxInlinedCalls = CompileOptions().maxInlinedCalls
    var inlinedCalls = 0
    /// `LibraryLimits.maxInstructions`: lowering stops once the IR alone is larger.
    var maxInstructions = LibraryLimits.default.maxInstructions
    /// `CompileOptions.maxUnrolledIterations` and `maxUnrolledInstructions`, and how many
    /// loops being unrolled enclose the code being lowered (`FunctionLowerer+Unrolling`).
    var maxUnrolledIterations = CompileOptions().maxUnrolledIterations
    var maxUnrolledInstructions = CompileOptions().maxUnrolledInstructions
    var unrollingDepth = 0
    /// `CompileOptions.unrollsLoops`, and with it off the loops unrolling might have
    /// unrolled: `CompileResult.loopsLeftForUnrolling`.
    var unrollsLoops = true
    var loopsLeftForUnrolling = 0
    /// `CompileOptions.speculatesUniformLoops`.
    var speculatesUniformLoops = false
    /// Loops `LoopUniformityAnalysis` promised uniform that lowering found otherwise.
    var uniformityMisses = 0
    /// Call summaries and work budget of the uniformity analysis, shared by every loop of
    /// the entry (`CompileOptions.maxUniformitySteps`).
    var uniformityShared = LoopUniformityAnalysis.Shared(steps: CompileOptions().maxUniformitySteps)
    /// `CompileOptions.evaluatesTripCounts`.
    var evaluatesTripCounts = true

    /// `functionDiscards` is `StatementScanner.discardingFunctions(program)` and
    /// `constantIndex` the first index of each word of `constants`: a caller lowering many
    /// entries passes them in so each entry costs its own size, not the program's or the
    /// pool's (nil: computed here).
    init(program: CheckedProgram, entry: EntryInfo, constants: [UInt32], maxRegisters: Int = LibraryLimits.default.maxRegisters,
         functionDiscards: [Bool]? = nil, constantIndex: WordIndex? = nil) {
        self.program = program
        self.entry = entry
        self.maxComponents = maxRegisters
        state.reserveTypicalCapacity()
        state.constants = constants
        if let constantIndex {
            state.constantIndex = constantIndex
        } else {
            for (index, word) in constants.enumerated() where state.constantIndex[word] == nil {
                state.constantIndex[word] = index
            }
        }
        self.functionDiscards = functionDiscards ?? StatementScanner.discardingFunctions(program)
    }

    /// The variables `statements` and `extra` assign (`StatementScanner.assignedVariables`).
    /// Not memoized: the scan visits only the statements and the subtrees that write
    /// (`TypedExpression.mayWrite`), which cost less than hashing a memo key of the
    /// statements' spans (docs/benchmarks.md, "forty-first session").
    func assignedVariables(_ statements: [TypedStatement], extra: [TypedExpression] = [],
                           program: CheckedProgram) -> Set<VariableID> {
        StatementScanner.assignedVariables(statements, extra: extra, program: program)
    }

    /// Per function, memo of the facts about its body each inlined call of it needs
    /// (`StatementScanner.dynamicallyIndexedVariables`, `hasSingleFinalReturn`): an unrolled
    /// loop inlines the same helper once per copy, and scanning its tree each time was
    /// 3 % of compiling `art_starfield` (callgrind).
    var calleeFacts: [FunctionID: CalleeFacts] = [:]
    typealias CalleeFacts = (pinned: Set<VariableID>, singleFinalReturn: Bool)

    func facts(of function: FunctionID) -> CalleeFacts {
        if let known = calleeFacts[function] { return known }
        let facts = (StatementScanner.dynamicallyIndexedVariables(of: program.functions[function]),
                     StatementScanner.hasSingleFinalReturn(program.functions[function].body))
        calleeFacts[function] = facts
        return facts
    }

    // MARK: - Registers

    /// A fresh unit of `size` consecutive registers (a group when `size` > 1).
    func newUnit(size: Int, prologue: Bool) -> [VirtualRegister] {
        let first = appendUnit(size: size, prologue: prologue)
        return Array(first..<first + size)
    }

    /// A fresh one-register unit. (Not `newUnit(size: 1)[0]`: most registers are single,
    /// and that array was one heap allocation per lowered operation.)
    func newRegister(prologue: Bool = false) -> VirtualRegister { appendUnit(size: 1, prologue: prologue) }

    /// Adds a unit's registers to the state's tables; returns the first.
    private func appendUnit(size: Int, prologue: Bool) -> VirtualRegister {
        let unit = state.units.count
        let first = state.registerUnit.count
        state.units.append(RegisterUnit(size: size, isPrologue: prologue))
        for offset in 0..<size {
            state.registerUnit.append(unit)
            state.registerOffset.append(offset)
            state.isUniform.append(prologue)
            state.isHome.append(false)
            state.knownConstant.append(nil)
        }
        return first
    }

    /// A fresh body register that is written more than once.
    func newHome(uniform: Bool) -> VirtualRegister {
        let register = newRegister()
        state.isHome[register] = true
        state.isUniform[register] = uniform
        return register
    }

    func isPrologue(_ register: VirtualRegister) -> Bool {
        state.units[state.registerUnit[register]].isPrologue
    }

    func isUniform(_ register: VirtualRegister) -> Bool { state.isUniform[register] }

    func newLabel() -> Int {
        state.labelCount += 1
        return state.labelCount - 1
    }

    // MARK: - Locations

    func at<T>(_ range: SourceRange, _ body: () throws -> T) rethrows -> T {
        let saved = state.currentLocation
        state.currentLocation = locationNumber(range.start)
        defer { state.currentLocation = saved }
        return try body()
    }

    /// The index of `location` in `state.locations`, added if new (`LocationNumbering`; part
    /// of the state a rollback restores).
    func locationNumber(_ location: SourceLocation) -> Int {
        let (number, isNew) = state.locationNumbering.number(of: location.file << 32 | location.offset)
        if isNew { state.locations.append(location) }
        return number
    }

    // MARK: - Emission

    func emitBody(_ instruction: IRInstruction) {
        var instruction = instruction
        instruction.location = state.currentLocation
        state.body.append(instruction)
    }

    func emitPrologue(_ instruction: IRInstruction) {
        var instruction = instruction
        instruction.location = state.currentLocation
        state.prologue.append(instruction)
    }

    func placeLabel(_ label: Int) { emitBody(.label(label)) }

    func jump(_ label: Int) { emitBody(IRInstruction(opcode: .jmp, imm: UInt32(label))) }

    func jump(_ opcode: Opcode, _ condition: VirtualRegister, _ label: Int) {
        emitBody(IRInstruction(opcode: opcode, a: condition, imm: UInt32(label)))
    }

    /// The register holding the constant word `bits` (hoisted, deduplicated).
    func constant(_ bits: UInt32) -> VirtualRegister {
        if let register = state.constantRegisters[bits] { return register }
        let index = poolIndex(bits)
        let register = newRegister(prologue: true)
        state.knownConstant[register] = bits
        emitPrologue(IRInstruction(opcode: .const, a: register, imm: UInt32(index)))
        state.constantRegisters[bits] = register
        return register
    }

    func constant(float value: Float) -> VirtualRegister { constant(value.bitPattern) }
    func constant(int value: Int32) -> VirtualRegister { constant(UInt32(bitPattern: value)) }
    var zero: VirtualRegister { constant(0) }
    var one: VirtualRegister { constant(1) }

    func poolIndex(_ bits: UInt32) -> Int {
        if let index = state.constantIndex[bits] { return index }
        state.constants.append(bits)
        state.constantIndex[bits] = state.constants.count - 1
        return state.constants.count - 1
    }

    /// Appends (or finds) a run of constant words; returns its first index.
    func poolArray(_ words: [UInt32]) -> Int {
        if let index = state.constantArrays[words] { return index }
        let index = state.constants.count
        state.constants.append(contentsOf: words)
        state.constantArrays[words] = index
        return index
    }

    /// The register holding uniform word `word` (hoisted, deduplicated).
    func argument(_ word: UInt32) -> VirtualRegister {
        if let register = state.argumentRegisters[word] { return register }
        let register = newRegister(prologue: true)
        emitPrologue(IRInstruction(opcode: .arg, a: register, imm: word))
        state.argumentRegisters[word] = register
        return register
    }

    /// A pure one-destination instruction: folded when its operands are constants,
    /// hoisted into the prologue when they are uniform, deduplicated there.
    func op(_ opcode: Opcode, _ b: VirtualRegister, _ c: VirtualRegister = -1, _ d: VirtualRegister = -1) -> VirtualRegister {
        let kb = state.knownConstant[b]
        let kc = c >= 0 ? state.knownConstant[c] : nil
        let kd = d >= 0 ? state.knownConstant[d] : nil
        if let kb, c < 0 || kc != nil, d < 0 || kd != nil {
            var operands = [kb]
            if let kc { operands.append(kc) }
            if let kd { operands.append(kd) }
            if let folded = ConstantFolder.fold(opcode, operands) { return constant(folded) }
        }
        if opcode == .mov { return b }
        if c >= 0, d < 0, let which = ConstantFolder.identityOperand(opcode, kb, kc) { return which == 0 ? b : c }
        if opcode == .fdiv, let kc, let reciprocal = ConstantFolder.exactReciprocal(ofDivisor: kc) {
            return op(.fmul, b, constant(reciprocal))
        }
        if opcode == .sel, let kb { return kb != 0 ? c : d }
        if opcode == .sel, c == d { return c }
        func hoistable(_ r: VirtualRegister) -> Bool { r < 0 || (isPrologue(r) && !state.isHome[r]) }
        func uniform(_ r: VirtualRegister) -> Bool { r < 0 || state.isUniform[r] }
        if hoistable(b) && hoistable(c) && hoistable(d) {
            let key = PureKey(opcode: opcode, b: b, c: c, d: d, imm: 0, mode: 0, literalCount: 0)
            if let register = state.pureCache[key] { return register }
            let register = newRegister(prologue: true)
            emitPrologue(IRInstruction(opcode: opcode, a: register, b: b, c: c, d: d))
            state.pureCache[key] = register
            return register
        }
        let register = newRegister()
        state.isUniform[register] = uniform(b) && uniform(c) && uniform(d)
        emitBody(IRInstruction(opcode: opcode, a: register, b: b, c: c, d: d))
        return register
    }

    /// Writes `home` in place (a multi-definition register): `home := opcode(b, c, d)`.
    func emitInto(_ home: VirtualRegister, _ opcode: Opcode, _ b: VirtualRegister, _ c: VirtualRegister = -1,
                  _ d: VirtualRegister = -1) throws {
        func uniform(_ r: VirtualRegister) -> Bool { r < 0 || state.isUniform[r] }
        try setUniformity(home, uniform(b) && uniform(c) && uniform(d) && state.isUniform[home])
        emitBody(IRInstruction(opcode: opcode, a: home, b: b, c: c, d: d))
    }

    /// `home := value` in the lanes of `mask` (a plain move when `mask` is nil).
    func writeHome(_ home: VirtualRegister, _ value: VirtualRegister, mask: VirtualRegister?) throws {
        if let mask {
            if value == home { return }
            try emitInto(home, .sel, mask, value, home)
        } else if value != home {
            try emitInto(home, .mov, value)
        }
    }

    func setUniformity(_ home: VirtualRegister, _ uniform: Bool) throws {
        if state.isUniform[home] && !uniform {
            for watched in state.watchedHomes where watched.contains(home) {
                throw LoweringError.becameVarying(home)
            }
        }
        state.isUniform[home] = uniform
    }

    /// The current mask as a register (`one` when every lane runs).
    var maskRegister: VirtualRegister {
        switch state.mask {
        case .lanes(let register): return register
        case .all: return one
        case .retired, .unreachable: return zero
        }
    }

    /// A copy of `values` that later writes to homes cannot change.
    func stable(_ values: [VirtualRegister]) -> [VirtualRegister] {
        // Usually none is a home: the same array, not a copy of it.
        guard values.contains(where: { state.isHome[$0] }) else { return values }
        return values.map { value in
            guard state.isHome[value] else { return value }
            let copy = newRegister()
            state.isUniform[copy] = state.isUniform[value]
            emitBody(IRInstruction(opcode: .mov, a: copy, b: value))
            return copy
        }
    }

    /// Rejects a value too large for the register file before lowering it component by component.
    func checkSize(_ type: KType, _ range: SourceRange) throws {
        let components = count(type)
        if components > maxComponents {
            let needs = components >= KType.maxComponentCount ? "more than \(KType.maxComponentCount)" : "\(components)"
            throw fail("this value needs \(needs) registers, more than the limit of \(maxComponents) (LibraryLimits.maxRegisters)", range)
        }
    }

    func fail(_ message: String, _ range: SourceRange) -> LoweringError {
        .diagnostic(.error(message, at: range))
    }

    // MARK: - Types

    var structs: [StructInfo] { program.structs }

    func count(_ type: KType) -> Int { type.componentCount(structs: structs) }

    func fieldOffset(_ type: KType, _ field: Int) -> (offset: Int, count: Int) {
        guard case .structure(let index) = type else { return (0, 0) }
        var offset = 0
        for (i, f) in structs[index].fields.enumerated() {
            let size = count(f.type)
            if i == field { return (offset, size) }
            offset += size
        }
        return (offset, 0)
    }

    /// Number of elements and components per element of an indexable type.
    func elementShape(_ type: KType) -> (count: Int, size: Int, element: KType)? {
        switch type {
        case .vector(let kind, let n): return (n, 1, .scalar(kind))
        case .matrix(let kind, let columns, let rows): return (columns, rows, .vector(kind, rows))
        case .array(let element, let n): return (n, count(element), element)
        default: return nil
        }
    }
}
