import KilnBytecode

/// What is live after each instruction of a function's body, where the body's exit leads
/// both to the renderer's reads (outputs, discard mask) and to the next batch's run of the
/// body: the liveness by which `PairFusion` keeps a pair's intermediate in a register and
/// `NativeSegments` leaves a segment's dead results unstored.
enum BodyLiveness {
    /// Calls `visit(index, live)` for every instruction of `code`, from each block's end
    /// backwards, with the registers live after it. Returns false, visiting nothing, when the
    /// analysis would exceed its bounds (`BlockLiveness`).
    static func visitLiveAfter(code: [Instruction], blocks: BasicBlocks, function: Function,
                               _ visit: (_ index: Int, _ live: RegisterSet) -> Void) -> Bool {
        let registerCount = BasicBlocks.registerSpan(of: code)
        let exitLive = BlockLiveness.rendererReads(of: function, registerCount: registerCount)
        let operands = DecodedOperands(code)
        guard let liveness = BlockLiveness(blocks: blocks, code: code, registerCount: registerCount, exitLive: exitLive,
                                           exitReentersBody: true, transfer: { operands.transfer($0, &$1) })
        else { return false }
        for block in blocks.starts.indices {
            var live = liveness.liveOut(block)
            for index in blocks.range(of: block).reversed() {
                visit(index, live)
                operands.transfer(index, &live)
            }
        }
        return true
    }
}
