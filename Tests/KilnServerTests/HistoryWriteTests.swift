import Foundation
import KilnStorage
import Testing
@testable import KilnServer

/// An edit's history version is written after its answer, and frames of the new library
/// do not wait for that write: a slow store (a database across the network) must not
/// delay first pixels.
@Suite struct HistoryWriteTests {
    /// A store whose `saveVersion` blocks, once armed, until `release()`.
    final class SlowStore: ShareStore, @unchecked Sendable {
        let condition = NSCondition()
        var armed = false, released = false
        /// Versions saved before arming; calls of `saveVersion` blocked now, and returned
        /// after blocking.
        var saved = 0, blocked = 0, returned = 0
        func saveState(_ json: [UInt8]) throws -> String { "AAAAAAAAAAAAAAAAAAAAAA" }
        func loadState(id: String) throws -> [UInt8]? { nil }
        func saveContent(_ bytes: [UInt8]) throws -> String { String(repeating: "a", count: 64) }
        func loadContent(hash: String) throws -> [UInt8]? { nil }
        func counts() throws -> (states: Int, contents: Int) { (0, 0) }
        func saveVersion(client: String, files: [UInt8], time: Double) throws -> String {
            condition.lock()
            defer { condition.unlock() }
            if armed {
                blocked += 1
                while !released { condition.wait() }
                blocked -= 1
                returned += 1
            } else {
                saved += 1
            }
            return String(repeating: "b", count: 64)
        }
        func versions(client: String, limit: Int) throws -> [Version] { [] }
        func charge(client: String, bytes: Int, day: Int, limit: Int) throws -> Bool { true }

        func release() {
            condition.lock()
            released = true
            condition.broadcast()
            condition.unlock()
        }
        var state: (saved: Int, blocked: Int, returned: Int) { condition.withLock { (saved, blocked, returned) } }

        /// Waits until `predicate` holds for `state` (polling; a history write has no
        /// reply to wait on); false after 30 s.
        func wait(until predicate: ((saved: Int, blocked: Int, returned: Int)) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while !predicate(state) {
                guard Date() < deadline else { return false }
                usleep(1000)
            }
            return true
        }
    }

    static let client = "history-write-test-1"

    @Test func framesOfAnEditDoNotWaitForItsHistoryVersion() throws {
        let store = SlowStore()
        // Every session is heavy: an edit holds frames back until its compile is done
        // (`editPreemptsFrames`), the case where the history write could delay them.
        let (service, _) = SessionResponderTests.service(store: store) { $0.heavyFrameSeconds = 0 }
        defer { store.release(); service.stop() }
        let sink = RecordingSink()
        let session = service.openSession(sink)
        service.receive(text: SessionResponderTests.compileMessage(id: 1, source: waveSource, client: Self.client), session: session)
        #expect(sink.message("compiled") != nil)
        service.receive(text: #"{"type":"preview.start","id":2,"size":[8,4],"fps":60}"#, session: session)
        #expect(sink.wait { _ in sink.frames.count >= 2 })

        // The first edit's version is written after its answer: wait for it before arming.
        #expect(store.wait { $0.saved == 1 })
        store.condition.withLock { store.armed = true }
        service.receive(text: SessionResponderTests.compileMessage(id: 3, source: waveSource + "\n// an edit\n", client: Self.client), session: session)
        #expect(sink.message("compiled", index: 1) != nil)
        #expect(store.wait { $0.blocked == 1 })
        // The version is being written (and stays blocked): frames go on meanwhile.
        let framesBefore = sink.frames.count
        #expect(sink.wait(timeout: 10) { _ in sink.frames.count >= framesBefore + 2 })
        #expect(store.state == (saved: 1, blocked: 1, returned: 0))
    }
}
