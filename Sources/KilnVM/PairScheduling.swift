import KilnBytecode

/// Moves the consumer of a float result up next to its producer, inside a block, so that
/// `PairFusion` can fuse the two.
///
/// Why: the compiler lowers vector arithmetic component by component — `ro + rd * t` on a
/// `float3` is three `fmul`s, then three `fadd`s — so each dependent pair is three
/// instructions apart and none fuses. Moving each `fadd` up behind its `fmul` makes them
/// adjacent: `fmul, fadd, fmul, fadd, fmul, fadd`.
///
/// A move is legal when no instruction it jumps over writes a register the moved one reads,
/// or reads or writes the register it writes: then every instruction reads the same values
/// as before, and the bits are the same. Only the VM's copy of the body (`runBody`) is
/// reordered, and only inside blocks: block starts (jump targets), block ends (the jumps
/// budget errors name) and the instruction-for-instruction `body` the pixel debugger and the
/// heatmap step are untouched.
enum PairScheduling {
    /// How many instructions ahead of a producer its consumer is looked for. Vector code
    /// puts them at most a `float4`'s width apart; the bound keeps preparation linear.
    static let window = 8

    /// Reorders `body` and `code` (its library form, the same indexes) in place; returns the
    /// number of instructions moved.
    @discardableResult
    static func schedule(_ body: inout [PreparedInstruction], _ code: inout [Instruction], blocks: BasicBlocks) -> Int {
        var moved = 0
        for block in blocks.starts.indices {
            let range = blocks.range(of: block)
            var i = range.lowerBound
            while i < range.upperBound - 1 {
                if let j = consumer(of: i, in: range, body, code), j > i + 1, canHoist(j, over: (i + 1)..<j, code) {
                    // Rotate `i + 1 ... j` by one (at most `window` elements, not the tail).
                    let (instruction, prepared) = (code[j], body[j])
                    for k in stride(from: j, to: i + 1, by: -1) {
                        code[k] = code[k - 1]
                        body[k] = body[k - 1]
                    }
                    (code[i + 1], body[i + 1]) = (instruction, prepared)
                    moved += 1
                    i += 2
                } else {
                    i += 1
                }
            }
        }
        return moved
    }

    /// The first reader of `i`'s result within the window, if `i` and it would fuse (both
    /// lane-wide, a `FusedPair`, the result read once by it).
    static func consumer(of i: Int, in range: Range<Int>, _ body: [PreparedInstruction], _ code: [Instruction]) -> Int? {
        let first = code[i]
        guard first.opcode.shape == .binary, !body[i].isScalar else { return nil }
        let t = Int(first.a)
        for j in (i + 1)..<min(range.upperBound, i + 1 + window) {
            let second = code[j]
            var reads = 0
            BlockLiveness.forEachRead(of: second) { if $0 == t { reads += 1 } }
            if reads > 0 {
                guard reads == 1, !body[j].isScalar,
                      second.opcode.shape == .binary || second.opcode.shape == .unary,
                      FusedPair(first: first.opcode, second: second.opcode, tFirst: Int(second.b) == t) != nil
                else { return nil }
                return j
            }
            if UniformityAnalysis.destinations(second).contains(t) { return nil }
        }
        return nil
    }

    /// Whether `j` can run before every instruction of `between` with the same results.
    static func canHoist(_ j: Int, over between: Range<Int>, _ code: [Instruction]) -> Bool {
        var reads: [Int] = []
        BlockLiveness.forEachRead(of: code[j]) { reads.append($0) }
        let writes = UniformityAnalysis.destinations(code[j])
        for k in between {
            let destinations = UniformityAnalysis.destinations(code[k])
            if reads.contains(where: destinations.contains) || destinations.overlaps(writes) { return false }
            var readsWritten = false
            BlockLiveness.forEachRead(of: code[k]) { if writes.contains($0) { readsWritten = true } }
            if readsWritten { return false }
        }
        return true
    }
}
