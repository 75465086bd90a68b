import Foundation
import KilnRender

/// A fixed set of worker threads that compile and render, so the service thread never
/// does. Urgent jobs — compiles and the first frame of an edit — jump ahead of the rest:
/// an edit must not wait behind other sessions' animation frames. Normal and heavy jobs
/// run in the order they arrived, and each session has at most one frame rendering, so
/// every session keeps getting frames when the cores are saturated. Heavy jobs — frames
/// of sessions whose frames are expensive, HTTP renders — run on at most `threads − 1`
/// workers at once, so however many clients send expensive work, one worker stays free
/// for everyone else's cheap frames and compiles (with one worker there is nothing to
/// reserve).
///
/// Arrival order between the two, not "normal first": with normal first, a saturated
/// server (more sessions than the cores can serve at their frame rates, where the normal
/// queue is never empty) never ran a heavy job, and a session whose frame once took longer
/// than `heavyFrameSeconds` — easily, on a loaded machine — got no frames at all (a soak
/// of 30 clients on a busy machine: one client at 0.1 frames/s beside a median of 19).
public final class WorkerPool: @unchecked Sendable {
    public enum Priority { case urgent, normal, heavy }

    private let condition = NSCondition()
    private var urgentJobs: [() -> Void] = []
    /// Jobs with their arrival numbers (`arrivals`), which decide between the two queues.
    private var normalJobs: [(arrival: Int, job: () -> Void)] = []
    private var normalHead = 0
    private var heavyJobs: [(arrival: Int, job: () -> Void)] = []
    private var arrivals = 0
    private var runningHeavy = 0
    private let heavyLimit: Int
    private var stopping = false
    private var threads: [Thread] = []
    private var running = 0
    /// Workers waiting for a job.
    private var idle = 0

    /// `niceness`: the workers' nice value (0 keeps the caller's priority); they compile
    /// and render, so they give way to the threads that answer (`ThreadNiceness`).
    public init(threads count: Int, niceness: Int32 = 0) {
        let count = count > 0 ? count : max(1, ProcessInfo.processInfo.activeProcessorCount)
        heavyLimit = max(1, count - 1)
        for index in 0..<count {
            let thread = Thread { [self] in
                // Named from inside: only the running thread's name reaches the system
                // (`top -H`, perf, /proc/…/task/…/comm).
                Thread.current.name = "kiln-worker-\(index)"
                ThreadNiceness.lowerCurrentThread(to: niceness)
                workLoop()
            }
            threads.append(thread)
            thread.start()
        }
        running = count
    }

    public func submit(_ priority: Priority, _ job: @escaping () -> Void) {
        condition.lock()
        if !stopping {
            arrivals += 1
            switch priority {
            case .urgent: urgentJobs.append(job)
            case .normal: normalJobs.append((arrivals, job))
            case .heavy: heavyJobs.append((arrivals, job))
            }
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Queues `job` as urgent only if a worker is waiting with nothing else queued to take
    /// it, so it starts at once; returns false, queueing nothing, otherwise. For work that
    /// is only worth doing now, or else by the caller itself.
    public func submitIfIdle(_ job: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let queued = urgentJobs.count + (normalJobs.count - normalHead) + heavyJobs.count
        guard !stopping, idle > queued else { return false }
        arrivals += 1
        urgentJobs.append(job)
        condition.broadcast()
        return true
    }

    /// Finishes queued jobs' current runs, drops the rest, and joins the threads.
    public func shutdown() {
        condition.lock()
        stopping = true
        urgentJobs.removeAll()
        normalJobs.removeAll()
        heavyJobs.removeAll()
        normalHead = 0
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func workLoop() {
        while true {
            condition.lock()
            while !stopping && urgentJobs.isEmpty && normalHead == normalJobs.count
                    && (heavyJobs.isEmpty || runningHeavy >= heavyLimit) {
                idle += 1
                condition.wait()
                idle -= 1
            }
            if stopping {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let job: () -> Void
            let heavyAllowed = !heavyJobs.isEmpty && runningHeavy < heavyLimit
            let normalWaiting = normalHead < normalJobs.count
            var heavy = false
            if !urgentJobs.isEmpty {
                job = urgentJobs.removeFirst()
            } else if normalWaiting && (!heavyAllowed || normalJobs[normalHead].arrival < heavyJobs[0].arrival) {
                job = normalJobs[normalHead].job
                normalHead += 1
                if normalHead > 64, normalHead * 2 > normalJobs.count {
                    normalJobs.removeFirst(normalHead)
                    normalHead = 0
                }
            } else {
                job = heavyJobs.removeFirst().job
                heavy = true
                runningHeavy += 1
            }
            condition.unlock()
            job()
            if heavy {
                condition.lock()
                runningHeavy -= 1
                condition.broadcast()
                condition.unlock()
            }
        }
    }
}
