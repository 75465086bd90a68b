import Foundation

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
        writeOut: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
        writeError: { text in FileHandle.standardError.write(Data(text.utf8)) })

    /// The console commands write to; tests bind a capturing one for the duration of a run.
    @TaskLocal public static var current: Console = .standard

    /// Writes `text` and a newline to standard output.
    public func line(_ text: String = "") { writeOut(text + "\n") }

    /// Writes `text` as it is to standard output.
    public func write(_ text: String) { writeOut(text) }

    /// Writes `text` as it is to standard error.
    public func error(_ text: String) { writeError(text) }
}

/// A console that keeps everything written to it, for tests and for `Kiln.run(arguments:)`.
final class CapturingConsole: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""
    private var errorText = ""

    lazy var console = Console(
        outputIsTerminal: false, errorIsTerminal: false,
        writeOut: { [unowned self] text in self.lock.withLock { self.outText += text } },
        writeError: { [unowned self] text in self.lock.withLock { self.errorText += text } })

    var output: String { lock.withLock { outText } }
    var errorOutput: String { lock.withLock { errorText } }
}
