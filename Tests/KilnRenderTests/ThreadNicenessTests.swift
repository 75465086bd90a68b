import Foundation
import Testing
import KilnRender

/// Render threads give way to the threads that answer: a thread lowers its own priority
/// only, never raises it back, and every tile thread of a frame takes
/// `TileScheduler.workerNiceness` before it renders.
@Suite struct ThreadNicenessTests {
    final class Box<T>: @unchecked Sendable { var value: T? }

    /// Runs `body` on a thread of its own (the niceness it takes must not stay with the
    /// test runner's thread) and returns its result.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = Box<T>(), done = DispatchSemaphore(value: 0)
        Thread { box.value = body(); done.signal() }.start()
        done.wait()
        return box.value!
    }

    @Test func aThreadLowersItsOwnPriorityOnly() {
        let before = ThreadNiceness.current
        let (lowered, afterAskingForLess) = Self.onOwnThread {
            (ThreadNiceness.lowerCurrentThread(to: 7), ThreadNiceness.lowerCurrentThread(to: 3))
        }
        #expect(lowered >= 7)
        #expect(afterAskingForLess == lowered)       // asking for less leaves it as it is
        #expect(ThreadNiceness.current == before)    // the thread that started it kept its own
    }

    @Test func everyTileThreadTakesTheWorkerNiceness() {
        let seen = Self.onOwnThread { () -> [Int32] in
            TileScheduler.workerNiceness.store(9, ordering: .relaxed)
            defer { TileScheduler.workerNiceness.store(0, ordering: .relaxed) }
            let lock = NSLock()
            var seen: [Int32] = []
            TileScheduler.run(height: 64, threads: 2, rowsPerBand: 1) { _, _ in
                let nice = ThreadNiceness.current
                lock.withLock { seen.append(nice) }
                usleep(200)     // long enough for both workers to take bands
            }
            return seen
        }
        #expect(seen.count == 64)
        #expect(seen.allSatisfy { $0 >= 9 }, "bands rendered at nice values \(Set(seen).sorted())")
    }
}
