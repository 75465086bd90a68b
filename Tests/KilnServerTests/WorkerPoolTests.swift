import Foundation
import Testing
@testable import KilnServer

/// The worker pool's queues: urgent before normal before heavy, and heavy jobs never on
/// every worker at once, so cheap work always finds a worker beside expensive work.
@Suite struct WorkerPoolTests {
    /// A counter of jobs running at once, and the most seen.
    final class Gauge: @unchecked Sendable {
        let lock = NSLock()
        var now = 0
        var most = 0
        func enter() { lock.withLock { now += 1; most = max(most, now) } }
        func leave() { lock.withLock { now -= 1 } }
    }

    @Test func heavyJobsLeaveAWorkerFree() {
        let pool = WorkerPool(threads: 3)
        defer { pool.shutdown() }
        let heavy = Gauge()
        let release = DispatchSemaphore(value: 0)
        let heavyDone = DispatchGroup()
        for _ in 0..<6 {
            heavyDone.enter()
            pool.submit(.heavy) {
                heavy.enter()
                release.wait()
                heavy.leave()
                heavyDone.leave()
            }
        }
        let deadline = Date().addingTimeInterval(5)
        while heavy.lock.withLock({ heavy.now }) < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(heavy.lock.withLock { heavy.now } == 2)      // threads − 1, with four more waiting
        // While heavy jobs hold what they may, cheap ones still run on the free worker.
        let cheap = DispatchSemaphore(value: 0)
        for _ in 0..<20 { pool.submit(.normal) { cheap.signal() } }
        for _ in 0..<20 { #expect(cheap.wait(timeout: .now() + 5) == .success) }
        for _ in 0..<6 { release.signal() }
        #expect(heavyDone.wait(timeout: .now() + 5) == .success)
        #expect(heavy.most == 2)
    }

    @Test func oneWorkerRunsHeavyJobsToo() {
        let pool = WorkerPool(threads: 1)
        defer { pool.shutdown() }
        let done = DispatchSemaphore(value: 0)
        pool.submit(.heavy) { done.signal() }
        #expect(done.wait(timeout: .now() + 5) == .success)
    }
}
