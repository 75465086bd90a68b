/// Why bytes could not be read as a library, or why a library failed verification.
///
/// `message` names the function, instruction and field at fault, e.g.
/// `function 'wave': instruction 17 (fadd): register 300 out of range (registerCount 40)`;
/// `offset` is the byte offset in the encoded library where the fault lies, when the
/// library came from bytes (`LibraryReader`), and nil for an in-memory library.
public struct LibraryError: Error, CustomStringConvertible, Hashable, Sendable {
    public var message: String
    public var offset: Int?

    public init(message: String, offset: Int? = nil) {
        self.message = message
        self.offset = offset
    }

    public var description: String {
        if let offset { return "invalid library at byte \(offset): \(message)" }
        return "invalid library: \(message)"
    }
}
