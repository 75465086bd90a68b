import Testing
import KilnBytecode
@testable import KilnVM

/// Nothing traps: random (unverified) code with random operands over random lane values
/// either finishes or stops with the budget error. Preparation sizes the register file to
/// every register named and sends stray jumps to the final `ret`.
@Suite struct RobustnessTests {
    @Test func randomProgramsNeverTrap() throws {
        var g = MathAccuracyTests.Generator(state: 0xDEAD_BEEF)
        var limits = ExecutionLimits()
        limits.instructionBudgetPerLane = 2_000
        let texture = Texture(width: 5, height: 3, pixels: (0..<60).map { Float($0) / 60 })
        let resources = DrawResources(uniforms: [1, 2, 3], buffers: [[4, 5], []], textures: [texture], limits: limits)
        for _ in 0..<150 {
            var body: [Instruction] = []
            for _ in 0..<40 {
                let opcode = Opcode.allCases[Int(g.next() % UInt64(Opcode.allCases.count))]
                func register() -> UInt16 { UInt16(g.next() % 24) }
                var imm = UInt32(truncatingIfNeeded: g.next())
                if g.next() % 2 == 0 { imm %= 50 }
                body.append(Instruction(opcode, a: register(), b: register(), c: register(), d: register(),
                                        imm: imm, mode: UInt8(g.next() % 256)))
            }
            let constants = (0..<8).map { _ in UInt32(truncatingIfNeeded: g.next()) }
            let program = TestProgram(registers: 4, constants: constants, body: body)
            var inputs: [UInt16: [UInt32]] = [:]
            for r in 0..<min(24, program.prepared.registerCount) { inputs[UInt16(r)] = (0..<8).map { _ in UInt32(truncatingIfNeeded: g.next()) } }
            do {
                _ = try program.run(inputs, resources: resources)
            } catch let error as VMError {
                #expect(error.message.contains("instruction budget exceeded"))
            }
        }
    }

    @Test func registerFileIsAlignedAndCoversEveryNamedRegister() throws {
        // The function claims 1 register but its code names register 40 and an array up to 49.
        let program = TestProgram(registers: 1, body: [
            Instruction(.mov, a: 40, b: 0),
            Instruction(.str, a: 45, b: 0, c: 1, d: 2, imm: 5),
        ])
        let executor = try program.run([0: [7], 1: [4], 2: [1]])
        #expect(Int(bitPattern: executor.lanes(0)) % 64 == 0)
        #expect(executor.words(40).allSatisfy { $0 == 7 })
        #expect(executor.words(49).allSatisfy { $0 == 7 })
        #expect(program.prepared.registerCount >= 50)
    }
}
