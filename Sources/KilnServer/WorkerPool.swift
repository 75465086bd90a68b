import Foundation

/// A fixed set of worker threads that compile and render, so the service thread never
/// does. Compile jobs jump ahead of render jobs: an edit must not wait behind frames.
/// Render jobs are FIFO and each session has at most `maxFramesInFlight` of them queued,
/// so every session keeps getting frames when the cores are saturated.
public final class WorkerPool: @unchecked Sendable {
    public enum Priority { case compile, render }

    private let condition = NSCondition()
    private var compileJobs: [() -> Void] = []
    private var renderJobs: [() -> Void] = []
    private var renderHead = 0
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
            case .compile: compileJobs.append(job)
            case .render: renderJobs.append(job)
            }
            condition.signal()
        }
        condition.unlock()
    }

    /// Finishes queued jobs' current runs, drops the rest, and joins the threads.
    public func shutdown() {
        condition.lock()
        stopping = true
        compileJobs.removeAll()
        renderJobs.removeAll()
        renderHead = 0
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func workLoop() {
        while true {
            condition.lock()
            while !stopping && compileJobs.isEmpty && renderHead == renderJobs.count { condition.wait() }
            if stopping {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let job: () -> Void
            if !compileJobs.isEmpty {
                job = compileJobs.removeFirst()
            } else {
                job = renderJobs[renderHead]
                renderHead += 1
                if renderHead > 64, renderHead * 2 > renderJobs.count {
                    renderJobs.removeFirst(renderHead)
                    renderHead = 0
                }
            }
            condition.unlock()
            job()
        }
    }
}
