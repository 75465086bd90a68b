import Foundation
import Testing
import KilnRender
@testable import KilnServer

/// The worker pool's queues: urgent first, normal and heavy in arrival order, and heavy
/// jobs never on every worker at once, so cheap work always finds a worker beside
/// expensive work.
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

    /// A saturated pool (its normal queue never empty, as with more sessions than the cores
    /// can serve) still runs a heavy job, in its turn: before the normal jobs that came
    /// after it. (Normal-first starved it for as long as the saturation lasted.)
    @Test func aHeavyJobTakesItsTurnInASaturatedPool() {
        let pool = WorkerPool(threads: 2)
        defer { pool.shutdown() }
        final class Log: @unchecked Sendable {
            let lock = NSLock()
            var entries: [String] = []
            func add(_ entry: String) { lock.withLock { entries.append(entry) } }
        }
        let log = Log()
        let start = DispatchSemaphore(value: 0)
        // Both workers wait, so everything below queues before anything runs.
        for _ in 0..<2 { pool.submit(.normal) { start.wait() } }
        for index in 0..<20 { pool.submit(.normal) { log.add("n\(index)"); usleep(1000) } }
        let heavyDone = DispatchSemaphore(value: 0)
        pool.submit(.heavy) { log.add("heavy"); heavyDone.signal() }
        for index in 20..<200 { pool.submit(.normal) { log.add("n\(index)"); usleep(1000) } }
        start.signal(); start.signal()
        #expect(heavyDone.wait(timeout: .now() + 10) == .success)
        let entries = log.lock.withLock { log.entries }
        let position = entries.firstIndex(of: "heavy") ?? entries.count
        // Two workers: at most one normal job that arrived later may start beside it.
        #expect(position <= 21, "\(entries.prefix(30))")
    }

    @Test func oneWorkerRunsHeavyJobsToo() {
        let pool = WorkerPool(threads: 1)
        defer { pool.shutdown() }
        let done = DispatchSemaphore(value: 0)
        pool.submit(.heavy) { done.signal() }
        #expect(done.wait(timeout: .now() + 5) == .success)
    }

    @Test func workersRunAtTheirNiceness() {
        let pool = WorkerPool(threads: 2, niceness: 6)
        defer { pool.shutdown() }
        let lock = NSLock()
        var seen: [Int32] = []
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            pool.submit(.normal) {
                let nice = ThreadNiceness.current
                lock.withLock { seen.append(nice) }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(lock.withLock { seen.count } == 8)
        #expect(lock.withLock { seen.allSatisfy { $0 >= 6 } })
    }

    /// `submitIfIdle` runs a job only on a waiting worker: with every worker busy it queues
    /// nothing (the caller does the work itself), and with one waiting the job starts.
    @Test func submitIfIdleTakesOnlyAWaitingWorker() {
        let pool = WorkerPool(threads: 2)
        defer { pool.shutdown() }
        let release = DispatchSemaphore(value: 0)
        let busy = DispatchSemaphore(value: 0)
        for _ in 0..<2 { pool.submit(.normal) { busy.signal(); release.wait() } }
        for _ in 0..<2 { #expect(busy.wait(timeout: .now() + 5) == .success) }
        #expect(!pool.submitIfIdle { Issue.record("ran on a busy pool") })
        release.signal()
        // One worker waits again (given a moment to get back to its queue).
        let ran = DispatchSemaphore(value: 0)
        let deadline = Date().addingTimeInterval(5)
        var taken = false
        while !taken && Date() < deadline {
            taken = pool.submitIfIdle { ran.signal() }
            if !taken { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(taken)
        #expect(ran.wait(timeout: .now() + 5) == .success)
        release.signal()
    }
}

/// A provisional frame's ticket: the full compile settling it skips a render that has not
/// started and waits for one under way, so a started provisional frame always goes out
/// before its edit's answer.
@Suite struct ProvisionalFrameTicketTests {
    @Test func aRenderNotStartedIsSkipped() {
        let ticket = ProvisionalFrameTicket()
        ticket.settle()
        #expect(!ticket.start())
    }

    @Test func aRenderUnderWayIsWaitedFor() {
        let ticket = ProvisionalFrameTicket()
        #expect(ticket.start())
        final class Flag: @unchecked Sendable { let lock = NSLock(); var finished = false }
        let flag = Flag()
        let settled = DispatchSemaphore(value: 0)
        // A thread of its own: the global queue's may all be busy with other tests.
        Thread {
            ticket.settle()
            // Settled only after the render finished.
            flag.lock.withLock { #expect(flag.finished) }
            settled.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(settled.wait(timeout: .now()) == .timedOut)
        flag.lock.withLock { flag.finished = true }
        ticket.finish()
        #expect(settled.wait(timeout: .now() + 5) == .success)
    }
}

