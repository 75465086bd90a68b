/// A set of registers as bits (one per register), for the dataflow passes.
public struct RegisterSet: Equatable, Sendable {
    // Inlinable: the dataflow transfers in KilnVM set and clear one bit per operand of
    // every instruction, and a call per bit was most of their cost.
    @usableFromInline var words: [UInt64]

    /// `count` registers, all in the set (`full`) or none.
    public init(count: Int, full: Bool) {
        words = Array(repeating: full ? ~0 : 0, count: (count + 63) / 64)
    }

    /// Registers past the set's size read as absent and are never added.
    @inlinable public subscript(_ r: Int) -> Bool {
        get { r >= 0 && r / 64 < words.count && words[r / 64] & (1 << UInt64(r % 64)) != 0 }
        set {
            guard r >= 0, r / 64 < words.count else { return }
            if newValue { words[r / 64] |= 1 << UInt64(r % 64) } else { words[r / 64] &= ~(1 << UInt64(r % 64)) }
        }
    }

    /// Keeps only what is also in `other`; returns whether the set changed.
    public mutating func intersect(_ other: RegisterSet) -> Bool {
        var changed = false
        for k in words.indices where k < other.words.count {
            let met = words[k] & other.words[k]
            if met != words[k] { words[k] = met; changed = true }
        }
        return changed
    }

    /// Adds everything in `other`; returns whether the set changed.
    public mutating func formUnion(_ other: RegisterSet) -> Bool {
        var changed = false
        for k in words.indices where k < other.words.count {
            let joined = words[k] | other.words[k]
            if joined != words[k] { words[k] = joined; changed = true }
        }
        return changed
    }
}
