#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the commands write their output.
///
/// Commands never call `print` directly: they write to `Console.current`, which is the
/// process's stdout/stderr when `kiln` runs, and an in-memory capture when tests run a
/// command in-process with `Kiln.run(arguments:)`.
public final class Console: @unchecked Sendable {
    /// Receives standard-output text.
    private let writeOut: (String) -> Void
    /// Receives standard-error text.
    private let writeError: (String) -> Void
    /// Whether stdout is a terminal (tables may use width, progress may be drawn).
    public let outputIsTerminal: Bool
    /// Whether stderr is a terminal (diagnostics are coloured, progress bars are drawn).
    public let errorIsTerminal: Bool

    public init(outputIsTerminal: Bool, errorIsTerminal: Bool,
                writeOut: @escaping (String) -> Void, writeError: @escaping (String) -> Void) {
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.writeOut = writeOut
        self.writeError = writeError
    }

    /// The process's own stdout and stderr.
    public static let standard = Console(
        outputIsTerminal: isatty(STDOUT_FILENO) != 0,
        errorIsTerminal: isatty(STDERR_FILENO) != 0,
        writeOut: { text in send(text, to: STDOUT_FILENO) },
        writeError: { text in send(text, to: STDERR_FILENO) })

    /// Writes `text` to a file descriptor, all of it (nothing to do about a failed write to
    /// stdout or stderr).
    private static func send(_ text: String, to descriptor: Int32) {
        var text = text
        _ = text.withUTF8 { FileSystem.writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    /// The console commands write to; tests bind a capturing one for the duration of a run.
    @TaskLocal public static var current: Console = .standard

    /// Writes `text` and a newline to standard output.
    public func line(_ text: String = "") { writeOut(text + "\n") }

    /// Writes `text` as it is to standard output.
    public func write(_ text: String) { writeOut(text) }

    /// Writes `text` as it is to standard error.
    public func error(_ text: String) { writeError(text) }
}
