/// A map from 32-bit words to small non-negative integers: a constant's bits to its index
/// in the constant pool, or to the register that holds it (`LoweringState.constantIndex`,
/// `constantRegisters`, `argumentRegisters`; `LibraryAssembler.constantIndex`).
///
/// Open addressing over power-of-two arrays, probed linearly from a multiplicative hash of
/// the word; entries are never removed. Lowering asks at every literal and every implicit
/// 0 or 1, and as `[UInt32: Int]` dictionaries — SipHash for every lookup, a rehash at
/// every doubling from empty — these tables were ~2.5 % of a median compile's
/// instructions (docs/benchmarks.md, "thirty-eighth session"). A value type, like the
/// dictionaries it replaces: a copy of the lowering state is a snapshot.
struct WordIndex {
    /// Per slot: its word (meaningful where `values` is not 0).
    private var words: [UInt32] = []
    /// Per slot: the value + 1, 0 for an empty slot.
    private var values: [Int32] = []
    /// Words held.
    private(set) var count = 0

    /// Slots of the first table: room for 32 words, a median shader's constants.
    private static let initialSize = 64

    /// The value of `word`; setting adds or replaces it (nil cannot be set: nothing is removed).
    subscript(word: UInt32) -> Int? {
        get {
            guard !values.isEmpty else { return nil }
            let slot = self.slot(of: word)
            return values[slot] == 0 ? nil : Int(values[slot]) - 1
        }
        set {
            guard let newValue else { preconditionFailure("WordIndex never removes a word") }
            if 2 * (count + 1) > values.count { grow() }
            let slot = self.slot(of: word)
            if values[slot] == 0 {
                words[slot] = word
                count += 1
            }
            values[slot] = Int32(newValue + 1)
        }
    }

    /// The slot holding `word`, or the empty slot where it would go.
    private func slot(of word: UInt32) -> Int {
        let mask = values.count - 1
        var slot = Self.hash(word) & mask
        while values[slot] != 0 && words[slot] != word { slot = (slot + 1) & mask }
        return slot
    }

    /// Fibonacci hashing: the high bits of word × 2⁶⁴/φ (float bit patterns differ mostly in
    /// their high bits; the product spreads them over the low ones the mask keeps).
    @inline(__always)
    private static func hash(_ word: UInt32) -> Int {
        Int(truncatingIfNeeded: (UInt64(word) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    private mutating func grow() {
        let oldWords = words, oldValues = values
        let size = max(Self.initialSize, 2 * values.count)
        words = [UInt32](repeating: 0, count: size)
        values = [Int32](repeating: 0, count: size)
        for index in oldValues.indices where oldValues[index] != 0 {
            let slot = self.slot(of: oldWords[index])
            words[slot] = oldWords[index]
            values[slot] = oldValues[index]
        }
    }
}
