import KilnCompileTool
/// A one-line progress bar on stderr, drawn only when stderr is a terminal (so logs
/// and pipes get no control characters).
struct ProgressBar {
    let total: Int
    let label: String
    let console: Console
    /// Width of the bar itself in characters.
    var width = 30

    init(total: Int, label: String, console: Console = .current) {
        self.total = max(total, 1)
        self.label = label
        self.console = console
    }

    var isVisible: Bool { console.errorIsTerminal }

    /// Redraws the bar at `done` of `total` steps.
    func update(_ done: Int) {
        guard isVisible else { return }
        let clamped = min(max(done, 0), total)
        let filled = clamped * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        console.error("\r\(label) [\(bar)] \(clamped)/\(total)")
    }

    /// Ends the bar's line.
    func finish() {
        guard isVisible else { return }
        update(total)
        console.error("\n")
    }
}
