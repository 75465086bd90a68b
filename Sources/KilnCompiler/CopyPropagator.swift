/// Removes `mov copy, original` when every read of the copy can read the original instead.
///
/// Lowering copies a variable's home before an assignment that reads it (`z = float2(z.x·z.x
/// − z.y·z.y, 2·z.x·z.y) + c` copies both components of `z`, because the first component's
/// write would otherwise change what the second reads) and before `i++` hands back the old
/// value. Most of those copies are read only before the home is written again: then the
/// reads may name the home itself, and the move goes. In a loop that is a lane-wide
/// instruction saved per iteration and batch (art_julia's escape loop: three of 29).
///
/// The rule, within one basic block: the copy is defined once (by this move) and is a
/// single register, as is the original; each later read of the copy, up to the first
/// instruction that writes the original's unit (its reads included) or the end of the
/// block, is rewritten to read the original; the move is removed when that covered every
/// read. Only plain operands are rewritten (`unary`, `binary`, `ternary` shapes and a
/// conditional jump's mask): texture and register-group instructions name runs of registers
/// by their first member. Debug events that name the copy (an inlined helper's parameter is
/// bound to a copy of the argument) are renamed to the original when they all lie in that
/// range: the pixel debugger reads a bound register when it meets the event, and there the
/// original still holds the copy's bits; a copy named after the range keeps its move.
enum CopyPropagator {
    static func run(_ state: inout LoweringState) {
        // No move, no copy to propagate: no tables to make.
        guard state.body.contains(where: { $0.isMove }) else { return }
        let registerCount = state.registerUnit.count
        var definitions = PassTable(repeating: 0, count: registerCount)
        var uses = PassTable(repeating: 0, count: registerCount)
        /// How many debug markers name each register.
        var markersNaming = PassTable(repeating: 0, count: registerCount)
        for instruction in state.prologue {
            instruction.forEachRead { if $0 >= 0 { uses[$0] += 1 } }
        }
        for instruction in state.body {
            instruction.forEachRead { if $0 >= 0 { uses[$0] += 1 } }
            if let register = instruction.writes, register >= 0 { definitions[register] += 1 }
        }
        for instruction in state.body where instruction.isDebug {
            state.debugEvents[Int(instruction.imm)].forEachRegister { if $0 >= 0 && $0 < registerCount { markersNaming[$0] += 1 } }
        }
        func names(_ marker: IRInstruction, _ register: VirtualRegister) -> Bool {
            var found = false
            state.debugEvents[Int(marker.imm)].forEachRegister { if $0 == register { found = true } }
            return found
        }
        func isSingle(_ register: VirtualRegister) -> Bool { state.units[state.registerUnit[register]].size == 1 }

        var removed = PassTable(repeating: false, count: state.body.count)
        for index in state.body.indices {
            let move = state.body[index]
            guard move.isMove else { continue }
            let copy = move.a, original = move.b
            // A copy nothing reads but the debugger (a helper's parameter whose reads
            // `ValueNumbering` turned into reads of an earlier result) still goes, with its
            // markers renamed, instead of dying in the next sweep and taking the value away.
            guard copy >= 0, original >= 0, copy != original, definitions[copy] == 1,
                  uses[copy] > 0 || markersNaming[copy] > 0,
                  isSingle(copy), isSingle(original),
                  !state.units[state.registerUnit[copy]].isPrologue else { continue }
            let originalUnit = state.registerUnit[original]
            var rewrites: [Int] = [], markers: [Int] = []
            var covered = 0
            scan: for later in (index + 1)..<state.body.count {
                // Every read and every marker found: the rest of the block cannot matter
                // (without this, a copy of a value nothing overwrites scanned to the block's
                // end — all of an unrolled shader).
                if covered == uses[copy] && markers.count == markersNaming[copy] { break }
                let instruction = state.body[later]
                if instruction.isDebug {
                    if markersNaming[copy] > 0 && names(instruction, copy) { markers.append(later) }
                    continue
                }
                if instruction.isLabel { break }
                var readsCopy = false
                instruction.forEachRead { if $0 == copy { readsCopy = true } }
                if readsCopy {
                    switch instruction.shape {
                    case .unary, .binary, .ternary, .conditionalJump:
                        rewrites.append(later)
                        instruction.forEachRead { if $0 == copy { covered += 1 } }
                    default:
                        break scan
                    }
                }
                // Whatever touches the original's unit ends the range: a write changes it
                // (a group instruction names the unit through its first member).
                var touchesOriginal = false
                if let written = instruction.writes, written >= 0, state.registerUnit[written] == originalUnit {
                    touchesOriginal = true
                }
                switch instruction.shape {
                case .loadRegisterArray, .storeRegisterArray, .texture, .textureWrite:
                    instruction.forEachRead { if $0 >= 0 && state.registerUnit[$0] == originalUnit { touchesOriginal = true } }
                default:
                    break
                }
                if touchesOriginal { break }
                switch instruction.shape {
                case .jump, .conditionalJump, .none: break scan
                default: continue
                }
            }
            guard covered == uses[copy], markers.count == markersNaming[copy] else { continue }
            for marker in markers { state.debugEvents[Int(state.body[marker].imm)].rename(copy, to: original) }
            if !markers.isEmpty { markersNaming[original] += markers.count }
            for later in rewrites {
                if state.body[later].a == copy && state.body[later].shape == .conditionalJump { state.body[later].a = original }
                if state.body[later].b == copy { state.body[later].b = original }
                if state.body[later].c == copy { state.body[later].c = original }
                if state.body[later].d == copy { state.body[later].d = original }
            }
            uses[original] += covered - 1
            removed[index] = true
        }
        state.body.removeFlagged(removed)
    }
}
