import KilnVM
import Testing
@testable import KilnRender

/// A worker adds its batches to the frame's account sixteen at a time, but a heavy batch
/// at once: the over-budget check must not trail a frame of slow batches by seconds.
@Suite struct FrameBudgetTallyTests {
    @Test func lightBatchesAreAddedSixteenAtATime() {
        var tally = FrameBudget.Tally()
        for _ in 1..<FrameBudget.Tally.batchesPerFlush {
            tally.add(work: 40, instructions: 40, uniformInstructions: 0)
            #expect(!tally.isDue)
        }
        tally.add(work: 40, instructions: 40, uniformInstructions: 0)
        #expect(tally.isDue)
    }

    @Test func aHeavyBatchIsAddedAtOnce() {
        var tally = FrameBudget.Tally()
        // A loop of 125 000 iterations of a few instructions, per lane (the e2e test's shader).
        tally.add(work: 400_000, instructions: 400_000, uniformInstructions: 0)
        #expect(tally.isDue && tally.batches == 1)
        // The threshold, reached over several middling batches.
        var middling = FrameBudget.Tally()
        let perLane = FrameBudget.Tally.workPerFlush / laneCount / 4
        for _ in 0..<3 { middling.add(work: perLane, instructions: perLane, uniformInstructions: 0) }
        #expect(!middling.isDue)
        middling.add(work: perLane, instructions: perLane, uniformInstructions: 0)
        #expect(middling.isDue)
    }

    /// The frame stops on the batch that crosses the limit, not sixteen batches later.
    @Test func aFrameOfHeavyBatchesIsRefusedOnTheBatchThatCrossesTheLimit() throws {
        let budget = FrameBudget(limits: { var l = RenderLimits.default; l.maxFrameWork = 1_000_000; return l }(), cancellation: nil)
        var tally = FrameBudget.Tally()
        var charged = 0
        do {
            for _ in 0..<16 {
                tally.add(work: 640_000 / laneCount, instructions: 640_000 / laneCount, uniformInstructions: 0)   // 640 000 a batch
                charged += 1
                if tally.isDue { try budget.flush(&tally) }
            }
        } catch {
            #expect(String(describing: error).contains("maxFrameWork"))
        }
        #expect(charged == 2)
    }
}
