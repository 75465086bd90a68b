/// Linear-scan register allocation over register units.
///
/// A unit's interval runs from its first to its last occurrence in code order (prologue
/// first, then body). Loops stretch intervals: a unit live into a loop head stays live
/// to the back edge, and a unit written more than once inside a loop (a home, a mask)
/// covers the whole loop, since its value flows around the back edge. Prologue units
/// are placed first from register 0 (values the body reads stay live forever), so they
/// end below `uniformRegisterCount`; body units are placed above. Groups get the lowest
/// run of consecutive free registers.
struct RegisterAllocator {
    /// Physical first register of each unit (-1 for units that do not occur).
    var base: [Int]
    /// Last position of each unit's interval (`forever` for values live to the end).
    var end: [Int]
    var uniformRegisterCount: Int
    var registerCount: Int

    static let forever = Int.max

    init(_ state: LoweringState, pinnedLive: [VirtualRegister], inputs: [VirtualRegister]) {
        let unitCount = state.units.count
        var intervals = Intervals(unitCount: unitCount, registerUnit: state.registerUnit)
        let prologueCount = state.prologue.count
        for (position, instruction) in state.prologue.enumerated() {
            instruction.forEachRead { intervals.read($0, position) }
            if let register = instruction.writes { intervals.define(register, position) }
        }
        // Labels are numbered densely from 0: positions in an array (-1: not yet seen).
        var labelPosition = [Int](repeating: -1, count: state.labelCount)
        var backEdges: [(head: Int, edge: Int)] = []
        for (index, instruction) in state.body.enumerated() {
            let position = prologueCount + 1 + index
            if instruction.isLabel {
                let label = Int(instruction.imm)
                if label >= labelPosition.count { labelPosition += repeatElement(-1, count: label + 1 - labelPosition.count) }
                labelPosition[label] = position
                continue
            }
            instruction.forEachRead { intervals.read($0, position) }
            if let register = instruction.writes { intervals.define(register, position) }
            if instruction.isJump, Int(instruction.imm) < labelPosition.count {
                let head = labelPosition[Int(instruction.imm)]
                if head >= 0, head < position { backEdges.append((head, position)) }
            }
        }
        var (start, end) = ((0..<unitCount).map { intervals.units[$0].start }, (0..<unitCount).map { intervals.units[$0].end })
        // Whether a unit's value flows around a back edge: written more than once, a group, or
        // read before it is written. Only loops ask.
        let isCarried: [Bool] = backEdges.isEmpty ? [] : (0..<unitCount).map { unit in
            let interval = intervals.units[unit]
            return interval.definitions > 1 || state.units[unit].size > 1 || interval.firstRead <= interval.firstDefinition
        }
        for register in inputs {
            let unit = state.registerUnit[register]
            start[unit] = min(start[unit], prologueCount)
            end[unit] = max(end[unit], prologueCount)
        }
        for register in pinnedLive {
            let unit = state.registerUnit[register]
            if start[unit] == Int.max { start[unit] = prologueCount }
            end[unit] = Self.forever
        }
        // Prologue values the body reads live for the whole body.
        for unit in 0..<unitCount where state.units[unit].isPrologue && end[unit] > prologueCount && end[unit] >= 0 {
            end[unit] = Self.forever
        }
        // Local copies: in a debug build each `state.units[unit]` here copied the whole
        // lowering state, seconds for a function of a thousand loops.
        let isPrologue = state.units.map { $0.isPrologue }
        if backEdges.count > LoopNest.minimumLoops, let nest = LoopNest(backEdges, positions: prologueCount + 1 + state.body.count) {
            for unit in 0..<unitCount where end[unit] >= 0 && !isPrologue[unit] {
                nest.stretch(start: &start[unit], end: &end[unit], carried: isCarried[unit])
            }
        } else {
            // A few loops (most shaders: unrolled loops leave none), or loops that overlap
            // without nesting (no lowering makes them): every loop against every unit until
            // nothing changes.
            var changed = true
            while changed {
                changed = false
                for (head, edge) in backEdges {
                    for unit in 0..<unitCount where end[unit] >= head && start[unit] <= edge && !isPrologue[unit] {
                        changed = LoopNest.stretch(start: &start[unit], end: &end[unit], carried: isCarried[unit],
                                                   head: head, edge: edge) || changed
                    }
                }
            }
        }
        var placement = Placement(unitCount: unitCount, sizes: state.units.map { $0.size })
        // The units that occur, prologue and body apart, in one pass into arrays sized up
        // front (three `filter`s grew three arrays an element at a time).
        var prologueUnits: [Int] = [], bodyUnits: [Int] = []
        prologueUnits.reserveCapacity(unitCount)
        bodyUnits.reserveCapacity(unitCount)
        for unit in 0..<unitCount where end[unit] >= 0 {
            if isPrologue[unit] { prologueUnits.append(unit) } else { bodyUnits.append(unit) }
        }
        prologueUnits.sort { (start[$0], $0) < (start[$1], $1) }
        placement.place(prologueUnits, floor: 0, start: start, end: end)
        let uniformCount = placement.highest
        placement.inUse = RegisterBits()
        bodyUnits.sort { (start[$0], $0) < (start[$1], $1) }
        placement.place(bodyUnits, floor: uniformCount, start: start, end: end)
        self.base = placement.base
        self.end = end
        self.uniformRegisterCount = uniformCount
        self.registerCount = max(placement.highest, uniformCount)
    }

