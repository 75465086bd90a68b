import KilnBytecode

/// What each lane of a batch actually executed, counted (not sampled) from the same steps
/// `run()` takes: the cost heatmap's numbers.
///
/// A lane is charged for a lane-wide instruction only while it is *active*: the statement
/// (or loop iteration) the instruction belongs to runs under an execution mask that holds
/// the lane (`DebugInfo` statement and iteration events carry that mask). Lanes a masked
/// `if` arm or a loop they already left runs for are not charged. A uniform instruction
/// (`UniformityAnalysis`, run once and broadcast) is counted once per batch, apart.
/// Every count also goes to the source line of its instruction, for the editor's gutter.
public struct CostCounts: Sendable {
    /// Lane-wide instructions each lane ran while active, in lane order (one batch).
    public var lanes = [UInt32](repeating: 0, count: laneCount)
    /// Uniform instructions the batch ran once.
    public var uniform = 0
    /// Per line index of the plan (`CostPlan.lineKeys`): lane-instructions of active lanes
    /// and uniform instructions, summed over every batch counted.
    var lineKeys: [Int] = []
    var lineLanes: [Int] = []
    var lineUniform: [Int] = []
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

    /// Per source line (`file << 32 | line`; 0 for code before the first statement).
    public var lines: [Int: LineCost] {
        var result: [Int: LineCost] = [:]
        for (index, key) in lineKeys.enumerated() where lineLanes[index] > 0 || lineUniform[index] > 0 {
            result[key, default: LineCost()].lanes += lineLanes[index]
            result[key, default: LineCost()].uniform += lineUniform[index]
        }
        return result
    }

    /// Adds another worker's line totals and unknown masks (batch counts are not merged).
    public mutating func merge(_ other: CostCounts) {
        if lineKeys.isEmpty {
            lineKeys = other.lineKeys
            lineLanes = [Int](repeating: 0, count: other.lineKeys.count)
            lineUniform = lineLanes
        }
        for index in other.lineLanes.indices where index < lineLanes.count {
            lineLanes[index] += other.lineLanes[index]
            lineUniform[index] += other.lineUniform[index]
        }
        unknownMasks += other.unknownMasks
    }
}

/// A function's statement and iteration events by body instruction, prepared once per
/// draw for `Executor.runCounting`, in flat arrays (the counting loop reads them per
/// instruction, so no nested arrays and no dictionaries there).
public final class CostPlan: @unchecked Sendable {
    struct Event {
        var fallthroughOnly: Bool
        /// Index into `masks`, -1 when every lane that entered the function runs it, or
        /// `keepsMask` for a change of source line within a statement.
        var mask: Int
        /// Index into `lineKeys`, or -1 for an iteration (the line stays the statement's).
        var line: Int
        static let keepsMask = Int.min
    }
    struct Mask {
        var register: Int
        var definitions: Set<Int>       // relative body indexes; empty: held since the body began
    }
    /// Events of body instruction `pc` are `events[eventStart[pc] ..< eventStart[pc + 1]]`.
    let eventStart: [Int32]
    let events: [Event]
    let masks: [Mask]
    /// Mask registers body instruction `pc` writes: `maskWrites[maskWriteStart[pc] ..< maskWriteStart[pc + 1]]`.
    let maskWriteStart: [Int32]
    let maskWrites: [Int32]
    /// `file << 32 | line` of each line index.
    public let lineKeys: [Int]
    let registerCount: Int

