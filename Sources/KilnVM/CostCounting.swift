import KilnBytecode

/// What each lane of a batch actually executed, counted (not sampled) from the same steps
/// `run()` takes: the cost heatmap's numbers.
///
/// A lane is charged for a lane-wide instruction only while it is *active*: the statement
/// (or loop iteration) the instruction belongs to runs under an execution mask that holds
/// the lane (`DebugInfo` statement and iteration events carry that mask). Lanes a masked
/// `if` arm or a loop they already left runs for are not charged. A uniform instruction
/// (`UniformityAnalysis`, run once and broadcast) is counted once per batch, apart.
/// Every count also goes to the source line of its statement, for the editor's gutter.
public struct CostCounts: Sendable {
    /// Lane-wide instructions each lane ran while active, in lane order (one batch).
    public var lanes = [UInt32](repeating: 0, count: laneCount)
    /// Uniform instructions the batch ran once.
    public var uniform = 0
    /// Per source line (`file << 32 | line`): lane-instructions of active lanes, and
    /// uniform instructions, summed over every batch counted.
    public var lines: [Int: LineCost] = [:]
    /// Statements whose mask could not be read back (its register reused); their lanes
    /// count as active. Zero in every shader the tests know; kept to be honest about it.
    public var unknownMasks = 0

    public struct LineCost: Sendable, Equatable {
        public var lanes = 0
        public var uniform = 0

        public init(lanes: Int = 0, uniform: Int = 0) {
            self.lanes = lanes
            self.uniform = uniform
        }
    }

    public init() {}

    /// Adds another worker's per-line totals.
    public mutating func merge(lines other: [Int: LineCost], unknownMasks: Int) {
        for (key, cost) in other {
            lines[key, default: LineCost()].lanes += cost.lanes
            lines[key, default: LineCost()].uniform += cost.uniform
        }
        self.unknownMasks += unknownMasks
    }
}

/// A function's statement and iteration events by body instruction, prepared once per
/// draw for `Executor.runCounting`.
public final class CostPlan: @unchecked Sendable {
    struct Event {
        var fallthroughOnly: Bool
        /// Index into `masks`, or -1 when every lane that entered the function runs it.
        var mask: Int
        /// `file << 32 | line`, or nil for an iteration (the line stays the statement's).
        var line: Int?
    }
    struct Mask {
        var register: Int
        var definitions: Set<Int>       // relative body indexes; empty: held since the body began
    }
    /// Per body instruction (relative): its events, empty for most.
    let events: [[Event]]
    let masks: [Mask]
    /// Per body instruction: the mask registers it writes.
    let maskWrites: [[Int]]
    let registerCount: Int

    public init(_ prepared: PreparedFunction) {
        let library = prepared.library
        let info = library.debugInfo
        let start = prepared.bodyStart
        let count = prepared.body.count
        var events = [[Event]](repeating: [], count: count)
        var masks: [Mask] = []
        var maskIndex: [UInt32: Int] = [:]
        func mask(_ value: UInt32?) -> Int {
            guard let value, Int(value) < info.values.count else { return -1 }
            if let known = maskIndex[value] { return known }
            let record = info.values[Int(value)]
            guard Int(record.register) < prepared.registerCount else { return -1 }
            masks.append(Mask(register: Int(record.register),
                              definitions: Set(record.definitions.map { Int($0) - start })))
            maskIndex[value] = masks.count - 1
            return masks.count - 1
        }
        for event in info.events(in: start..<start + count) {
            let at = Int(event.instruction) - start
            switch event.kind {
            case .statement(_, let file, let line, _, let m):
                events[at].append(Event(fallthroughOnly: event.fallthroughOnly, mask: mask(m), line: Int(file) << 32 | Int(line)))
            case .iteration(_, let m):
                events[at].append(Event(fallthroughOnly: event.fallthroughOnly, mask: mask(m), line: nil))
            case .bind, .loopStart, .loopEnd:
                break
            }
        }
        let maskRegisters = Set(masks.map(\.register))
        var maskWrites = [[Int]](repeating: [], count: count)
        for pc in 0..<count {
            let written = Executor.destinations(of: prepared.body[pc], storeTarget: nil).map(Int.init)
            maskWrites[pc] = written.filter { maskRegisters.contains($0) }
        }
        self.events = events
        self.masks = masks
        self.maskWrites = maskWrites
        registerCount = prepared.registerCount
    }
}

