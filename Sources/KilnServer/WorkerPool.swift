import Foundation

/// A fixed set of worker threads that compile and render, so the service thread never
/// does. Urgent jobs — compiles and the first frame of an edit — jump ahead of the rest:
/// an edit must not wait behind other sessions' animation frames. Normal jobs are FIFO
/// and each session has at most one frame rendering, so every session keeps getting
/// frames when the cores are saturated.
public final class WorkerPool: @unchecked Sendable {
    public enum Priority { case urgent, normal }

    private let condition = NSCondition()
    private var urgentJobs: [() -> Void] = []
    private var normalJobs: [() -> Void] = []
    private var normalHead = 0
    private var stopping = false
    private var threads: [Thread] = []
    private var running = 0

    public init(threads count: Int) {
        let count = count > 0 ? count : max(1, ProcessInfo.processInfo.activeProcessorCount)
        for index in 0..<count {
            let thread = Thread { [self] in workLoop() }
            thread.name = "kiln-worker-\(index)"
            threads.append(thread)
            thread.start()
        }
        running = count
    }

    public func submit(_ priority: Priority, _ job: @escaping () -> Void) {
        condition.lock()
        if !stopping {
            switch priority {
            case .urgent: urgentJobs.append(job)
            case .normal: normalJobs.append(job)
            }
            condition.signal()
        }
        condition.unlock()
    }

    /// Finishes queued jobs' current runs, drops the rest, and joins the threads.
    public func shutdown() {
        condition.lock()
        stopping = true
        urgentJobs.removeAll()
        normalJobs.removeAll()
        normalHead = 0
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func workLoop() {
        while true {
            condition.lock()
            while !stopping && urgentJobs.isEmpty && normalHead == normalJobs.count { condition.wait() }
            if stopping {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let job: () -> Void
            if !urgentJobs.isEmpty {
                job = urgentJobs.removeFirst()
            } else {
                job = normalJobs[normalHead]
                normalHead += 1
                if normalHead > 64, normalHead * 2 > normalJobs.count {
                    normalJobs.removeFirst(normalHead)
                    normalHead = 0
                }
            }
            condition.unlock()
            job()
        }
    }
}