    public init(_ prepared: PreparedFunction) {
        let library = prepared.library
        let info = library.debugInfo
        let start = prepared.bodyStart
        let count = prepared.body.count
        var perInstruction = [[Event]](repeating: [], count: count)
        var masks: [Mask] = []
        var maskIndex: [UInt32: Int] = [:]
        var lineKeys: [Int] = [0]             // index 0: code before the first statement
        var lineIndex: [Int: Int] = [0: 0]
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
                let key = Int(file) << 32 | Int(line)
                if lineIndex[key] == nil {
                    lineIndex[key] = lineKeys.count
                    lineKeys.append(key)
                }
                perInstruction[at].append(Event(fallthroughOnly: event.fallthroughOnly, mask: mask(m), line: lineIndex[key]!))
            case .iteration(_, let m):
                perInstruction[at].append(Event(fallthroughOnly: event.fallthroughOnly, mask: mask(m), line: -1))
            case .bind, .loopStart, .loopEnd:
                break
            }
        }
        // Lines come from the instructions' own source locations: the statement events give
        // the mask, but after an inlined helper returns, the caller's statement goes on (the
        // `sum +=` of `sum += bump(x)`) with no new statement event, and its work is the
        // caller's line, not the helper's last one. Placed after the statement events of the
        // same instruction, so the instruction's own location wins; repeated where a block
        // starts, since a jump may land there from another line.
        let located = min(count, Int(prepared.function.body.count))     // not the appended `ret`
        let blocks = BasicBlocks(library.code[start..<start + located], start: start)
        var previousKey = -1
        for at in 0..<located {
            guard let location = library.location(ofInstruction: start + at) else { continue }
            let key = Int(location.file) << 32 | Int(location.line)
            guard key != previousKey || !perInstruction[at].isEmpty || blocks.startsBlock[at] else { continue }
            previousKey = key
            if lineIndex[key] == nil {
                lineIndex[key] = lineKeys.count
                lineKeys.append(key)
            }
            perInstruction[at].append(Event(fallthroughOnly: false, mask: Event.keepsMask, line: lineIndex[key]!))
        }
        let maskRegisters = Set(masks.map(\.register))
        var eventStart: [Int32] = [0], events: [Event] = []
        var maskWriteStart: [Int32] = [0], maskWrites: [Int32] = []
        for pc in 0..<count {
            events += perInstruction[pc]
            eventStart.append(Int32(events.count))
            for register in Executor.destinations(of: prepared.body[pc], storeTarget: nil) where maskRegisters.contains(Int(register)) {
                maskWrites.append(Int32(register))
            }
            maskWriteStart.append(Int32(maskWrites.count))
        }
        self.eventStart = eventStart
        self.events = events
        self.masks = masks
        self.maskWriteStart = maskWriteStart
        self.maskWrites = maskWrites
        self.lineKeys = lineKeys
        registerCount = prepared.registerCount
    }
}

