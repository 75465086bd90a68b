/// Value numbering's table of available results: exact four-word keys, open addressing with
/// linear probing and a multiplicative hash, emptied in O(1) by moving to a new generation.
///
/// Why not a `Dictionary`: value numbering looks every instruction of the body up, and
/// `Hasher` (SipHash: a round per word and a four-round finalization) over each key was 4 %
/// of an unrolled shader's compile. The keys are numbers the compiler made; a shader's
/// author decides only how many there are, and the table keeps probes short by staying at
/// most three quarters full. Emptying it at every label used to clear the whole reserved
/// dictionary; here it is one increment. Its slots are `PassTable`s, made and freed with
/// the pass.
struct ValueTable: ~Copyable {
    /// An instruction's opcode, operands and their versions, packed without loss
    /// (`ValueNumbering.Key.words`).
    typealias Key = (UInt64, UInt64, UInt64, UInt64)

    /// Per slot: the generation whose entry it holds (0 = none yet), four key words, and the
    /// result's register and version. Flat tables of plain integers, so making a table is
    /// filling memory with zeros (an array of a slot struct was initialised slot by slot —
    /// 60 instructions each, more than the lookups it served on a small function).
    private var generations: PassTable<UInt32>
    private var keys: PassTable<UInt64>
    private var results: PassTable<Int>
    private var generation: UInt32 = 1
    private var count = 0

    /// A table for about `expected` entries before it first grows.
    init(expected: Int) {
        var size = 16
        while size * 3 < expected * 4 { size *= 2 }
        generations = PassTable(repeating: 0, count: size)
        keys = PassTable(repeating: 0, count: size * 4)
        results = PassTable(repeating: 0, count: size * 2)
    }

    /// A mix of the four words (each multiplied into the running value, then folded) whose
    /// low bits spread consecutive registers and versions over the slots.
    private static func hash(_ key: Key) -> Int {
        var h = key.0 &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ h >> 29 ^ key.1) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ h >> 31 ^ key.2) &* 0x94D0_49BB_1331_11EB
        h = (h ^ h >> 29 ^ key.3) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h ^ h >> 32)
    }

    private func holds(_ index: Int, _ key: Key) -> Bool {
        keys[4 * index] == key.0 && keys[4 * index + 1] == key.1 && keys[4 * index + 2] == key.2
            && keys[4 * index + 3] == key.3
    }

    /// The slot holding `key`, or the empty slot where it would go.
    private func slot(of key: Key) -> Int {
        let mask = generations.count - 1
        var index = Self.hash(key) & mask
        while generations[index] == generation && !holds(index, key) {
            index = (index + 1) & mask
        }
        return index
    }

    /// The result remembered for `key`, if any.
    func lookup(_ key: Key) -> (register: VirtualRegister, version: Int)? {
        let index = slot(of: key)
        guard generations[index] == generation else { return nil }
        return (results[2 * index], results[2 * index + 1])
    }

    /// Remembers `register` at `version` as the result for `key` (replacing an earlier one).
    mutating func insert(_ key: Key, register: VirtualRegister, version: Int) {
        if (count + 1) * 4 > generations.count * 3 { grow() }
        let index = slot(of: key)
        if generations[index] != generation {
            count += 1
            generations[index] = generation
            (keys[4 * index], keys[4 * index + 1], keys[4 * index + 2], keys[4 * index + 3]) = key
        }
        (results[2 * index], results[2 * index + 1]) = (register, version)
    }

    /// Forgets every entry.
    mutating func removeAll() {
        generation += 1
        count = 0
    }

    private mutating func grow() {
        var old = ValueTable(expected: generations.count * 3 / 2)
        swap(&self, &old)
        for index in old.generations.indices where old.generations[index] == old.generation {
            insert((old.keys[4 * index], old.keys[4 * index + 1], old.keys[4 * index + 2], old.keys[4 * index + 3]),
                   register: old.results[2 * index], version: old.results[2 * index + 1])
        }
    }
}
