import Foundation
@testable import KilnServer

/// A `ReplySink` that records what a session sends, for driving the protocol without
/// sockets. It writes every frame at once (back-pressure is tested over real sockets).
final class RecordingSink: ReplySink, @unchecked Sendable {
    private let condition = NSCondition()
    private var replies: [(reply: Reply, at: Double)] = []
    private var open = true

    @discardableResult
    func send(_ reply: Reply) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard open else { return false }
        replies.append((reply, monotonicSeconds()))
        condition.broadcast()
        return true
    }

    var isOpen: Bool {
        condition.lock(); defer { condition.unlock() }
        return open
    }

    var queuedFrames: Int { 0 }

    func close() {
        condition.lock(); open = false; condition.unlock()
    }

    /// Every JSON message so far, as objects (with their arrival times).
    var messages: [(object: [String: Any], at: Double)] {
        condition.lock(); defer { condition.unlock() }
        return replies.compactMap { entry in
            guard case .message(let message) = entry.reply else { return nil }
            let data = Data(message.json.utf8)
            return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]).map { ($0, entry.at) }
        }
    }

    /// Waits until `predicate` holds for the replies so far (it runs without the sink's
    /// lock, so it may read the sink); false after `timeout`. Generous: no test waits for
    /// something that should not come, and a loaded CI machine stalls threads for seconds.
    func wait(timeout: Double = 30, until predicate: ([Reply]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            condition.lock()
            let snapshot = replies.map(\.reply)
            condition.unlock()
            if predicate(snapshot) { return true }
            condition.lock()
            if replies.count == snapshot.count, !condition.wait(until: deadline) {
                condition.unlock()
                return false
            }
            condition.unlock()
        }
    }

    /// The next JSON message of `type` after `skipping` of them, waiting for it.
    func message(_ type: String, index: Int = 0, timeout: Double = 30) -> [String: Any]? {
        var found: [String: Any]?
        _ = wait(timeout: timeout) { replies in
            let matching = replies.compactMap { reply -> [String: Any]? in
                guard case .message(let message) = reply, message.type == type else { return nil }
                return message.object
            }
            if matching.count > index { found = matching[index] }
            return found != nil
        }
        return found
    }

    /// All frames so far.
    var frames: [(FrameHeader, [UInt8])] {
        condition.lock(); defer { condition.unlock() }
        return replies.compactMap { if case .frame(let header, let payload, _) = $0.reply { (header, payload) } else { nil } }
    }

    /// All libraries so far.
    var libraries: [[UInt8]] {
        condition.lock(); defer { condition.unlock() }
        return replies.compactMap { if case .library(let bytes) = $0.reply { bytes } else { nil } }
    }
}
