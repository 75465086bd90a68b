import Foundation
import KilnVM
import Synchronization

/// Lets whoever asked for a render stop it between batches — the client went away, or a
/// newer request replaced it. Thread-safe; cancelling is permanent.
public final class RenderCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// One frame's account of work: every batch charges its `Executor.work` times the lanes
/// against `RenderLimits.maxFrameWork`, and looks at the cancellation. Draws make one per
/// `render` call and share it between their workers.
final class FrameBudget: @unchecked Sendable {
    private let limit: Int
    private let cancellation: RenderCancellation?
    private let used = Atomic<Int>(0)
    private let executed = Atomic<Int>(0)
    private let executedUniform = Atomic<Int>(0)

    /// Work one core does in a second on the development machine (a 64-lane `fadd` took
    /// about 6.5 ns; work counts lanes, so the batch size does not change it;
    /// `Opcode.workCost` scales the rest to it). Only used to say roughly how long a
    /// refused frame would have taken.
    static let workPerSecond = 10_000_000_000

    init(limits: RenderLimits, cancellation: RenderCancellation?) {
        limit = max(0, limits.maxFrameWork)
        self.cancellation = cancellation
    }

    /// What the frame has done so far: lane-instructions, weighted and not.
    var counts: FrameCounts {
        FrameCounts(work: used.load(ordering: .relaxed), laneInstructions: executed.load(ordering: .relaxed),
                    uniformLaneInstructions: executedUniform.load(ordering: .relaxed))
    }

    /// Charges the batch `shader` just ran; throws when the frame is over budget or cancelled.
    func charge(_ shader: LaneShader) throws(RenderError) {
        var tally = Tally()
        tally.add(shader)
        try flush(&tally)
    }

    /// A worker's running account: batches charged to it are added to the frame's every
    /// `Tally.batchesPerFlush` batches, or sooner once they hold `Tally.workPerFlush`.
    /// Three atomic additions per batch on counters every worker writes were a twentieth of
    /// a light effect's frame (the cache line moving between cores), so light batches are
    /// added sixteen at a time. A heavy batch (a loop of 10⁵ iterations is 10⁷ work) is added
    /// at once: counted in batches alone, a frame over `maxFrameWork` ran up to sixteen such
    /// batches per worker — seconds — before it was refused. Cancellation is still looked at
    /// after every batch.
    struct Tally {
        static let batchesPerFlush = 16
        /// About 26 µs of one core (`workPerSecond`): an atomic add per that much work is noise.
        static let workPerFlush = 1 << 18
        var work = 0, instructions = 0, uniformInstructions = 0, batches = 0

        mutating func add(_ shader: LaneShader) {
            add(work: shader.work, instructions: shader.instructions, uniformInstructions: shader.scalarInstructions)
        }

        /// Adds one batch that ran these (per-lane) counts.
        mutating func add(work batchWork: Int, instructions batchInstructions: Int, uniformInstructions batchUniform: Int) {
            work &+= batchWork &* laneCount
            instructions &+= batchInstructions &* laneCount
            uniformInstructions &+= batchUniform &* laneCount
            batches &+= 1
        }

        /// Whether the tally should be added to the frame's account now.
        var isDue: Bool { batches >= Self.batchesPerFlush || work >= Self.workPerFlush }
    }

    /// Adds the batch `shader` just ran to `tally`, and the tally to the frame when it is due;
    /// throws when the frame is cancelled or over budget. `flush` the tally at the end.
    func charge(_ shader: LaneShader, to tally: inout Tally) throws(RenderError) {
        tally.add(shader)
        if tally.isDue { try flush(&tally) }
        if let cancellation, cancellation.isCancelled { throw RenderError.cancelled }
    }

    /// Adds `tally` to the frame's counts and empties it; throws when the frame is cancelled
    /// or over budget.
    func flush(_ tally: inout Tally) throws(RenderError) {
        executed.add(tally.instructions, ordering: .relaxed)
        executedUniform.add(tally.uniformInstructions, ordering: .relaxed)
        let total = used.add(tally.work, ordering: .relaxed).newValue
        tally = Tally()
        if let cancellation, cancellation.isCancelled { throw RenderError.cancelled }
        if total > limit {
            throw RenderError("the frame needs more work than allowed (limit maxFrameWork = \(limit) lane-instructions, "
                              + "about \(String(format: "%.1f", Double(limit) / Double(Self.workPerSecond))) s of one core); shorten the loops or preview a smaller size")
        }
    }
}

/// What a frame executed, over every batch and worker (helper lanes and masked-off lanes
/// included: every instruction runs over all `laneCount` lanes of its batch).
public struct FrameCounts: Sendable, Equatable {
    /// Lane-instructions weighted by `Opcode.workCost` (what `maxFrameWork` limits).
    public var work: Int
    /// Lane-instructions.
    public var laneInstructions: Int
    /// Of those, the ones in uniform instructions the VM ran once per batch and broadcast
    /// (`UniformityAnalysis`), counted over all lanes like the rest.
    public var uniformLaneInstructions: Int

    /// `uniformLaneInstructions` as a share of `laneInstructions` (0 for an empty frame).
    public var uniformShare: Double {
        laneInstructions == 0 ? 0 : Double(uniformLaneInstructions) / Double(laneInstructions)
    }

    public init(work: Int = 0, laneInstructions: Int = 0, uniformLaneInstructions: Int = 0) {
        self.work = work
        self.laneInstructions = laneInstructions
        self.uniformLaneInstructions = uniformLaneInstructions
    }
}
