/// Backward register liveness over a body's basic blocks: which registers some later
/// instruction may read. One solver for the passes that ask it with different ideas of a
/// "read" (`PreparedFunction.markBroadcasts` counts lane-wide reads only, `PairFusion`
/// every operand).
public struct BlockLiveness {
    /// Registers live on entry to each block.
    public private(set) var liveIn: [RegisterSet]
    let blocks: BasicBlocks
    let exitLive: RegisterSet
    let exitReentersBody: Bool
    let registerCount: Int

    /// Solves to a fixpoint. `transfer(index, &live)` turns what is live after instruction
    /// `index` into what is live before it, as (live − what it writes) ∪ what it reads, for
    /// some idea of both (the solver relies on that form). `exitLive` is live after the body ends; with
    /// `exitReentersBody` so is whatever the body's entry needs (the next batch runs the body
    /// again on the same registers). Bounded like `UniformityAnalysis` (`maxStateWords`,
    /// `maxWork`): nil past the bounds, and the caller falls back to its safe answer.
    public init?(blocks: BasicBlocks, code: [Instruction], registerCount: Int, exitLive: RegisterSet,
                 exitReentersBody: Bool, transfer: (Int, inout RegisterSet) -> Void) {
        let words = (registerCount + 63) / 64
        let blockCount = blocks.starts.count
        guard blockCount > 0, 3 * blockCount * words <= UniformityAnalysis.maxStateWords else { return nil }
        self.blocks = blocks
        self.exitLive = exitLive
        self.exitReentersBody = exitReentersBody
        self.registerCount = registerCount
        liveIn = Array(repeating: RegisterSet(count: registerCount, full: false), count: blockCount)
        // Each block's effect as two sets, from two walks over its instructions: what it
        // makes live whatever follows (`gen`: the transfer of nothing) and what it lets
        // through (`pass`: the transfer of everything). Any transfer of the form
        // (live − kill) ∪ reads — both users' — then gives live-in = gen ∪ (live-out ∩ pass),
        // so the fixed point iterates over blocks, not instructions (a loop's body was walked
        // once per round: three times for raymarch's nested loops).
        let visitCost = blocks.visitCosts(of: code, words: words)
        var spent = 0
        var gen: [RegisterSet] = [], pass: [RegisterSet] = []
        gen.reserveCapacity(blockCount)
        pass.reserveCapacity(blockCount)
        for block in 0..<blockCount {
            spent += 2 * visitCost[block]
            guard spent <= UniformityAnalysis.maxWork else { return nil }
            var made = RegisterSet(count: registerCount, full: false)
            var through = RegisterSet(count: registerCount, full: true)
            for index in blocks.range(of: block).reversed() {
                transfer(index, &made)
                transfer(index, &through)
            }
            gen.append(made)
            pass.append(through)
        }
        var changed = true
        while changed {
            changed = false
            for block in (0..<blockCount).reversed() {
                spent += words * (blocks.successors[block].count + 3)
                guard spent <= UniformityAnalysis.maxWork else { return nil }
                var live = liveOut(block)
                _ = live.intersect(pass[block])
                _ = live.formUnion(gen[block])
                if live != liveIn[block] { liveIn[block] = live; changed = true }
            }
        }
    }

    /// Registers live when `block` ends.
    public func liveOut(_ block: Int) -> RegisterSet {
        var live = RegisterSet(count: registerCount, full: false)
        if blocks.exits[block] {
            _ = live.formUnion(exitLive)
            if exitReentersBody { _ = live.formUnion(liveIn[0]) }
        }
        for successor in blocks.successors[block] { _ = live.formUnion(liveIn[successor]) }
        return live
    }

    /// Calls `read` with every register `i` reads, in every lane or lane 0 (a `str` reads
    /// its whole array: it writes one element in some lanes and keeps the rest).
    @inlinable public static func forEachRead(of i: Instruction, _ read: (Int) -> Void) {
        let a = Int(i.a), b = Int(i.b), c = Int(i.c), d = Int(i.d)
        let count = Int(min(i.imm, UInt32(UInt16.max) + 1))
        switch i.opcode.shape {
        case .none, .jump, .destConstant, .destArgument, .textureSize: break
        case .conditionalJump: read(a)
        case .unary: read(b)
        case .binary: read(b); read(c)
        case .ternary: read(b); read(c); read(d)
        case .loadRegisterArray: for k in 0..<count { read(b + k) }; read(c)
        case .storeRegisterArray: for k in 0..<count { read(a + k) }; read(b); read(c); read(d)
        case .loadConstantArray, .loadBuffer: read(b)
        case .texture: read(b); read(c)
        case .textureWrite: for k in 0..<4 { read(a + k) }; read(b); read(c); read(d)
        }
    }

    /// What the renderer reads after a body runs: the outputs and the discard mask.
    public static func rendererReads(of function: Function, registerCount: Int) -> RegisterSet {
        var live = RegisterSet(count: registerCount, full: false)
        for slot in function.outputs {
            for k in 0..<max(1, slot.type.componentCount) { live[Int(slot.register) + k] = true }
        }
        if let discard = function.discardRegister { live[Int(discard)] = true }
        return live
    }
}
