import KilnBytecode

/// A run-time error of a draw (today: a runaway loop exceeding the instruction budget).
/// Missing resources are not errors: unbound uniforms, buffers and textures read as zero.
public struct VMError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// Index into `Library.code` of the instruction that raised the error.
    public var instruction: Int
    /// Its source position, when the library's debug table covers it.
    public var location: DebugLocation?

    public init(message: String, instruction: Int, location: DebugLocation?) {
        self.message = message
        self.instruction = instruction
        self.location = location
    }

    public var description: String { message }
}
