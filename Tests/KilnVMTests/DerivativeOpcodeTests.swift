import KilnBytecode
import Testing
@testable import KilnVM

/// `dfdx`, `dfdy`, `dfdxc`, `dfdyc` on every lane against the opcode table's rule, the
/// difference of two lanes of the same 2×2 quad, for arbitrary bits (NaNs, ±0, ±∞), with
/// the destination fresh and in place of the operand.
@Suite struct DerivativeOpcodeTests {
    static func expected(_ source: [UInt32], far: (Int) -> Int, near: (Int) -> Int) -> [UInt32] {
        (0..<laneCount).map { l in (Float(bitPattern: source[far(l)]) - Float(bitPattern: source[near(l)])).bitPattern }
    }

    @Test func everyLaneIsTheDifferenceInsideItsQuad() throws {
        var g = MathAccuracyTests.Generator(state: 2_026)
        let specials: [Float] = [.nan, -.nan, .infinity, -.infinity, 0, -0.0, 1, 0x1p-149]
        let source: [UInt32] = (0..<laneCount).map { l in
            l % 11 == 3 ? specials[l % specials.count].bitPattern : g.anyBits().bitPattern
        }
        let rules: [(Opcode, (Int) -> Int, (Int) -> Int)] = [
            (.dfdx, { $0 | 1 }, { $0 & ~1 }),
            (.dfdy, { $0 | 2 }, { $0 & ~2 }),
            (.dfdxc, { ($0 & ~3) | 1 }, { $0 & ~3 }),
            (.dfdyc, { ($0 & ~3) | 2 }, { $0 & ~3 }),
        ]
        for (opcode, far, near) in rules {
            let want = Self.expected(source, far: far, near: near)
            let fresh = TestProgram(registers: 2, body: [Instruction(opcode, a: 0, b: 1)])
            let inPlace = TestProgram(registers: 2, body: [Instruction(opcode, a: 1, b: 1)])
            let got = try fresh.run([1: source]).words(0), gotInPlace = try inPlace.run([1: source]).words(1)
            // NaN results compare as NaN (x86 keeps the first NaN operand's payload either way).
            let same = { (x: [UInt32], y: [UInt32]) in
                zip(x, y).allSatisfy { a, b in a == b || (Float(bitPattern: a).isNaN && Float(bitPattern: b).isNaN) }
            }
            #expect(same(got, want), "\(opcode)")
            #expect(same(gotInPlace, want), "\(opcode) in place")
        }
    }
}
