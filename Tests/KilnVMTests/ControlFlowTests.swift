import Testing
import Foundation
import KilnBytecode
@testable import KilnVM

/// The SPMD rules of docs/vm.md: masked writes via `sel`, empty arms skipped with `jnone`,
/// loops until the mask is empty with `jany`, uniform jumps, the prologue, the budget.
@Suite struct ControlFlowTests {
    /// `if (x < 32) y = x * 2; else y = 100;` compiled as two masked arms. The then-arm also
    /// writes r9 unmasked, a marker that shows whether the arm ran at all.
    static func divergentIf() -> TestProgram {
        TestProgram(registers: 10, constants: [32, 2, 100, 7], body: [
            Instruction(.const, a: 1, imm: 0),
            Instruction(.ult, a: 2, b: 0, c: 1),             // 1: mask = x < 32
            Instruction(.jnone, a: 2, imm: 7),               // 2: skip the then-arm if empty
            Instruction(.const, a: 3, imm: 1),
            Instruction(.imul, a: 4, b: 0, c: 3),
            Instruction(.sel, a: 5, b: 2, c: 4, d: 5),       // 5: masked write of y
            Instruction(.const, a: 9, imm: 3),               // 6: marker
            Instruction(.lnot, a: 6, b: 2),                  // 7: else mask
            Instruction(.jnone, a: 6, imm: 11),
            Instruction(.const, a: 7, imm: 2),
            Instruction(.sel, a: 5, b: 6, c: 7, d: 5),       // 10
        ])
    }

    @Test func divergentArmsAreMasked() throws {
        let e = try Self.divergentIf().run([0: (0..<laneCount).map { UInt32($0) }])
        let expected: [UInt32] = (0..<laneCount).map { (lane: Int) -> UInt32 in lane < 32 ? UInt32(lane * 2) : 100 }
        #expect(e.words(5) == expected)
        #expect(e.words(9).allSatisfy { $0 == 7 })
    }

    @Test func emptyArmIsSkipped() throws {
        let e = try Self.divergentIf().run([0: [40, 50]])
        #expect(e.words(5).allSatisfy { $0 == 100 })
        #expect(e.words(9).allSatisfy { $0 == 0 })          // the then-arm never ran
        // The trace shows the jump straight from `jnone` (2) to the else arm (7).
        let program = Self.divergentIf()
        let executor = try Executor(program.prepared, resources: DrawResources())
        for l in 0..<laneCount { executor.lanes(0)[l] = 40 }
        let start = program.prepared.bodyStart
        let executed = try executor.trace(lane: 0).map { $0.instruction - start }
        #expect(executed == [0, 1, 2, 7, 8, 9, 10, 11])
    }

    /// `for (i = 0; i < n; i++) acc += 3;` with n = lane % 5: each lane runs its own count;
    /// the loop runs until the mask is empty.
    @Test func loopRunsUntilMaskIsEmpty() throws {
        let program = TestProgram(registers: 8, constants: [0, 1, 3], body: [
            Instruction(.const, a: 1, imm: 0),               // i = 0
            Instruction(.const, a: 2, imm: 0),               // acc = 0
            Instruction(.const, a: 5, imm: 1),
            Instruction(.const, a: 6, imm: 2),
            Instruction(.ilt, a: 3, b: 1, c: 0),             // 4: active = i < n
            Instruction(.jnone, a: 3, imm: 12),              // no lane loops at all: skip to the end
            Instruction(.iadd, a: 4, b: 2, c: 6),            // 6: loop head
            Instruction(.sel, a: 2, b: 3, c: 4, d: 2),
            Instruction(.iadd, a: 1, b: 1, c: 5),
            Instruction(.ilt, a: 7, b: 1, c: 0),
            Instruction(.and, a: 3, b: 3, c: 7),             // retire lanes that finished
            Instruction(.jany, a: 3, imm: 6),                // 11: back edge while any lane is active
        ])
        let n = (0..<laneCount).map { UInt32($0 % 5) }
        let e = try program.run([0: n])
        #expect(e.words(2) == n.map { $0 * 3 })
    }

    @Test func uniformJumps() throws {
        let program = TestProgram(registers: 3, constants: [1, 2], body: [
            Instruction(.jz, a: 0, imm: 3),
            Instruction(.const, a: 1, imm: 0),
            Instruction(.jmp, imm: 4),
            Instruction(.const, a: 1, imm: 1),
            Instruction(.jnz, a: 0, imm: 6),
            Instruction(.const, a: 2, imm: 1),
        ])
        // Lane 0 decides: other lanes' values do not matter.
        let taken = try program.run([0: [0, 5, 5]])
        #expect(taken.words(1).allSatisfy { $0 == 2 })
        #expect(taken.words(2).allSatisfy { $0 == 2 })
        let notTaken = try program.run([0: [5, 0, 0]])
        #expect(notTaken.words(1).allSatisfy { $0 == 1 })
        #expect(notTaken.words(2).allSatisfy { $0 == 0 })
    }

    @Test func prologueValuesAreVisibleInTheBody() throws {
        let program = TestProgram(registers: 4, uniformRegisters: 2, constants: [Float(3).bitPattern], prologue: [
            Instruction(.arg, a: 0, imm: 0),
            Instruction(.fmul, a: 1, b: 0, c: 0),
        ], body: [
            Instruction(.fadd, a: 3, b: 1, c: 2),
        ])
        let executor = try Executor(program.prepared, resources: DrawResources(uniforms: [Float(1.5).bitPattern]))
        for batch in 0..<3 {
            let input = executor.floatLanes(2)
            for l in 0..<laneCount { input[l] = Float(batch * 100 + l) }
            try executor.run()
            #expect(executor.floats(3) == (0..<laneCount).map { 2.25 + Float(batch * 100 + $0) })
        }
        #expect(executor.floats(1).allSatisfy { $0 == 2.25 })
    }

    @Test func budgetStopsARunawayLoopAndNamesItsLine() throws {
        let program = TestProgram(registers: 2, body: [
            Instruction(.iadd, a: 0, b: 0, c: 1),
            Instruction(.jmp, imm: 0),                        // for (;;) {}
        ], lines: [(0, 6), (1, 7)], sourceName: "loop.metal")
        var limits = ExecutionLimits()
        limits.instructionBudgetPerLane = 1000
        #expect {
            _ = try program.run(resources: DrawResources(limits: limits))
        } throws: { error in
            guard let error = error as? VMError else { return false }
            return error.message.contains("instructionBudgetPerLane = 1000")
                && error.message.contains("loop.metal:7") && error.location?.line == 7
                && error.instruction == Int(program.prepared.bodyStart) + 1
        }
        // The default budget stops `for (;;) {}` too, well under a second even in a debug
        // build (thread CPU time: the test runner and the machine are busy with other work).
        let spin = TestProgram(registers: 1, body: [Instruction(.jmp, imm: 0)])
        let start = ThroughputBenchmark.threadNanoseconds()
        #expect(throws: VMError.self) { _ = try spin.run() }
        #expect(ThroughputBenchmark.threadNanoseconds() - start < 1_000_000_000)
    }

    @Test func jumpsOutsideTheRangeEndIt() throws {
        let program = TestProgram(registers: 1, constants: [5], body: [
            Instruction(.jmp, imm: 500),
            Instruction(.const, a: 0, imm: 0),
        ])
        #expect(try program.run().words(0).allSatisfy { $0 == 0 })
    }
}
