/// Removes `mov home, temporary` by computing the temporary directly into the home.
///
/// Lowering renames values freely, but results must end in fixed registers (output
/// slots, variable homes written inside loops). When the temporary is defined once, read
/// only by the move, and defined earlier in the same basic block with nothing touching
/// the home in between, the defining instruction can write the home itself.
enum CopyCoalescer {
    static func run(_ state: inout LoweringState) {
        // No move, nothing to coalesce: no tables to make (straight-line shaders rarely have one).
        guard state.body.contains(where: { $0.isMove }) else { return }
        let registerCount = state.registerUnit.count
        var definitions = PassTable(repeating: 0, count: registerCount)
        var uses = PassTable(repeating: 0, count: registerCount)
        var definedAt = PassTable(repeating: -1, count: registerCount)
        for instruction in state.prologue {
            instruction.forEachRead { if $0 >= 0 { uses[$0] += 1 } }
        }
        for (index, instruction) in state.body.enumerated() {
            instruction.forEachRead { if $0 >= 0 { uses[$0] += 1 } }
            if let register = instruction.writes {
                definitions[register] += 1
                definedAt[register] = index
            }
        }
        var removed = PassTable(repeating: false, count: state.body.count)
        for index in state.body.indices {
            let move = state.body[index]
            guard move.isMove else { continue }
            let home = move.a, temporary = move.b
            guard temporary >= 0, definitions[temporary] == 1, uses[temporary] == 1,
                  !state.units[state.registerUnit[temporary]].isPrologue,
                  state.units[state.registerUnit[temporary]].size == 1 else { continue }
            let definition = definedAt[temporary]
            guard definition >= 0, definition < index, !removed[definition] else { continue }
            switch state.body[definition].shape {
            case .unary, .binary, .ternary: break
            default: continue
            }
            let homeUnit = state.registerUnit[home]
            var clear = true
            let unitOf = state.registerUnit
            for between in (definition + 1)..<index {
                let instruction = state.body[between]
                if instruction.isDebug { continue }
                if instruction.isLabel { clear = false; break }
                switch instruction.shape {
                case .jump, .conditionalJump, .none: clear = false
                default: break
                }
                // Group instructions name a whole register group by its first member.
                let byGroup: Bool
                switch instruction.shape {
                case .loadRegisterArray, .storeRegisterArray, .texture, .textureSize, .textureWrite: byGroup = true
                default: byGroup = false
                }
                func touches(_ register: VirtualRegister) -> Bool {
                    byGroup ? register >= 0 && unitOf[register] == homeUnit : register == home
                }
                instruction.forEachRead { if touches($0) { clear = false } }
                if let written = instruction.writes, touches(written) { clear = false }
                if !clear { break }
            }
            guard clear else { continue }
            state.body[definition].a = home
            removed[index] = true
            // Debug markers naming the temporary before the move now find it in the home.
            // (Later ones keep naming the temporary, which has no definition any more: they
            // read "optimised away", since the home may change while the variable does not.)
            for marker in (definition + 1)..<index where state.body[marker].isDebug {
                state.debugEvents[Int(state.body[marker].imm)].rename(temporary, to: home)
            }
        }
        state.body.removeFlagged(removed)
    }
}
