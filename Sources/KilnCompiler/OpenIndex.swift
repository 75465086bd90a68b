/// A key of an `OpenIndex`: equatable, with a cheap hash, a filler for empty slots and the
/// size of the first table.
protocol OpenIndexKey: Equatable {
    /// A well-mixed hash (the table keeps its low bits).
    static func hash(_ key: Self) -> Int
    /// What empty slots hold (never compared: a slot's value says whether it is used).
    static var filler: Self { get }
    /// Slots of an index's first table (a power of two; half of them usable before it grows).
    static var initialSlots: Int { get }
}

/// A map from small keys to small non-negative integers, for the tables lowering consults
/// at nearly every operation: constants by their bits (`WordIndex`) and hoisted pure
/// operations by opcode and operands (`PureIndex`).
///
/// Open addressing over power-of-two arrays, probed linearly from the key's hash; entries
/// are never removed. As dictionaries these tables ran SipHash for every lookup and
/// rehashed at every doubling from empty: ~2.5 % of a median compile's instructions for
/// the constants (docs/benchmarks.md, "thirty-eighth session"), ~1 % for the pure
/// operations ("forty-fifth session"). A value type, like the dictionaries it replaces: a
/// copy of the lowering state is a snapshot.
struct OpenIndex<Key: OpenIndexKey> {
    /// Per slot: its key (meaningful where `values` is not 0).
    private var keys: [Key] = []
    /// Per slot: the value + 1, 0 for an empty slot.
    private var values: [Int32] = []
    /// Keys held.
    private(set) var count = 0

    /// The value of `key`; setting adds or replaces it (nil cannot be set: nothing is removed).
    subscript(key: Key) -> Int? {
        get {
            guard !values.isEmpty else { return nil }
            let slot = self.slot(of: key)
            return values[slot] == 0 ? nil : Int(values[slot]) - 1
        }
        set {
            guard let newValue else { preconditionFailure("an OpenIndex never removes a key") }
            if 2 * (count + 1) > values.count { grow() }
            let slot = self.slot(of: key)
            if values[slot] == 0 {
                keys[slot] = key
                count += 1
            }
            values[slot] = Int32(newValue + 1)
        }
    }

    /// The slot holding `key`, or the empty slot where it would go.
    private func slot(of key: Key) -> Int {
        let mask = values.count - 1
        var slot = Key.hash(key) & mask
        while values[slot] != 0 && keys[slot] != key { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        let size = max(Key.initialSlots, 2 * values.count)
        keys = [Key](repeating: Key.filler, count: size)
        values = [Int32](repeating: 0, count: size)
        for index in oldValues.indices where oldValues[index] != 0 {
            let slot = self.slot(of: oldKeys[index])
            keys[slot] = oldKeys[index]
            values[slot] = oldValues[index]
        }
    }
}
