import KilnBytecode

/// A small cache of the results of uniform transcendentals, per executor.
///
/// Shader art recomputes the same uniform values in every batch: an SDF scene's sixteen
/// shapes each take five `sin`/`cos` of the clock and the loop counter, the same 80 values
/// for all 4,096 batches of a 512² frame, and a sphere tracer recomputes its sphere centres
/// at every step. Loop-invariant code motion cannot lift them out (they vary with the loop
/// counter), but a cache keyed by the operand bits can: each scalar transcendental
/// (`PreparedInstruction.isMemoized`) owns `entriesPerSlot` entries, direct-mapped by a hash
/// of its operands, that live as long as the executor — across steps, batches and frames
/// of the same draw. The functions are pure, so a hit returns exactly the bits the
/// computation would (`UniformExecutionTests` compares whole pictures with and without
/// uniform execution). A hit costs a hash and a compare; a one-lane sine 20–30 ns.
enum UniformMemo {
    /// Entries per memoized instruction (a power of two): enough for the distinct values a
    /// loop of a dozen iterations feeds one instruction.
    static let entriesPerSlot = 64

    /// One remembered result: the operand bits (`b` in the low word, `c` in the high one)
    /// and the result, valid when `filled` is 1.
    struct Entry {
        var key: UInt64
        var value: UInt32
        var filled: UInt32
    }

    /// Opcodes whose one-lane cost pays for a lookup: every function call (the work weight
    /// of the binary32 `sin`/`cos`/`exp`/`exp2`, 8, is their lane-wide *vectorized* throughput per lane;
    /// one lane through the same routine is its range reduction, polynomial and selects,
    /// 20–30 cheap instructions), not the arithmetic, whose weights are 1–4. With the old
    /// bound (≥ 20) the binary32 functions fell out of the memo when they arrived, and a
    /// sphere tracer recomputed its uniform sines at every step: raymarch spent 12 % of
    /// its time in one-lane `fsin`/`fcos`.
    static func isWorthIt(_ opcode: Opcode) -> Bool {
        switch opcode.shape {
        case .unary, .binary: return opcode.workCost >= 8
        default: return false
        }
    }

    /// The entry for `key` in slot `slot`'s table.
    @inline(__always) static func index(slot: UInt32, key: UInt64) -> Int {
        let hash = (key &* 0x9E37_79B9_7F4A_7C15) >> 58          // top 6 bits: 64 entries
        return Int(slot) &* entriesPerSlot &+ Int(hash)
    }
}
