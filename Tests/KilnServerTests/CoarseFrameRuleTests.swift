import Testing
@testable import KilnServer

/// When an edit's first frame is coarse, and how coarse (`KilnService.coarseStride`); the
/// frames themselves are checked pixel for pixel in KilnRenderTests and end to end.
@Suite struct CoarseFrameRuleTests {
    @Test func theStrideFollowsTheLastFrame() {
        let target = 0.002
        #expect(KilnService.coarseStride(lastFrameSeconds: 0, target: target) == 4)        // nothing to go by
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0012, target: target) == 1)   // wave: full frame
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.004, target: target) == 1)    // at twice the target
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0075, target: target) == 2)   // layer9: 1.9 ms
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.016, target: target) == 4)    // sdf2d: 1 ms
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.105, target: target) == 8)    // raymarch: 1.6 ms
        #expect(KilnService.coarseStride(lastFrameSeconds: 10, target: target) == 16)      // capped
        #expect(KilnService.coarseStride(lastFrameSeconds: 10, target: 0) == 1)            // turned off
    }

    /// A full frame's cost to first pixels is its render and its delivery: a 512² frame
    /// that renders in 1.9 ms is 1 MiB more to send and read than a coarse one.
    @Test func theStrideCountsTheFramesBytes() {
        let target = 0.001
        let megabyte = KilnService.deliverySeconds(bytes: 512 * 512 * 4)
        #expect(abs(megabyte - 0.001048576) < 1e-9)
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0019, target: target) == 1)                             // render alone
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0019, deliverySeconds: megabyte, target: target) == 2)  // color, melt
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0019, deliverySeconds: megabyte, coarsePixelCost: 3,
                                         target: target) == 4)                                                       // dearer coarse pixels
        // 256²: a quarter of the bytes, and a full frame at once.
        let quarter = KilnService.deliverySeconds(bytes: 256 * 256 * 4)
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0005, deliverySeconds: quarter, target: target) == 1)
        // A slow PNG encoding counts like a slow render.
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0005, deliverySeconds: 0.008, target: target) == 4)
        #expect(KilnService.editPreemptsFrames(lastFrameSeconds: 0.0019, deliverySeconds: megabyte, heavyFrameSeconds: 0.05,
                                               coarseFrameSeconds: target))
        #expect(!KilnService.editPreemptsFrames(lastFrameSeconds: 0.0019, heavyFrameSeconds: 0.05, coarseFrameSeconds: target))
    }

    /// Coarse pixels cost more than full ones (a batch of every k-th pixel diverges more);
    /// the next edit's stride allows for what the last coarse frame cost, and only makes a
    /// coarse frame coarser.
    @Test func theStrideAllowsForWhatCoarsePixelsCost() {
        let target = 0.001
        // raymarch, 2.45-GHz EPYC: 55-ms full frames; stride 8 should take 0.86 ms, took 2.4.
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.055, target: target) == 8)
        let cost = KilnService.coarsePixelCost(coarseSeconds: 0.0024, stride: 8, fullSeconds: 0.055)
        #expect(abs(cost - 2.793) < 0.001)
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.055, coarsePixelCost: cost, target: target) == 16)
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.055, coarsePixelCost: 1, target: target) == 8)
        // A quick shader keeps its full first frame whatever the last one taught.
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.0015, coarsePixelCost: 16, target: target) == 1)
        #expect(KilnService.coarseStride(lastFrameSeconds: 0, coarsePixelCost: 16, target: target) == 4)
        #expect(KilnService.coarsePixelCost(coarseSeconds: 0.0001, stride: 8, fullSeconds: 0.055) == 1)  // never below 1
        #expect(KilnService.coarsePixelCost(coarseSeconds: 1, stride: 16, fullSeconds: 0.01) == 16)      // capped
        #expect(KilnService.coarsePixelCost(coarseSeconds: 0.002, stride: 4, fullSeconds: 0) == 1)       // nothing to go by
    }

    /// Previews of 512 pixels and more across may go to stride 32 (two batches of far-apart
    /// pixels at 512², not eight); smaller ones stop at 16 so a coarse frame keeps 16 samples
    /// across.
    @Test func largePreviewsMayBeCoarser() {
        let target = 0.001
        #expect(KilnService.maxCoarseStride(width: 512, height: 512) == 32)
        #expect(KilnService.maxCoarseStride(width: 1024, height: 768) == 32)
        #expect(KilnService.maxCoarseStride(width: 512, height: 511) == 16)
        #expect(KilnService.maxCoarseStride(width: 96, height: 64) == 16)
        // raymarch at 512²: 41-ms full frames, coarse pixels 11 times dearer (1.8 ms at stride 16).
        let cost = KilnService.coarsePixelCost(coarseSeconds: 0.0018, stride: 16, fullSeconds: 0.041)
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.041, coarsePixelCost: cost, target: target, maxStride: 32) == 32)
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.041, coarsePixelCost: cost, target: target) == 16)
        // fbm at 512² (13 ms, coarse pixels barely dearer) does not need it.
        #expect(KilnService.coarseStride(lastFrameSeconds: 0.013, coarsePixelCost: 1.2, target: target, maxStride: 32) == 4)
    }

    /// An edit's compile cancels the frame in progress (and holds new ones back) whenever
    /// its first frame will be coarse, not only for heavy sessions: fbm's and loop's 30-ms
    /// frames are not heavy, and first pixels waited 10–14 ms behind them.
    @Test func anEditPreemptsFramesWhenItsFirstFrameWillBeCoarse() {
        func preempts(_ seconds: Double, coarse: Double = 0.001) -> Bool {
            KilnService.editPreemptsFrames(lastFrameSeconds: seconds, heavyFrameSeconds: 0.05, coarseFrameSeconds: coarse)
        }
        #expect(!preempts(0.0015))          // a full frame at once is as quick as a coarse one
        #expect(preempts(0.03))             // fbm, loop: coarse first, not heavy
        #expect(preempts(0.07))             // raymarch: heavy
        #expect(!preempts(0.03, coarse: 0)) // coarse frames off: only heavy sessions
        #expect(preempts(0.07, coarse: 0))
    }

    @Test func theHeaderCarriesTheStride() {
        let header = FrameHeader(format: .rgba8, sequence: 7, time: 1.5, width: 64, height: 48, renderMicroseconds: 900,
                                 coarseStride: 8)
        #expect(header.bytes[FrameHeader.Field.flags.offset] == 8)
        #expect(FrameHeader(bytes: header.bytes)?.coarseStride == 8)
        let full = FrameHeader(format: .rgba8, sequence: 8, time: 1.5, width: 512, height: 384, renderMicroseconds: 9000)
        #expect(full.bytes[FrameHeader.Field.flags.offset] == 0)
        #expect(FrameHeader(bytes: full.bytes)?.provisional == false)
    }

    @Test func theHeaderMarksAProvisionalFrameInBitEight() {
        let header = FrameHeader(format: .rgba8, sequence: 3, time: 0.5, width: 16, height: 16, renderMicroseconds: 700,
                                 coarseStride: 32, provisional: true)
        #expect(header.bytes[FrameHeader.Field.flags.offset] == 32)
        #expect(header.bytes[FrameHeader.Field.flags.offset + 1] == 1)
        let read = FrameHeader(bytes: header.bytes)
        #expect(read == header)
        #expect(read?.coarseStride == 32 && read?.provisional == true)
    }
}
