import Dispatch
import Synchronization

/// Splits a framebuffer into bands of rows handed to worker threads: each worker takes the
/// next band from a shared counter until none are left, so a band whose loops run long
/// does not hold the others up. The split never changes what a pixel computes (batches
/// always start at x = 0 of a row), so output bytes are the same for any thread count or
/// band height.
public enum TileScheduler {
    /// Rows per band unless the caller says otherwise.
    public static let defaultRowsPerBand = 8

    /// The nice value every tile thread takes before it renders a band (0, the default:
    /// threads keep theirs). `kiln serve` sets its `--worker-niceness` here so that the
    /// dispatch threads sharing a frame's tiles give way like its own workers do
    /// (`ThreadNiceness`). Process-wide because the threads are: Dispatch's pool serves
    /// every frame.
    public static let workerNiceness = Atomic<Int32>(0)

    /// Calls `body(worker, rows)` for every band of `height` rows on `threads` workers
    /// (worker indexes `0 ..< threads`).
    public static func run(height: Int, threads: Int, rowsPerBand: Int = defaultRowsPerBand,
                           _ body: (_ worker: Int, _ rows: Range<Int>) -> Void) {
        let band = max(1, rowsPerBand)
        let bands = (height + band - 1) / band
        let workers = max(1, min(threads, bands))
        let next = Atomic<Int>(0)
        let niceness = workerNiceness.load(ordering: .relaxed)
        func work(_ worker: Int) {
            if niceness > 0 { ThreadNiceness.lowerCurrentThread(to: niceness) }
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < bands else { return }
                let start = index * band
                body(worker, start ..< min(height, start + band))
            }
        }
        if workers == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in work(worker) }
        }
    }

    /// Worker threads to use by default: one per core.
    public static var defaultThreads: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

import Foundation