extension Executor {
    /// Runs the body exactly like `run()` (all lanes, the same steps, uniform instructions
    /// once) and adds what each lane executed while active to `counts` (`CostCounts`).
    /// `counts.lanes` and `counts.uniform` are this batch's; the line totals accumulate.
    public func runCounting(_ plan: CostPlan, into counts: inout CostCounts) throws(VMError) {
        if counts.lineLanes.count != plan.lineKeys.count {
            counts.lineKeys = plan.lineKeys
            counts.lineLanes = [Int](repeating: 0, count: plan.lineKeys.count)
            counts.lineUniform = [Int](repeating: 0, count: plan.lineKeys.count)
        }
        let body = prepared.body
        var result = CountingLoopResult()
        var unknownMasks = 0
        var laneTotals = [UInt32](repeating: 0, count: laneCount)
        // Everything the event handler touches lives behind raw pointers: it runs once per
        // statement, and Swift arrays captured by a closure would pay a uniqueness check
        // and a retain per element written.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2 * laneCount) { lanesScratch in
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, plan.registerCount)) { writers in
        counts.lineLanes.withUnsafeMutableBufferPointer { lineLanes in
        counts.lineUniform.withUnsafeMutableBufferPointer { lineUniform in
        plan.events.withUnsafeBufferPointer { events in
        plan.masks.withUnsafeBufferPointer { masks in
        plan.maskWrites.withUnsafeBufferPointer { maskWrites in
        plan.eventStart.withUnsafeBufferPointer { eventStart in
        plan.maskWriteStart.withUnsafeBufferPointer { maskWriteStart in
        body.withUnsafeBufferPointer { code in
            let laneCounts = lanesScratch.baseAddress!, maskLanes = lanesScratch.baseAddress! + laneCount
            laneCounts.initialize(repeating: 0, count: laneCount)
            maskLanes.initialize(repeating: 1, count: laneCount)
            let lastWriter = writers.baseAddress!
            lastWriter.initialize(repeating: -1, count: max(1, plan.registerCount))   // -1: since the body began
            var currentMask = -1, activeCount = laneCount, line = 0
            // Lane-wide instructions run under the current mask, not yet added to the lanes:
            // they are added when the mask changes (statements share masks), not per statement.
            var underMask: UInt32 = 0

            func charge(_ pending: Int, _ uniformPending: Int) {
                lineLanes[line] &+= pending &* activeCount
                lineUniform[line] &+= uniformPending
                underMask &+= UInt32(truncatingIfNeeded: pending)
            }
            func settle() {
                guard underMask > 0 else { return }
                for lane in 0..<laneCount { laneCounts[lane] &+= underMask &* maskLanes[lane] }
                underMask = 0
            }
            func setMask(_ index: Int) {
                if index == currentMask { return }
                settle()
                currentMask = index
                guard index >= 0 else {
                    maskLanes.update(repeating: 1, count: laneCount)
                    activeCount = laneCount
                    return
                }
                let mask = masks[index]
                let writer = lastWriter[mask.register]
                let valid = mask.definitions.isEmpty ? writer == -1 : mask.definitions.contains(writer)
                guard valid else {
                    unknownMasks += 1
                    maskLanes.update(repeating: 1, count: laneCount)
                    activeCount = laneCount
                    return
                }
                let registerLanes = lanes(UInt16(mask.register))
                // A uniform mask written by a scalar step holds its value in lane 0 only.
                let scalarWriter = writer >= 0 && code[writer].isScalar && !code[writer].broadcasts
                var active = 0
                for lane in 0..<laneCount {
                    let bit: UInt32 = registerLanes[scalarWriter ? 0 : lane] != 0 ? 1 : 0
                    maskLanes[lane] = bit
                    active &+= Int(bit)
                }
                activeCount = active
            }
            result = Executor.executeCounting(
                code.baseAddress!, machine, budget: budget, eventStart: eventStart.baseAddress!,
                maskWriteStart: maskWriteStart.baseAddress!,
                event: { pc, fellThrough, pending, uniformPending in
                    charge(pending, uniformPending)
                    for k in Int(eventStart[pc])..<Int(eventStart[pc + 1]) where fellThrough || !events[k].fallthroughOnly {
                        if events[k].line >= 0 { line = events[k].line }
                        if events[k].mask != CostPlan.Event.keepsMask { setMask(events[k].mask) }
                    }
                },
                maskWrite: { pc in
                    for k in Int(maskWriteStart[pc])..<Int(maskWriteStart[pc + 1]) {
                        let register = Int(maskWrites[k])
                        lastWriter[register] = pc
                        // The mask being counted under changed: re-read it at the next event.
                        if currentMask >= 0 && masks[currentMask].register == register {
                            settle()
                            currentMask = -2
                        }
                    }
                },
                finish: { pending, uniformPending in
                    charge(pending, uniformPending)
                    settle()
                })
            for lane in 0..<laneCount { laneTotals[lane] = laneCounts[lane] }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        work = result.work
        instructions = result.executed
        scalarInstructions = result.scalar
        counts.lanes = laneTotals
        counts.uniform = result.scalar
        counts.unknownMasks += unknownMasks
        if result.failedAt >= 0 { throw budgetError(instruction: prepared.bodyStart + result.failedAt) }
    }

    struct CountingLoopResult {
        var executed = 0, work = 0, scalar = 0
        /// The relative index of the jump that exceeded the budget, or -1.
        var failedAt = -1
    }

    /// The counting run's hot loop: `execute`'s loop plus a test per instruction for events
    /// and mask writes, which are handled out of line (a few per statement, not per
    /// instruction), so the opcode switch is inlined and vectorized as in `execute`.
    @inline(never)
    static func executeCounting(_ code: UnsafePointer<PreparedInstruction>, _ machine: Execution.Machine, budget: Int,
                                eventStart: UnsafePointer<Int32>, maskWriteStart: UnsafePointer<Int32>,
                                event: (_ pc: Int, _ fellThrough: Bool, _ pending: Int, _ uniformPending: Int) -> Void,
                                maskWrite: (_ pc: Int) -> Void,
                                finish: (_ pending: Int, _ uniformPending: Int) -> Void) -> CountingLoopResult {
        var result = CountingLoopResult()
        var pc = 0, previous = -2, jumped = false
        var pending = 0, uniformPending = 0
        var executed = 0, work = 0, scalar = 0
        while true {
            if eventStart[pc] != eventStart[pc &+ 1] {
                event(pc, previous == -2 || (previous == pc &- 1 && !jumped), pending, uniformPending)
                pending = 0
                uniformPending = 0
            }
            let instruction = code[pc]
            executed &+= 1
            work &+= Int(instruction.cost)
            previous = pc
            jumped = false
            let writesMask = maskWriteStart[pc] != maskWriteStart[pc &+ 1]
            if instruction.isScalar {
                scalar &+= 1
                uniformPending &+= 1
                Execution.scalarSteps(machine, code + pc, count: 1)
                if writesMask { maskWrite(pc) }
                pc &+= 1
                continue
            }
            pending &+= 1
            let flow = Execution.step(machine, instruction)
            if writesMask { maskWrite(pc) }
            switch flow {
            case .next:
                pc &+= 1
            case .jump(let target):
                if target <= pc && executed > budget {
                    result.failedAt = pc
                    finish(pending, uniformPending)
                    (result.executed, result.work, result.scalar) = (executed, work, scalar)
                    return result
                }
                jumped = target != pc &+ 1
                pc = target
            case .finish:
                finish(pending, uniformPending)
                (result.executed, result.work, result.scalar) = (executed, work, scalar)
                return result
            }
        }
    }
}