    /// The loops of the body as a nesting forest — the back edges' spans `head...edge`, which
    /// structured control flow makes nested or disjoint — with the innermost loop around
    /// every position, so a unit's interval is stretched by walking out from its two ends
    /// through the loops around them instead of by testing every loop against every unit
    /// until nothing changes (quadratic: 5.7 s for a 977-KB function of 10 000 loops in a loop).
    ///
    /// The result is the same: the stretch rules only grow an interval and are monotone, so
    /// every order of applying them reaches the same least fixed point; and a loop that
    /// contains neither end of an interval either misses it or lies inside it, where
    /// neither rule changes anything.
    struct LoopNest {
        /// Up to this many loops the plain fixed point is cheaper than building the nest
        /// (with the nest for every function, compiling the example and benchmark shaders
        /// took 0.9 % more instructions); both give the same intervals.
        static let minimumLoops = 16

        private var heads: [Int] = [], edges: [Int] = [], parent: [Int] = []
        /// Per position, the innermost loop whose span holds it, or -1.
        private var innermost: [Int32]

        /// Nil when two loops overlap without one containing the other.
        init?(_ backEdges: [(head: Int, edge: Int)], positions: Int) {
            innermost = Array(repeating: -1, count: backEdges.isEmpty ? 0 : positions)
            guard !backEdges.isEmpty else { return }
            // Outer loops first: by head, and the longer of two with the same head first.
            let sorted = backEdges.sorted { ($0.head, -$0.edge) < ($1.head, -$1.edge) }
            var open: [Int] = []
            var next = 0
            for position in 0..<positions {
                while let top = open.last, edges[top] < position { open.removeLast() }
                while next < sorted.count && sorted[next].head == position {
                    let (head, edge) = sorted[next]
                    if let top = open.last, edges[top] < edge { return nil }
                    heads.append(head); edges.append(edge); parent.append(open.last ?? -1)
                    open.append(heads.count - 1)
                    next += 1
                }
                innermost[position] = Int32(open.last ?? -1)
            }
            guard next == sorted.count else { return nil }
        }

        /// Grows `start...end` until no loop around either end stretches it further.
        func stretch(start: inout Int, end: inout Int, carried: Bool) {
            var changed = true
            while changed {
                changed = false
                for side in 0..<2 {
                    let position = side == 0 ? end : start
                    var loop = position >= 0 && position < innermost.count ? Int(innermost[position]) : -1
                    while loop >= 0 {
                        changed = Self.stretch(start: &start, end: &end, carried: carried,
                                               head: heads[loop], edge: edges[loop]) || changed
                        loop = parent[loop]
                    }
                }
            }
        }

        /// The two rules for one loop `head...edge`: a unit live into the loop from before
        /// it stays live to the back edge; a unit whose value flows around the back edge
        /// (`carried`: written more than once, a group, or read before it is written)
        /// covers the whole loop. Returns whether the interval grew.
        @inline(__always)
        static func stretch(start: inout Int, end: inout Int, carried: Bool, head: Int, edge: Int) -> Bool {
            guard end >= head && start <= edge else { return false }
            var grew = false
            if start < head && end < edge { end = edge; grew = true }
            if carried && (start > head || end < edge) {
                start = min(start, head)
                end = max(end, edge)
                grew = true
            }
            return grew
        }
    }

    /// First and last occurrence of each unit, its definition count and first definition and
    /// read. (A struct with mutating methods, not closures over local arrays: captured, the
    /// arrays are boxed and every access pays an exclusivity check — a tenth of compiling an
    /// unrolled shader.) One table of records rather than five arrays: one allocation, and
    /// one access per occurrence for all of a record's fields.
    private struct Intervals: ~Copyable {
        struct Interval {
            var start = Int.max, end = -1, definitions = 0, firstDefinition = Int.max, firstRead = Int.max
        }
        var units: PassTable<Interval>
        let registerUnit: [Int]

