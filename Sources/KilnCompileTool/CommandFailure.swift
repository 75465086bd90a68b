/// An error a command reports to the user: one clear sentence, printed as
/// `error: <message>` on stderr, and exit status 1.
///
/// Compile errors are not `CommandFailure`s: their diagnostics are printed as they are
/// found and the command then exits with `CompileFailed`, status 1.
public struct CommandFailure: Error, CustomStringConvertible, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
