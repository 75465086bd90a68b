import KilnBytecode

/// One executed instruction as `Executor.trace(lane:)` records it: the debugger seam.
public struct TraceStep: Hashable, Sendable {
    /// A register the instruction wrote in the traced lane, and the 32-bit value written.
    public struct Write: Hashable, Sendable {
        public var register: UInt16
        public var value: UInt32

        public init(register: UInt16, value: UInt32) {
            self.register = register
            self.value = value
        }
    }

    /// Index into `Library.code`.
    public var instruction: Int
    public var opcode: Opcode
    /// Source position from the library's debug table, if covered.
    public var location: DebugLocation?
    /// Registers written in the traced lane, in register order. Empty for jumps and `ret`,
    /// and for a `str` whose lane was masked off or out of range. A masked write compiled as
    /// `sel` is recorded (its value may equal the old one).
    public var writes: [Write]
    /// The instruction transferred control somewhere other than the next instruction (a
    /// jump taken). A debugger needs it to tell falling into a label from jumping to it.
    public var jumped: Bool

    public init(instruction: Int, opcode: Opcode, location: DebugLocation?, writes: [Write], jumped: Bool = false) {
        self.instruction = instruction
        self.opcode = opcode
        self.location = location
        self.writes = writes
        self.jumped = jumped
    }
}

/// One lane's run of a batch: its registers when the body began (lane inputs and the
/// prologue's uniform values) and every instruction after, as `Executor.trace` records it.
public struct LaneTrace: Sendable {
    /// The lane's value of every register (`0 ..< registerCount`) before the body's first instruction.
    public var initialRegisters: [UInt32]
    public var steps: [TraceStep]
    /// Steps past `maxSteps` ran (so the batch's results are complete) but were not recorded.
    public var truncated: Bool
    /// Instructions the batch executed, recorded or not.
    public var executed: Int

    public init(initialRegisters: [UInt32], steps: [TraceStep], truncated: Bool, executed: Int) {
        self.initialRegisters = initialRegisters
        self.steps = steps
        self.truncated = truncated
        self.executed = executed
    }
}
