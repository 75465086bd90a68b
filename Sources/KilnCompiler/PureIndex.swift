/// A map from pure instructions (`PureKey`) to the prologue register that computes each:
/// common-subexpression elimination of uniform work (`LoweringState.pureCache`). As a
/// `[PureKey: VirtualRegister]` dictionary every lookup ran SipHash over three words, and
/// the table was rehashed at every doubling from empty and copied whole after each
/// snapshot of the lowering state (docs/benchmarks.md, "forty-fifth session").
typealias PureIndex = OpenIndex<PureKey>

extension PureKey: OpenIndexKey {
    /// Each field folded in with a multiply by 2⁶⁴/φ; the high bits of the last product.
    @inline(__always)
    static func hash(_ key: PureKey) -> Int {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var x = UInt64(truncatingIfNeeded: key.b) &* k
        x = (x ^ UInt64(truncatingIfNeeded: key.c)) &* k
        x = (x ^ UInt64(truncatingIfNeeded: key.d)) &* k
        x = (x ^ (UInt64(key.imm) | UInt64(key.opcode.rawValue) << 32 | UInt64(key.mode) << 40
                  | UInt64(key.literalCount) << 48)) &* k
        return Int(truncatingIfNeeded: x >> 32)
    }

    static var filler: PureKey { PureKey(opcode: .mov, b: 0, c: 0, d: 0, imm: 0, mode: 0, literalCount: 0) }

    /// Room for 16 keys, more than a median shader's hoisted operations.
    static var initialSlots: Int { 32 }
}
