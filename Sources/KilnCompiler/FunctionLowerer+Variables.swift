import KilnBytecode
import KilnLanguage

/// An assignable place: components of a root variable, possibly behind a dynamic index.
struct LValue {
    var frame: Int
    var variable: VariableID
    /// Component indexes into the root variable. With `dynamic`, the components of the
    /// whole indexed aggregate (`count × size`), element-major.
    var components: [Int]
    var dynamic: (index: VirtualRegister, count: Int, size: Int)?
    /// With `dynamic`: the components selected inside the element.
    var within: [Int] = []
}

extension FunctionLowerer {
    var frameIndex: Int { state.frames.count - 1 }

    func slot(_ frame: Int, _ id: VariableID) -> VariableSlot? {
        id < state.frames[frame].variables.count ? state.frames[frame].variables[id] : nil
    }

    /// Follows `thread T &` aliases to the variable that owns the registers.
    func resolveRoot(_ frame: Int, _ id: VariableID, _ path: [Int]?) -> (frame: Int, id: VariableID, path: [Int]?) {
        guard let slot = slot(frame, id), slot.isReference, case .reference(let f, let v, let p) = slot.storage else {
            return (frame, id, path)
        }
        let composed = path.map { $0.map { p[$0] } } ?? p
        return resolveRoot(f, v, composed)
    }

    func rootComponents(_ frame: Int, _ id: VariableID) -> [VirtualRegister] {
        slot(frame, id)?.components ?? []
    }

    func declare(_ id: VariableID, storage: VariableStorage, pinnedCount: Int? = nil) {
        state.frames[frameIndex].variables[id] = VariableSlot(
            storage: storage, regionDepth: state.regionDepth, divergentDepth: state.divergentDepth,
            pinnedCount: pinnedCount)
    }

    /// Declares a local holding `values`; arrays indexed dynamically get a register group.
    func declareValue(_ id: VariableID, type: KType, values: [VirtualRegister], pinned: Bool) throws {
        if pinned, let shape = elementShape(type), shape.count * shape.size == values.count, !values.isEmpty {
            let group = newUnit(size: values.count, prologue: false)
            var members = [VirtualRegister](repeating: 0, count: values.count)
            for e in 0..<shape.count {
                for w in 0..<shape.size {
                    let member = group[w * shape.count + e]
                    state.isHome[member] = true
                    state.isUniform[member] = false
                    members[e * shape.size + w] = member
                    emitBody(IRInstruction(opcode: .mov, a: member, b: values[e * shape.size + w]))
                }
            }
            declare(id, storage: .components(members), pinnedCount: shape.count)
            return
        }
        declare(id, storage: .components(stable(values)))
    }

    /// Gives every component of a variable that a region assigns a home register, so the
    /// region's writes land in registers that are the same on every path.
    func ensureHomes(_ frame: Int, _ id: VariableID) {
        let root = resolveRoot(frame, id, nil)
        guard let slot = slot(root.frame, root.id), slot.pinnedCount == nil,
              let registers = slot.components else { return }
        var homes = registers
        var changed = false
        for (index, register) in registers.enumerated() where !state.isHome[register] {
            let home = newHome(uniform: state.isUniform[register])
            emitBody(IRInstruction(opcode: .mov, a: home, b: register))
            homes[index] = home
            changed = true
        }
        if changed { state.frames[root.frame].variables[root.id] = slot.with(storage: .components(homes)) }
    }

    /// Opens a control-flow region that may write `assigned` (variables of the current frame).
    func enterRegion(assigned: Set<VariableID>) {
        for id in assigned.sorted() where slot(frameIndex, id) != nil {
            ensureHomes(frameIndex, id)
        }
        state.regionDepth += 1
    }

    func exitRegion() { state.regionDepth -= 1 }

    /// Homes of the variables a region assigns (for watching a uniform loop attempt).
    func homes(of assigned: Set<VariableID>) -> Set<VirtualRegister> {
        var result = Set<VirtualRegister>()
        for id in assigned where slot(frameIndex, id) != nil {
            let root = resolveRoot(frameIndex, id, nil)
            for register in rootComponents(root.frame, root.id) where state.isHome[register] { result.insert(register) }
        }
        return result
    }

    // MARK: - Reads and writes

    func load(_ lvalue: LValue) throws -> [VirtualRegister] {
        let registers = rootComponents(lvalue.frame, lvalue.variable)
        guard let dynamic = lvalue.dynamic else { return lvalue.components.map { registers[$0] } }
        // No elements (a pointer at nothing): every index is out of range and reads 0. An
        // `ldk` or `ldr` of zero elements is a library the verifier refuses.
        guard dynamic.count > 0 else { return lvalue.within.map { _ in zero } }
        let slot = slot(lvalue.frame, lvalue.variable)
        let identity = lvalue.components == Array(0..<registers.count)
        return lvalue.within.map { w in
            if identity, slot?.pinnedCount == dynamic.count {
                return loadRegisterArray(base: registers[w], count: dynamic.count, index: dynamic.index)
            }
            let elements = (0..<dynamic.count).map { registers[lvalue.components[$0 * dynamic.size + w]] }
            return loadIndexed(elements, index: dynamic.index)
        }
    }

