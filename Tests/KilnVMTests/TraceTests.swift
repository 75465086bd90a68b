import Testing
import KilnBytecode
@testable import KilnVM

@Suite struct TraceTests {
    @Test func traceRecordsInstructionsLocationsAndLaneValues() throws {
        let program = TestProgram(registers: 8, constants: [Float(2).bitPattern, 1], body: [
            Instruction(.const, a: 1, imm: 0),
            Instruction(.fmul, a: 2, b: 0, c: 1),
            Instruction(.const, a: 3, imm: 1),
            Instruction(.str, a: 5, b: 2, c: 3, d: 4, imm: 2),   // r5+1 := r2 where r4 ≠ 0
            Instruction(.jmp, imm: 6),
            Instruction(.fadd, a: 2, b: 2, c: 2),                // skipped
            Instruction(.texsize, a: 6, imm: 0),
        ], lines: [(0, 3), (3, 4), (6, 5)])
        let executor = try Executor(program.prepared, resources: DrawResources())
        for l in 0..<laneCount {
            executor.floatLanes(0)[l] = Float(l)
            executor.lanes(4)[l] = UInt32(l % 2)
        }
        let start = program.prepared.bodyStart
        let steps = try executor.trace(lane: 3)
        #expect(steps.map { $0.instruction - start } == [0, 1, 2, 3, 4, 6, 7])
        #expect(steps.map(\.opcode) == [.const, .fmul, .const, .str, .jmp, .texsize, .ret])
        #expect(steps.map { $0.location?.line } == [3, 3, 3, 4, 4, 5, 5])
        #expect(steps[1].writes == [.init(register: 2, value: Float(6).bitPattern)])
        #expect(steps[3].writes == [.init(register: 6, value: Float(6).bitPattern)])
        #expect(steps[4].writes.isEmpty)
        #expect(steps[5].writes == [.init(register: 6, value: 0), .init(register: 7, value: 0)])
        // Lane 2 is masked off for the store: nothing written there.
        let masked = try executor.trace(lane: 2)
        #expect(masked[3].writes.isEmpty)
        // The trace ran the body for every lane, like run().
        #expect(executor.floats(2)[10] == 20)
    }

    @Test func traceHonoursTheBudget() throws {
        let program = TestProgram(registers: 1, body: [Instruction(.jmp, imm: 0)], lines: [(0, 12)])
        var limits = ExecutionLimits()
        limits.instructionBudgetPerLane = 50
        let executor = try Executor(program.prepared, resources: DrawResources(limits: limits))
        #expect(throws: VMError.self) { _ = try executor.trace(lane: 0) }
    }
}
