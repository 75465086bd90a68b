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

    public init(instruction: Int, opcode: Opcode, location: DebugLocation?, writes: [Write]) {
        self.instruction = instruction
        self.opcode = opcode
        self.location = location
        self.writes = writes
    }
}
