import Foundation
import KilnCompileTool

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
