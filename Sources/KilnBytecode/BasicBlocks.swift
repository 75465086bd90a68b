/// The basic blocks of one code range (a function's prologue or body) and the edges
/// between them, for the dataflow passes over bytecode (`UniformityAnalysis`, the VM's
/// broadcast liveness).
///
/// Leaders are the first instruction, every jump target inside the range and every
/// instruction after a jump or `ret`. A jump whose target lies outside the range, a `ret`,
/// and running off the end all *exit* the range (the VM turns each into its appended `ret`).
public struct BasicBlocks: Sendable {
    /// The first instruction of each block, relative to the range, ascending.
    public let starts: [Int]
    /// The number of instructions in the range.
    public let count: Int
    /// For each block, the blocks control may go to next.
    public let successors: [[Int]]
    /// For each block, whether control may leave the range from its end.
    public let exits: [Bool]

    /// The blocks of `code`, whose first instruction has absolute index `start` (jump
    /// targets in bytecode are absolute).
    public init(_ code: ArraySlice<Instruction>, start: Int) {
        let code = Array(code)
        let n = code.count
        count = n
        func target(_ i: Instruction) -> Int? {
            let t = Int(i.imm) - start
            return (0..<n).contains(t) ? t : nil
        }
        var leader = Array(repeating: false, count: n + 1)
        leader[0] = true
        for (k, i) in code.enumerated() {
            switch i.opcode.shape {
            case .jump, .conditionalJump:
                if let t = target(i) { leader[t] = true }
                leader[k + 1] = true
            case .none:
                leader[k + 1] = true
            default: break
            }
        }
        var starts: [Int] = []
        var blockOf = Array(repeating: 0, count: n)
        for k in 0..<n {
            if leader[k] { starts.append(k) }
            blockOf[k] = starts.count - 1
        }
        self.starts = starts
        var successors: [[Int]] = []
        var exits: [Bool] = []
        for block in starts.indices {
            let end = block + 1 < starts.count ? starts[block + 1] : n
            let last = code[end - 1]
            let next = end < n ? [block + 1] : []
            var out: [Int] = []
            var exit = false
            switch last.opcode.shape {
            case .none:
                exit = true
            case .jump:
                if let t = target(last) { out = [blockOf[t]] } else { exit = true }
            case .conditionalJump:
                if let t = target(last) { out = [blockOf[t]] } else { exit = true }
                if next.isEmpty { exit = true } else if !out.contains(block + 1) { out += next }
            default:
                if next.isEmpty { exit = true } else { out = next }
            }
            successors.append(out)
            exits.append(exit)
        }
        self.successors = successors
        self.exits = exits
    }

    /// The instructions of `block`, relative to the range.
    public func range(of block: Int) -> Range<Int> {
        starts[block]..<(block + 1 < starts.count ? starts[block + 1] : count)
    }
}

/// A set of registers as bits (one per register), for the dataflow passes.
public struct RegisterSet: Equatable, Sendable {
    var words: [UInt64]

    /// `count` registers, all in the set (`full`) or none.
    public init(count: Int, full: Bool) {
        words = Array(repeating: full ? ~0 : 0, count: (count + 63) / 64)
    }

    /// Registers past the set's size read as absent and are never added.
    public subscript(_ r: Int) -> Bool {
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