        init(unitCount: Int, registerUnit: [Int]) {
            units = PassTable(repeating: Interval(), count: unitCount)
            self.registerUnit = registerUnit
        }

        mutating func read(_ register: VirtualRegister, _ position: Int) {
            guard register >= 0 else { return }
            Self.read(&units[registerUnit[register]], position)
        }
        mutating func define(_ register: VirtualRegister, _ position: Int) {
            guard register >= 0 else { return }
            Self.define(&units[registerUnit[register]], position)
        }
        // One `inout` access to the record for all its fields.
        private static func read(_ interval: inout Interval, _ position: Int) {
            interval.start = min(interval.start, position)
            interval.end = max(interval.end, position)
            interval.firstRead = min(interval.firstRead, position)
        }
        private static func define(_ interval: inout Interval, _ position: Int) {
            interval.start = min(interval.start, position)
            interval.end = max(interval.end, position)
            interval.definitions += 1
            interval.firstDefinition = min(interval.firstDefinition, position)
        }
    }

    /// Linear scan: each unit, in order of its start, gets the lowest run of free registers
    /// at or above `floor`; units whose interval ended free theirs.
    ///
    /// The active units are kept sorted by end, latest first, so the ones that ended are
    /// popped off the back instead of the whole list being filtered for every unit; the
    /// registers in use are a bit set, so a single register is found a word at a time.
    /// (Filtering and a scan one `Bool` at a time were a tenth of compiling an unrolled
    /// shader, quadratic in its live values.) Same placement as the plain scan.
    private struct Placement {
        var base: [Int]
        var inUse = RegisterBits()
        var highest = 0
        let sizes: [Int]

        init(unitCount: Int, sizes: [Int]) {
            base = Array(repeating: -1, count: unitCount)
            self.sizes = sizes
        }

        mutating func place(_ units: [Int], floor: Int, start: [Int], end: [Int]) {
            var active: [(end: Int, unit: Int)] = []
            active.reserveCapacity(min(units.count, 64))
            for unit in units {
                while let last = active.last, last.end < start[unit] {
                    inUse.clear(base[last.unit], count: sizes[last.unit])
                    active.removeLast()
                }
                let size = sizes[unit]
                let candidate = inUse.lowestFreeRun(of: size, from: floor)
                inUse.set(candidate, count: size)
                base[unit] = candidate
                highest = max(highest, candidate + size)
                // Insert keeping `active` sorted by end, descending (ties: later units last,
                // which only decides the order of frees that happen together).
                var low = 0, high = active.count
                while low < high {
                    let middle = (low + high) / 2
                    if active[middle].end >= end[unit] { low = middle + 1 } else { high = middle }
                }
                active.insert((end[unit], unit), at: low)
            }
            for entry in active { inUse.clear(base[entry.unit], count: sizes[entry.unit]) }
        }
    }

    /// Which registers are taken, 64 to a word.
    private struct RegisterBits {
        var words: [UInt64] = []

        func isSet(_ r: Int) -> Bool {
            r >> 6 < words.count && words[r >> 6] & (1 << UInt64(r & 63)) != 0
        }
        mutating func set(_ first: Int, count: Int) {
            while words.count <= (first + count - 1) >> 6 { words.append(0) }
            for r in first..<first + count { words[r >> 6] |= 1 << UInt64(r & 63) }
        }
        mutating func clear(_ first: Int, count: Int) {
            for r in first..<first + count { words[r >> 6] &= ~(1 << UInt64(r & 63)) }
        }
        /// The lowest free register at or above `r`.
        func lowestFree(from r: Int) -> Int {
            var index = r >> 6
            guard index < words.count else { return r }
            // Registers below `r` in its word count as taken.
            var taken = words[index] | ((1 << UInt64(r & 63)) &- 1)
            while taken == .max {
                index += 1
                guard index < words.count else { return index << 6 }
                taken = words[index]
            }
            return index << 6 + (~taken).trailingZeroBitCount
        }
        /// The first register of the lowest run of `size` free registers at or above `floor`.
        func lowestFreeRun(of size: Int, from floor: Int) -> Int {
            var candidate = lowestFree(from: floor)
            while let blocked = (candidate..<candidate + size).last(where: isSet) {
                candidate = lowestFree(from: blocked + 1)
            }
            return candidate
        }
    }

    func physical(_ register: VirtualRegister, _ state: LoweringState) -> Int {
        base[state.registerUnit[register]] + state.registerOffset[register]
    }
}
