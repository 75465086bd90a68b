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

    /// Opcodes whose one-lane cost (≥ 20 cheap instructions) pays for a lookup.
    static func isWorthIt(_ opcode: Opcode) -> Bool {
        switch opcode.shape {
        case .unary, .binary: return opcode.workCost >= 20
        default: return false
        }
    }

    /// The entry for `key` in slot `slot`'s table.
    @inline(__always) static func index(slot: UInt32, key: UInt64) -> Int {
        let hash = (key &* 0x9E37_79B9_7F4A_7C15) >> 58          // top 6 bits: 64 entries
        return Int(slot) &* entriesPerSlot &+ Int(hash)
    }
}
