import KilnBytecode
import Testing
@testable import KilnCompiler

/// `LoopInvariantHoisting` on hand-written bodies: what moves, where to, and the loops and
/// values it must leave alone (shapes the lowering may not produce today, so that a change
/// there cannot silently make the pass wrong).
@Suite struct LoopInvariantHoistingPassTests {
    /// A state of `count` one-register units with `body`.
    static func state(_ body: [IRInstruction], registers count: Int) -> LoweringState {
        var state = LoweringState()
        for register in 0..<count {
            state.units.append(RegisterUnit(size: 1, isPrologue: false))
            state.registerUnit.append(register)
            state.registerOffset.append(0)
            state.isUniform.append(false)
            state.isHome.append(false)
            state.knownConstant.append(nil)
        }
        state.body = body
        return state
    }

    static func opcodes(_ body: [IRInstruction]) -> [String] {
        body.map { $0.isLabel ? "@\($0.imm)" : "\($0.opcode)" }
    }

    /// An invariant chain moves before the loop's label, in order; the accumulator and the
    /// condition (written on every pass) stay.
    @Test func anInvariantChainMovesBeforeTheLoop() {
        var state = Self.state([
            IRInstruction(opcode: .fadd, a: 1, b: 0, c: 0),
            IRInstruction(opcode: .fadd, a: 4, b: 0, c: 0),
            .label(1),
            IRInstruction(opcode: .fmul, a: 2, b: 1, c: 1),      // invariant
            IRInstruction(opcode: .fsqrt, a: 3, b: 2),          // invariant, reads the one above
            IRInstruction(opcode: .fadd, a: 4, b: 4, c: 3),     // the accumulator: written twice
            IRInstruction(opcode: .flt, a: 5, b: 4, c: 1),      // reads the accumulator
            IRInstruction(opcode: .jany, a: 5, imm: 1),
            IRInstruction(opcode: .ret),
        ], registers: 6)
        #expect(LoopInvariantHoisting.run(&state, keep: [0]) == 2)
        #expect(Self.opcodes(state.body) == ["fadd", "fadd", "fmul", "fsqrt", "@1", "fadd", "flt", "jany", "ret"])
    }

    /// A loop entered by a jump to a label inside it (here its condition at the bottom) has no
    /// single place before it that every entry passes: nothing moves.
    @Test func aLoopEnteredByAJumpKeepsItsCode() {
        var state = Self.state([
            IRInstruction(opcode: .fadd, a: 1, b: 0, c: 0),
            IRInstruction(opcode: .jmp, imm: 2),
            .label(1),
            IRInstruction(opcode: .fmul, a: 2, b: 1, c: 1),      // invariant, but not movable
            IRInstruction(opcode: .fadd, a: 3, b: 3, c: 2),
            .label(2),
            IRInstruction(opcode: .flt, a: 4, b: 3, c: 1),
            IRInstruction(opcode: .jany, a: 4, imm: 1),
            IRInstruction(opcode: .ret),
        ], registers: 5)
        let before = Self.opcodes(state.body)
        #expect(LoopInvariantHoisting.run(&state, keep: [0]) == 0)
        #expect(Self.opcodes(state.body) == before)
    }

    /// Two loops whose regions overlap without one containing the other (lowering makes
    /// none): moving code out of one would reorder part of the other, so nothing moves.
    @Test func overlappingLoopsKeepTheirCode() {
        var state = Self.state([
            IRInstruction(opcode: .fadd, a: 1, b: 0, c: 0),
            .label(1),
            IRInstruction(opcode: .fmul, a: 2, b: 1, c: 1),      // invariant in both
            .label(2),
            IRInstruction(opcode: .fadd, a: 3, b: 3, c: 2),
            IRInstruction(opcode: .jany, a: 3, imm: 1),         // loop 1 ends inside loop 2
            IRInstruction(opcode: .fsqrt, a: 4, b: 1),          // invariant in loop 2
            IRInstruction(opcode: .fadd, a: 3, b: 3, c: 4),
            IRInstruction(opcode: .jany, a: 3, imm: 2),
            IRInstruction(opcode: .ret),
        ], registers: 5)
        let before = Self.opcodes(state.body)
        #expect(LoopInvariantHoisting.nestedLoops(state.body).isEmpty)
        #expect(LoopInvariantHoisting.run(&state, keep: [0]) == 0)
        #expect(Self.opcodes(state.body) == before)
    }

    /// A result read before its one write — on the next pass of an outer loop, the value the
    /// inner loop left — stays in the inner loop: moved, a pass whose inner loop ran no
    /// iteration would read the new value instead of the old. Outputs and inputs (`keep`)
    /// stay too.
    @Test func valuesReadBeforeTheirWriteAndKeptRegistersStay() {
        var state = Self.state([
            IRInstruction(opcode: .fadd, a: 1, b: 0, c: 0),
            .label(1),                                           // outer loop
            IRInstruction(opcode: .fadd, a: 5, b: 5, c: 6),      // reads 6 before its write below
            IRInstruction(opcode: .flt, a: 7, b: 5, c: 1),
            IRInstruction(opcode: .jnone, a: 7, imm: 3),
            .label(2),                                           // inner loop
            IRInstruction(opcode: .fmul, a: 6, b: 1, c: 1),      // invariant in both loops
            IRInstruction(opcode: .fmul, a: 8, b: 1, c: 0),      // invariant, but an output
            IRInstruction(opcode: .fadd, a: 5, b: 5, c: 8),
            IRInstruction(opcode: .jany, a: 7, imm: 2),
            .label(3),
            IRInstruction(opcode: .jany, a: 7, imm: 1),
            IRInstruction(opcode: .ret),
        ], registers: 9)
        let before = Self.opcodes(state.body)
        #expect(LoopInvariantHoisting.run(&state, keep: [0, 8]) == 0)
        #expect(Self.opcodes(state.body) == before)
    }
}
