/// Numbers source locations in order of first use: `FunctionLowerer.locationNumber`'s table
/// from `file << 32 | offset` to the location's index in `LoweringState.locations`.
///
/// Open addressing over a power-of-two array of `index + 1` (0: empty), probed linearly
/// from a multiplicative hash of the key. Every lowered expression asks, most locations are
/// new when asked, and a `[Int: Int]` spent ~300 instructions hashing and inserting each
/// (1 % of a median compile: docs/benchmarks.md, "thirty-sixth session"); a direct-mapped
/// cache in front of it only helped the repeats.
struct LocationNumbering {
    /// Per number, its key.
    private var keys: [Int] = []
    /// Empty until the first location is numbered: a lowering state is also made empty, to
    /// be swapped with (`LoweringState.moved(from:)`), three times a compile.
    private var slots: [Int32] = []
    private let initialSize: Int

    /// Room for `expected` locations before the first doubling.
    init(expected: Int = 256) {
        var size = 16
        while size < 2 * expected { size *= 2 }
        initialSize = size
    }

    /// The number of `key`, and whether it was new (then it is the next number in order).
    mutating func number(of key: Int) -> (number: Int, isNew: Bool) {
        if slots.isEmpty {
            slots = Array(repeating: 0, count: initialSize)
            keys.reserveCapacity(initialSize / 2)
        }
        let mask = slots.count - 1
        var slot = Self.hash(key) & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot]) - 1
            if keys[number] == key { return (number, false) }
            slot = (slot + 1) & mask
        }
        let number = keys.count
        keys.append(key)
        slots[slot] = Int32(truncatingIfNeeded: number + 1)
        if 2 * keys.count > slots.count { grow() }
        return (number, true)
    }

    /// Fibonacci hashing: the high bits of key × 2⁶⁴/φ, which spread neighbouring offsets.
    @inline(__always)
    private static func hash(_ key: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(key)) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: 2 * slots.count)
        let mask = slots.count - 1
        for (number, key) in keys.enumerated() {
            var slot = Self.hash(key) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: number + 1)
        }
    }
}