extension Executor {
    /// Runs the body exactly like `run()` (all lanes, the same steps, uniform instructions
    /// once) and adds what each lane executed while active to `counts` (`CostCounts`).
    /// `counts.lanes` and `counts.uniform` are this batch's; `lines` accumulate.
    public func runCounting(_ plan: CostPlan, into counts: inout CostCounts) throws(VMError) {
        let start = prepared.bodyStart
        let m = machine
        for lane in 0..<laneCount { counts.lanes[lane] = 0 }
        counts.uniform = 0
        var lastWriter = [Int](repeating: -1, count: plan.registerCount)     // -1: since the body began
        var maskLanes = [UInt32](repeating: 1, count: laneCount)
        var currentMask = -1
        var activeCount = laneCount
        var line = 0
        var pending = 0           // lane-wide instructions since the last event
        func flush() {
            guard pending > 0 else { return }
            let n = UInt32(pending)
            for lane in 0..<laneCount where maskLanes[lane] != 0 { counts.lanes[lane] &+= n }
            counts.lines[line, default: CostCounts.LineCost()].lanes += pending * activeCount
            pending = 0
        }
        func setMask(_ index: Int) {
            if index == currentMask { return }
            currentMask = index
            guard index >= 0 else {
                for lane in 0..<laneCount { maskLanes[lane] = 1 }
                activeCount = laneCount
                return
            }
            let mask = plan.masks[index]
            let writer = lastWriter[mask.register]
            let valid = mask.definitions.isEmpty ? writer == -1 : mask.definitions.contains(writer)
            guard valid else {
                counts.unknownMasks += 1
                for lane in 0..<laneCount { maskLanes[lane] = 1 }
                activeCount = laneCount
                return
            }
            let registerLanes = lanes(UInt16(mask.register))
            // A uniform mask written by a scalar step holds its value in lane 0 only.
            let scalarWriter = writer >= 0 && prepared.body[writer].isScalar && !prepared.body[writer].broadcasts
            activeCount = 0
            for lane in 0..<laneCount {
                maskLanes[lane] = registerLanes[scalarWriter ? 0 : lane] != 0 ? 1 : 0
                activeCount += Int(maskLanes[lane])
            }
        }
        var executed = 0, work = 0, scalar = 0
        defer {
            self.work = work
            instructions = executed
            scalarInstructions = scalar
        }
        var previous = -2
        var jumped = false
        try prepared.body.withUnsafeBufferPointer { (code) throws(VMError) in
            var pc = 0
            while true {
                if !plan.events[pc].isEmpty {
                    let fellThrough = previous == pc - 1 && !jumped || previous == -2
                    for event in plan.events[pc] where fellThrough || !event.fallthroughOnly {
                        flush()
                        if let next = event.line { line = next }
                        setMask(event.mask)
                    }
                }
                let instruction = code[pc]
                executed += 1
                work &+= Int(instruction.cost)
                previous = pc
                jumped = false
                if instruction.isScalar {
                    scalar += 1
                    counts.uniform += 1
                    counts.lines[line, default: CostCounts.LineCost()].uniform += 1
                    Execution.scalarStep(m, instruction)
                    for register in plan.maskWrites[pc] { lastWriter[register] = pc }
                    pc += 1
                    continue
                }
                pending += 1
                let flow = Execution.step(m, instruction)
                for register in plan.maskWrites[pc] {
                    lastWriter[register] = pc
                    // The mask being counted under changed: re-read it at the next event.
                    if currentMask >= 0 && plan.masks[currentMask].register == register { currentMask = -2 }
                }
                switch flow {
                case .next:
                    pc += 1
                case .jump(let target):
                    if target <= pc && executed > budget { throw budgetError(instruction: start + pc) }
                    jumped = target != pc + 1
                    pc = target
                case .finish:
                    flush()
                    return
                }
            }
        }
    }
}
