import KilnBytecode

/// A virtual register: an index into `LoweringState.registers`. Physical registers are
/// assigned by `RegisterAllocator` after optimization.
typealias VirtualRegister = Int

/// One instruction of the compiler's intermediate form: an `Instruction` whose register
/// fields name virtual registers, whose jump targets name labels, plus label markers.
///
/// Register fields are used as the opcode's `OperandShape` says; `-1` marks an unused
/// field. For `ldr`/`str`/`sample`/`texread`/`texsize`/`texwrite` the register field that names a
/// run of registers names the *first member* of a register group (see `RegisterUnit`).
struct IRInstruction {
    let opcode: Opcode
    /// `opcode.shape`, kept beside it: every pass asks for it (which registers an
    /// instruction reads and writes) on every instruction, and `Opcode.shape` is a call into
    /// another module. Stored: 2 % fewer instructions compiling starfield and raymarch;
    /// `@inlinable` instead cost instructions each time it was tried (docs/benchmarks.md).
    let shape: OperandShape
    /// `sample`'s `SampleMode`.
    var mode: UInt8 = 0
    /// A label marker (no instruction); `imm` is the label id.
    var isLabel = false
    /// A debug marker (no instruction); `imm` indexes `LoweringState.debugEvents`. Passes
    /// step over markers: they read nothing, so they never keep a value alive or change the
    /// code (see `DebugInfo`).
    var isDebug = false
    /// `ldk`'s element count (its `d` field is a literal, not a register).
    var literalCount: UInt16 = 0
    // The register fields and the location are stored in 32 bits and read as `Int`: an
    // instruction is 32 bytes instead of 64, and every pass walks, filters and copies whole
    // arrays of them (docs/benchmarks.md, "thirty-fifth session"). Both stay far below 2³¹:
    // lowering stops at `LibraryLimits.maxInstructions` instructions, and an instruction
    // defines at most one register group of at most `maxRegisters` components.
    private var storedA: Int32 = -1
    private var storedB: Int32 = -1
    private var storedC: Int32 = -1
    private var storedD: Int32 = -1
    /// Constant index, argument word, count, texture/buffer slot, or a label id for jumps.
    var imm: UInt32 = 0
    private var storedLocation: Int32 = 0

    var a: VirtualRegister {
        @inline(__always) get { VirtualRegister(storedA) }
        @inline(__always) set { storedA = Int32(truncatingIfNeeded: newValue) }
    }
    var b: VirtualRegister {
        @inline(__always) get { VirtualRegister(storedB) }
        @inline(__always) set { storedB = Int32(truncatingIfNeeded: newValue) }
    }
    var c: VirtualRegister {
        @inline(__always) get { VirtualRegister(storedC) }
        @inline(__always) set { storedC = Int32(truncatingIfNeeded: newValue) }
    }
    var d: VirtualRegister {
        @inline(__always) get { VirtualRegister(storedD) }
        @inline(__always) set { storedD = Int32(truncatingIfNeeded: newValue) }
    }
    /// Index into `LoweringState.locations`.
    var location: Int {
        @inline(__always) get { Int(storedLocation) }
        @inline(__always) set { storedLocation = Int32(truncatingIfNeeded: newValue) }
    }

    init(opcode: Opcode, a: VirtualRegister = -1, b: VirtualRegister = -1, c: VirtualRegister = -1,
         d: VirtualRegister = -1, imm: UInt32 = 0, mode: UInt8 = 0, literalCount: UInt16 = 0,
         isLabel: Bool = false, isDebug: Bool = false, location: Int = 0) {
        self.opcode = opcode
        self.shape = opcode.shape
        (self.a, self.b, self.c, self.d) = (a, b, c, d)
        (self.imm, self.mode, self.literalCount) = (imm, mode, literalCount)
        (self.isLabel, self.isDebug, self.location) = (isLabel, isDebug, location)
    }

    static func label(_ id: Int) -> IRInstruction {
        IRInstruction(opcode: .ret, imm: UInt32(id), isLabel: true)
    }

    static func debug(_ event: Int) -> IRInstruction {
        IRInstruction(opcode: .ret, imm: UInt32(event), isDebug: true)
    }

    /// A label or a debug marker: no instruction of its own.
    var isMarker: Bool { isLabel || isDebug }

    /// A jump, conditional or not: `imm` names the label it goes to.
    var isJump: Bool {
        !isMarker && (shape == .jump || shape == .conditionalJump)
    }

    /// A copy `a := b`; a marker never is one, whatever its opcode.
    var isMove: Bool { opcode == .mov && !isMarker }

    /// A plain computation other than a copy: its result is a function of its operands'
    /// bits alone (`unary`, `binary`, `ternary` shapes; none reads a mask it is not given),
    /// so it may be reused (`ValueNumbering`) or moved (`LoopInvariantHoisting`).
    var isPlainComputation: Bool {
        guard !isMarker, opcode != .mov else { return false }
        switch shape {
        case .unary, .binary, .ternary: return true
        default: return false
        }
    }

    /// Whether the instruction only computes its destination (removable when unused).
    var isPure: Bool {
        if isMarker { return false }
        switch shape {
        case .none, .jump, .conditionalJump, .storeRegisterArray, .textureWrite: return false
        default: return true
        }
    }

    /// Calls `body` with each virtual register the instruction reads (no allocation).
    @inline(__always)
    func forEachRead(_ body: (VirtualRegister) -> Void) {
        if isMarker { return }
        switch shape {
        case .none, .destConstant, .destArgument, .jump, .textureSize: return
        case .unary, .loadBuffer, .loadConstantArray: body(b)
        case .binary, .texture, .loadRegisterArray: body(b); body(c)
        case .ternary: body(b); body(c); body(d)
        case .storeRegisterArray, .textureWrite: body(a); body(b); body(c); body(d)
        case .conditionalJump: body(a)
        }
    }

    /// The virtual register the instruction writes, if any.
    var writes: VirtualRegister? {
        if isMarker { return nil }
        switch shape {
        case .none, .jump, .conditionalJump, .textureWrite: return nil
        default: return a
        }
    }
}

/// An allocation unit: one register, or a run of registers that must be consecutive
/// (a dynamically indexed array, the four results of `sample`, an output slot).
struct RegisterUnit {
    var size: Int
    /// Defined in the prologue (a uniform value): allocated below `uniformRegisterCount`.
    var isPrologue: Bool
}