    /// `elements[index]`: one `ldk` when every element is a known constant (a `const`
    /// local table), otherwise a copy into a register group and `ldr`.
    func loadIndexed(_ elements: [VirtualRegister], index: VirtualRegister) -> VirtualRegister {
        guard !elements.isEmpty else { return zero }
        if state.knownConstant[index] == nil, elements.count <= Int(UInt16.max),
           elements.allSatisfy({ state.knownConstant[$0] != nil }) {
            let start = poolArray(elements.map { state.knownConstant[$0]! })
            let register = newRegister()
            state.isUniform[register] = state.isUniform[index]
            emitBody(IRInstruction(opcode: .ldk, a: register, b: index, imm: UInt32(start), literalCount: UInt16(elements.count)))
            return register
        }
        return loadIndexedInRegisters(elements, index: index)
    }

    /// `elements[index]` (0 out of range): copies the values into a register group and `ldr`s.
    func loadIndexedInRegisters(_ elements: [VirtualRegister], index: VirtualRegister) -> VirtualRegister {
        if let i = state.knownConstant[index] {
            return Int(i) < elements.count ? elements[Int(i)] : zero
        }
        let group = newUnit(size: elements.count, prologue: false)
        for (member, value) in zip(group, elements) {
            emitBody(IRInstruction(opcode: .mov, a: member, b: value))
        }
        return loadRegisterArray(base: group[0], count: elements.count, index: index)
    }

    func loadRegisterArray(base: VirtualRegister, count: Int, index: VirtualRegister) -> VirtualRegister {
        let register = newRegister()
        state.isUniform[register] = false
        emitBody(IRInstruction(opcode: .ldr, a: register, b: base, c: index, imm: UInt32(count)))
        return register
    }

    func store(_ lvalue: LValue, _ values: [VirtualRegister]) throws {
        guard let dynamic = lvalue.dynamic else {
            try write(lvalue.frame, lvalue.variable, lvalue.components, values, extraMask: nil)
            return
        }
        let registers = rootComponents(lvalue.frame, lvalue.variable)
        // No elements: no index matches, so the write does nothing (see `load`).
        guard dynamic.count > 0, let slot = slot(lvalue.frame, lvalue.variable) else { return }
        if lvalue.components == Array(0..<registers.count), slot.pinnedCount == dynamic.count {
            let mask = state.divergentDepth > slot.divergentDepth ? maskRegister : one
            for (w, value) in zip(lvalue.within, values) {
                emitBody(IRInstruction(opcode: .str, a: registers[w], b: value, c: dynamic.index, d: mask,
                                       imm: UInt32(dynamic.count)))
            }
            bindEvent(lvalue.frame, lvalue.variable)
            return
        }
        // Not a register group: one masked write per element (a compare chain).
        for e in 0..<dynamic.count {
            let hit = op(.ieq, dynamic.index, constant(UInt32(e)))
            if state.knownConstant[hit] == 0 { continue }
            let targets = lvalue.within.map { lvalue.components[e * dynamic.size + $0] }
            try write(lvalue.frame, lvalue.variable, targets, values, extraMask: hit)
        }
    }

    /// Writes components `indexes` of a variable: renaming at its own nesting level,
    /// a (masked) write of its home registers from inside control flow.
    func write(_ frame: Int, _ id: VariableID, _ indexes: [Int], _ values: [VirtualRegister],
               extraMask: VirtualRegister?) throws {
        guard let slot = slot(frame, id), var registers = slot.components else { return }
        let inPlace = state.regionDepth > slot.regionDepth || slot.pinnedCount != nil
        // Lanes that are inactive now but will read the variable again must keep their
        // value: those inside a divergent region opened since the declaration, and — for
        // a caller's variable written through `thread T &` — lanes that returned early
        // from the callee (they are retired from the callee only).
        var needsMask = state.divergentDepth > slot.divergentDepth
        if frame < frameIndex, state.mask != state.frames[frame + 1].entryMask { needsMask = true }
        var mask: VirtualRegister? = needsMask ? maskRegister : nil
        if let extraMask { mask = mask.map { op(.and, $0, extraMask) } ?? extraMask }
        if !inPlace {
            for (index, value) in zip(indexes, values) {
                if let mask {
                    registers[index] = op(.sel, mask, value, registers[index])
                } else {
                    registers[index] = stable([value])[0]
                }
            }
            state.frames[frame].variables[id] = slot.with(storage: .components(registers))
            bindEvent(frame, id)
            return
        }
        for (index, value) in zip(indexes, values) {
            let home = registers[index]
            guard state.isHome[home] else {
                throw fail("internal compiler error: write to a variable without a home register", SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1)))
            }
            try writeHome(home, value, mask: mask)
        }
        bindEvent(frame, id)
    }
}
