import Foundation

/// What a failed storage call tells whom. The client gets a plain refusal: the database's
/// address, user and messages are the operator's business, not every visitor's (the same
/// reason PostgresNIO hides its errors' details by default). The operator gets the whole
/// error on standard error — at most one line a second, so an outage under load does not
/// flood the log — and `kiln_storage_errors_total` counts every failure.
final class StorageFailureLog: @unchecked Sendable {
    /// What a client is told when storage fails.
    static let clientMessage = "the permalink database is unavailable; try again shortly"

    private let lock = NSLock()
    private var lastLine = -Double.infinity
    private var suppressed = 0
    /// Seconds between two lines.
    let interval: Double

    init(interval: Double = 1) { self.interval = interval }

    /// Records `error` (what was being done: "storing a share") and returns the client's message.
    func record(_ error: Error, doing what: String, metrics: Metrics) -> String {
        metrics.increment("kiln_storage_errors_total")
        let now = monotonicSeconds()
        lock.lock()
        let due = now - lastLine >= interval
        let skipped = suppressed
        if due { lastLine = now; suppressed = 0 } else { suppressed += 1 }
        lock.unlock()
        if due {
            let more = skipped > 0 ? " (and \(skipped) more failures since the last line)" : ""
            FileHandle.standardError.write(Data("kiln serve: \(what) failed: \(error)\(more)\n".utf8))
        }
        return Self.clientMessage
    }
}
