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
    /// For each instruction (and one past the end), whether it starts a block: control may
    /// enter there from elsewhere than the instruction before.
    public let startsBlock: [Bool]

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
        startsBlock = leader
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

extension BasicBlocks {
    /// One past the highest register `code` may touch (`a` counts four for texture results;
    /// register arrays count their whole length), at least `minimum`: the width of the
    /// register sets a pass over `code` needs.
    public static func registerSpan(of code: [Instruction], minimum: Int = 1) -> Int {
        var span = minimum
        for i in code {
            span = max(span, Int(i.a) + 4, Int(i.b) + 1, Int(i.c) + 1, Int(i.d) + 1)
            switch i.opcode.shape {
            case .storeRegisterArray: span = max(span, Int(i.a) + Int(min(i.imm, 65536)))
            case .loadRegisterArray: span = max(span, Int(i.b) + Int(min(i.imm, 65536)))
            default: break
            }
        }
        return span
    }

    /// What one visit of each block costs a pass whose register sets are `words` long: the
    /// sets met or joined (one per successor, one copy) and every instruction transferred,
    /// register arrays by their length. Passes add it up against `UniformityAnalysis.maxWork`.
    public func visitCosts(of code: [Instruction], words: Int) -> [Int] {
        starts.indices.map { block in
            range(of: block).reduce(words * (successors[block].count + 1)) { cost, k in
                let shape = code[k].opcode.shape
                return cost + 1 + (shape == .loadRegisterArray || shape == .storeRegisterArray ? Int(min(code[k].imm, 65536)) : 0)
            }
        }
    }
}
