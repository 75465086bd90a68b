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
        var start = [Int](repeating: Int.max, count: unitCount)
        var end = [Int](repeating: -1, count: unitCount)
        var definitions = [Int](repeating: 0, count: unitCount)
        var firstDefinition = [Int](repeating: Int.max, count: unitCount)
        var firstRead = [Int](repeating: Int.max, count: unitCount)
        func touch(_ register: VirtualRegister, _ position: Int) {
            guard register >= 0 else { return }
            let unit = state.registerUnit[register]
            start[unit] = min(start[unit], position)
            end[unit] = max(end[unit], position)
        }
        func read(_ register: VirtualRegister, _ position: Int) {
            guard register >= 0 else { return }
            touch(register, position)
            let unit = state.registerUnit[register]
            firstRead[unit] = min(firstRead[unit], position)
        }
        func define(_ register: VirtualRegister, _ position: Int) {
            touch(register, position)
            let unit = state.registerUnit[register]
            definitions[unit] += 1
            firstDefinition[unit] = min(firstDefinition[unit], position)
        }
        let prologueCount = state.prologue.count
        for (position, instruction) in state.prologue.enumerated() {
            instruction.forEachRead { read($0, position) }
            if let register = instruction.writes { define(register, position) }
        }
        var labelPosition: [Int: Int] = [:]
        var backEdges: [(head: Int, edge: Int)] = []
        for (index, instruction) in state.body.enumerated() {
            let position = prologueCount + 1 + index
            if instruction.isLabel { labelPosition[Int(instruction.imm)] = position; continue }
            instruction.forEachRead { read($0, position) }
            if let register = instruction.writes { define(register, position) }
            if instruction.opcode.shape == .jump || instruction.opcode.shape == .conditionalJump,
               let head = labelPosition[Int(instruction.imm)], head < position {
                backEdges.append((head, position))
            }
        }
        for register in inputs { touch(register, prologueCount) }
        for register in pinnedLive {
            let unit = state.registerUnit[register]
            if start[unit] == Int.max { start[unit] = prologueCount }
            end[unit] = Self.forever
        }
        // Prologue values the body reads live for the whole body.
        for unit in 0..<unitCount where state.units[unit].isPrologue && end[unit] > prologueCount && end[unit] >= 0 {
            end[unit] = Self.forever
        }
        var changed = true
        while changed {
            changed = false
            for (head, edge) in backEdges {
                for unit in 0..<unitCount where end[unit] >= 0 && !state.units[unit].isPrologue {
                    let occursInside = end[unit] >= head && start[unit] <= edge
                    guard occursInside else { continue }
                    let carried = definitions[unit] > 1 || state.units[unit].size > 1 || firstRead[unit] <= firstDefinition[unit]
                    if start[unit] < head && end[unit] < edge {
                        end[unit] = edge; changed = true
                    }
                    if carried && (start[unit] > head || end[unit] < edge) {
                        start[unit] = min(start[unit], head)
                        end[unit] = max(end[unit], edge)
                        changed = true
                    }
                }
            }
        }
        var base = [Int](repeating: -1, count: unitCount)
        var inUse: [Bool] = []
        var highest = 0
        func place(_ units: [Int], floor: Int) {
            var active: [(end: Int, unit: Int)] = []
            for unit in units {
                active.removeAll { entry in
                    if entry.end < start[unit] {
                        for r in base[entry.unit]..<base[entry.unit] + state.units[entry.unit].size { inUse[r] = false }
                        return true
                    }
                    return false
                }
                let size = state.units[unit].size
                var candidate = floor
                while true {
                    while inUse.count < candidate + size { inUse.append(false) }
                    if let blocked = (candidate..<candidate + size).last(where: { inUse[$0] }) {
                        candidate = blocked + 1
                    } else { break }
                }
                for r in candidate..<candidate + size { inUse[r] = true }
                base[unit] = candidate
                highest = max(highest, candidate + size)
                active.append((end[unit], unit))
            }
            for entry in active {
                for r in base[entry.unit]..<base[entry.unit] + state.units[entry.unit].size { inUse[r] = false }
            }
        }
        let occurring = (0..<unitCount).filter { end[$0] >= 0 }
        let prologueUnits = occurring.filter { state.units[$0].isPrologue }.sorted { (start[$0], $0) < (start[$1], $1) }
        place(prologueUnits, floor: 0)
        let uniformCount = highest
        inUse = []
        let bodyUnits = occurring.filter { !state.units[$0].isPrologue }.sorted { (start[$0], $0) < (start[$1], $1) }
        place(bodyUnits, floor: uniformCount)
        self.base = base
        self.end = end
        self.uniformRegisterCount = uniformCount
        self.registerCount = max(highest, uniformCount)
    }

    func physical(_ register: VirtualRegister, _ state: LoweringState) -> Int {
        base[state.registerUnit[register]] + state.registerOffset[register]
    }
}
