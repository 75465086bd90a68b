import KilnBytecode

/// One executed instruction as `Executor.trace(lane:)` records it: the debugger seam.
///
/// The written registers are always a run (`first`, `first + 1`, …; at most four, for
/// `sample`), so they are stored inline: a trace of tens of thousands of steps allocates
/// nothing per step.
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
    /// The instruction transferred control somewhere other than the next instruction (a
    /// jump taken). A debugger needs it to tell falling into a label from jumping to it.
    public var jumped: Bool
    /// The first register written, how many (0…4), and their values.
    public private(set) var firstWrite: UInt16 = 0
    public private(set) var writeCount: UInt8 = 0
    private var values: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)

    /// Registers written in the traced lane, in register order. Empty for jumps and `ret`,
    /// and for a `str` whose lane was masked off or out of range. A masked write compiled as
    /// `sel` is recorded (its value may equal the old one).
    public var writes: [Write] {
        (0..<Int(writeCount)).map { Write(register: firstWrite &+ UInt16($0), value: value(at: $0)) }
    }

    /// The value of write `index` (`0 ..< writeCount`).
    public func value(at index: Int) -> UInt32 {
        switch index {
        case 0: values.0
        case 1: values.1
        case 2: values.2
        default: values.3
        }
    }

    /// `writes` must be consecutive registers, at most four (what instructions write).
    public init(instruction: Int, opcode: Opcode, location: DebugLocation?, writes: [Write], jumped: Bool = false) {
        self.instruction = instruction
        self.opcode = opcode
        self.location = location
        self.jumped = jumped
        firstWrite = writes.first?.register ?? 0
        writeCount = UInt8(min(4, writes.count))
        for (index, write) in writes.prefix(4).enumerated() { setValue(write.value, at: index) }
    }

    /// A step writing `count` registers from `first`, values read by `value(register)`.
    init(instruction: Int, opcode: Opcode, location: DebugLocation?, first: UInt16, count: Int, jumped: Bool,
         value: (UInt16) -> UInt32) {
        self.instruction = instruction
        self.opcode = opcode
        self.location = location
        self.jumped = jumped
        firstWrite = first
        writeCount = UInt8(min(4, count))
        for index in 0..<Int(writeCount) { setValue(value(first &+ UInt16(index)), at: index) }
    }

    private mutating func setValue(_ value: UInt32, at index: Int) {
        switch index {
        case 0: values.0 = value
        case 1: values.1 = value
        case 2: values.2 = value
        default: values.3 = value
        }
    }

    public static func == (a: TraceStep, b: TraceStep) -> Bool {
        a.instruction == b.instruction && a.opcode == b.opcode && a.location == b.location && a.jumped == b.jumped
            && a.writes == b.writes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(instruction)
        hasher.combine(opcode)
        hasher.combine(writes)
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
    /// The run stopped here instead of finishing (a runaway loop over the instruction
    /// budget): the steps up to it are still recorded, which is how a loop is seen running away.
    public var failure: VMError?

    public init(initialRegisters: [UInt32], steps: [TraceStep], truncated: Bool, executed: Int, failure: VMError? = nil) {
        self.initialRegisters = initialRegisters
        self.steps = steps
        self.truncated = truncated
        self.executed = executed
        self.failure = failure
    }
}
