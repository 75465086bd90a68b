/// A map from pure instructions (`PureKey`) to the prologue register that computes each:
/// common-subexpression elimination of uniform work (`LoweringState.pureCache`).
///
/// Open addressing over power-of-two arrays, probed linearly from a multiplicative hash of
/// the key's fields; entries are never removed — the design of `WordIndex`. As a
/// `[PureKey: VirtualRegister]` dictionary every lookup ran SipHash over three words, and
/// the table was rehashed at every doubling from empty and copied whole after each
/// snapshot of the lowering state: ~1 % of a median compile's instructions
/// (docs/benchmarks.md, "forty-fifth session"). A value type: a copy of the lowering state
/// is a snapshot.
struct PureIndex {
    /// Per slot: its key (meaningful where `values` is not 0).
    private var keys: [PureKey] = []
    /// Per slot: the register + 1, 0 for an empty slot.
    private var values: [Int32] = []
    /// Keys held.
    private(set) var count = 0

    /// Slots of the first table: room for 16 keys, more than a median shader's hoisted
    /// operations.
    private static let initialSize = 32

    /// The register computing `key`; setting adds or replaces it (nil cannot be set).
    subscript(key: PureKey) -> VirtualRegister? {
        get {
            guard !values.isEmpty else { return nil }
            let slot = self.slot(of: key)
            return values[slot] == 0 ? nil : Int(values[slot]) - 1
        }
        set {
            guard let newValue else { preconditionFailure("PureIndex never removes a key") }
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
    private func slot(of key: PureKey) -> Int {
        let mask = values.count - 1
        var slot = Self.hash(key) & mask
        while values[slot] != 0 && keys[slot] != key { slot = (slot + 1) & mask }
        return slot
    }

    /// Each field folded in with a multiply by 2⁶⁴/φ; the high bits of the last product.
    @inline(__always)
    private static func hash(_ key: PureKey) -> Int {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var x = UInt64(truncatingIfNeeded: key.b) &* k
        x = (x ^ UInt64(truncatingIfNeeded: key.c)) &* k
        x = (x ^ UInt64(truncatingIfNeeded: key.d)) &* k
        x = (x ^ (UInt64(key.imm) | UInt64(key.opcode.rawValue) << 32 | UInt64(key.mode) << 40
                  | UInt64(key.literalCount) << 48)) &* k
        return Int(truncatingIfNeeded: x >> 32)
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        let size = max(Self.initialSize, 2 * values.count)
        keys = [PureKey](repeating: PureKey(opcode: .mov, b: 0, c: 0, d: 0, imm: 0, mode: 0, literalCount: 0), count: size)
        values = [Int32](repeating: 0, count: size)
        for index in oldValues.indices where oldValues[index] != 0 {
            let slot = self.slot(of: oldKeys[index])
            keys[slot] = oldKeys[index]
            values[slot] = oldValues[index]
        }
    }
}
