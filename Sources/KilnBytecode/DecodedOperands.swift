/// Every instruction's whole-register writes and its reads, decoded once.
///
/// The liveness passes that prepare a function for a draw (`PreparedFunction.markBroadcasts`,
/// `PairFusion.deadAfterSecond`) visit each instruction three times, and decoding it on
/// every visit — a `switch` on its operand shape for the writes and another for the reads,
/// a closure call per read — was most of their cost.
public struct DecodedOperands: Sendable {
    /// Registers instruction `k` writes whole: `writeStart[k] ..< writeEnd[k]` (none for a
    /// `str`, which writes one element in some lanes and keeps the rest).
    @usableFromInline let writeStart: [Int32]
    @usableFromInline let writeEnd: [Int32]
    /// Registers it reads: `reads[readStart[k] ..< readStart[k + 1]]` (`forEachRead`).
    @usableFromInline let readStart: [Int32]
    @usableFromInline let reads: [Int32]

    public init(_ code: [Instruction]) {
        var writeStart: [Int32] = [], writeEnd: [Int32] = [], readStart: [Int32] = [0], reads: [Int32] = []
        writeStart.reserveCapacity(code.count)
        writeEnd.reserveCapacity(code.count)
        readStart.reserveCapacity(code.count + 1)
        reads.reserveCapacity(code.count * 2)
        for i in code {
            let writes = i.opcode.shape == .storeRegisterArray ? 0..<0 : UniformityAnalysis.destinations(i)
            writeStart.append(Int32(writes.lowerBound))
            writeEnd.append(Int32(writes.upperBound))
            BlockLiveness.forEachRead(of: i) { reads.append(Int32($0)) }
            readStart.append(Int32(reads.count))
        }
        (self.writeStart, self.writeEnd, self.readStart, self.reads) = (writeStart, writeEnd, readStart, reads)
    }

    /// live := live − writes(k).
    @inlinable public func removeWrites(of k: Int, from live: inout RegisterSet) {
        var r = writeStart[k]
        while r < writeEnd[k] { live[Int(r)] = false; r += 1 }
    }

    /// live := live ∪ reads(k).
    @inlinable public func addReads(of k: Int, to live: inout RegisterSet) {
        var index = readStart[k]
        while index < readStart[k + 1] { live[Int(reads[Int(index)])] = true; index += 1 }
    }

    /// live := live − writes(k) ∪ reads(k), every read counted.
    @inlinable public func transfer(_ k: Int, _ live: inout RegisterSet) {
        removeWrites(of: k, from: &live)
        addReads(of: k, to: &live)
    }
}
