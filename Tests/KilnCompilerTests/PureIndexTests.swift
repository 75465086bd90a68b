import KilnBytecode
import Testing
@testable import KilnCompiler

/// `PureIndex`, the prologue's map from pure instructions to the registers computing them:
/// the same answers as a linear search over what was stored, across growth, keys that
/// differ in one field only, and copies that stay independent (a copy of the lowering
/// state is a snapshot).
@Suite struct PureIndexTests {
    func key(_ opcode: Opcode, _ b: Int, _ c: Int = -1, _ d: Int = -1, imm: UInt32 = 0) -> PureKey {
        PureKey(opcode: opcode, b: b, c: c, d: d, imm: imm, mode: 0, literalCount: 0)
    }

    @Test func agreesWithAListAcrossGrowth() {
        var index = PureIndex()
        var stored: [(PureKey, Int)] = []
        let opcodes: [Opcode] = [.fadd, .fmul, .fsub, .iadd, .sel, .fsin, .texsize]
        var state: UInt32 = 0x2468_ACE1
        for n in 0..<3_000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let b = Int(state % 40) - 1, c = Int((state >> 8) % 40) - 1, d = n % 5 == 0 ? Int((state >> 16) % 8) : -1
            let k = key(opcodes[Int(state >> 24) % opcodes.count], b, c, d, imm: n % 7 == 0 ? state % 4 : 0)
            let register = n * 3
            index[k] = register
            if let at = stored.firstIndex(where: { $0.0 == k }) { stored[at].1 = register } else { stored.append((k, register)) }
        }
        #expect(index.count == stored.count)
        for (k, register) in stored { #expect(index[k] == register) }
    }

    @Test func keysDifferingInOneFieldAreDistinct() {
        var index = PureIndex()
        let base = key(.fadd, 3, 4)
        index[base] = 1
        index[key(.fmul, 3, 4)] = 2
        index[key(.fadd, 4, 3)] = 3
        index[key(.fadd, 3, 4, 5)] = 4
        index[key(.fadd, 3, 4, imm: 1)] = 5
        #expect(index[base] == 1)
        #expect(index[key(.fmul, 3, 4)] == 2)
        #expect(index[key(.fadd, 4, 3)] == 3)
        #expect(index[key(.fadd, 3, 4, 5)] == 4)
        #expect(index[key(.fadd, 3, 4, imm: 1)] == 5)
        #expect(index[key(.fsub, 3, 4)] == nil)
        #expect(index.count == 5)
    }

    @Test func aCopyIsASnapshot() {
        var index = PureIndex()
        #expect(index[key(.fadd, 1, 2)] == nil)
        index[key(.fadd, 1, 2)] = 10
        let saved = index
        index[key(.fadd, 1, 2)] = 11
        index[key(.fmul, 1, 2)] = 20
        #expect(saved[key(.fadd, 1, 2)] == 10 && saved[key(.fmul, 1, 2)] == nil && saved.count == 1)
        #expect(index[key(.fadd, 1, 2)] == 11 && index[key(.fmul, 1, 2)] == 20 && index.count == 2)
    }
}
