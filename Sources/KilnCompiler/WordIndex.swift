/// A map from 32-bit words to small non-negative integers: a constant's bits to its index
/// in the constant pool, or to the register that holds it (`LoweringState.constantIndex`,
/// `constantRegisters`, `argumentRegisters`; `LibraryAssembler.constantIndex`). Lowering
/// asks at every literal and every implicit 0 or 1.
typealias WordIndex = OpenIndex<UInt32>

extension UInt32: OpenIndexKey {
    /// Fibonacci hashing: the high bits of word × 2⁶⁴/φ (float bit patterns differ mostly in
    /// their high bits; the product spreads them over the low ones the mask keeps).
    @inline(__always)
    static func hash(_ word: UInt32) -> Int {
        Int(truncatingIfNeeded: (UInt64(word) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    static var filler: UInt32 { 0 }

    /// Room for 32 words, a median shader's constants.
    static var initialSlots: Int { 64 }
}
