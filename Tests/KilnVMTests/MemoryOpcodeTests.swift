import Testing
import KilnBytecode
@testable import KilnVM

@Suite struct MemoryOpcodeTests {
    @Test func constantsArgumentsAndSelect() throws {
        let program = TestProgram(registers: 6, constants: [7, Float(2.5).bitPattern], body: [
            Instruction(.const, a: 0, imm: 1),
            Instruction(.arg, a: 1, imm: 1),
            Instruction(.arg, a: 2, imm: 9),                 // beyond the uniform block → 0
            Instruction(.sel, a: 3, b: 4, c: 0, d: 1),
            Instruction(.mov, a: 5, b: 0),
        ])
        let e = try program.run([4: [1, 0]], resources: DrawResources(uniforms: [11, 12]))
        #expect(e.floats(0).allSatisfy { $0 == 2.5 })
        #expect(e.words(1).allSatisfy { $0 == 12 })
        #expect(e.words(2).allSatisfy { $0 == 0 })
        #expect(e.words(3).prefix(4) == [Float(2.5).bitPattern, 12, Float(2.5).bitPattern, 12])
        #expect(e.words(5) == e.words(0))
    }

    /// Registers 4…6 form an array; r1 is the index per lane.
    @Test func registerArrays() throws {
        let program = TestProgram(registers: 8, body: [
            Instruction(.ldr, a: 0, b: 4, c: 1, imm: 3),
            Instruction(.str, a: 4, b: 2, c: 1, d: 3, imm: 3),
        ])
        let e = try program.run([1: [0, 1, 2, 3, 0xFFFF_FFFF], 2: [99], 3: [1, 1, 0, 1, 1], 4: [40], 5: [50], 6: [60], 7: [70]])
        #expect(e.words(0).prefix(5) == [40, 50, 60, 0, 0])
        // Lane 0 stored into r4, lane 1 into r5; lane 2 was masked off; 3 and 4 are out of range.
        #expect(e.words(4).prefix(5) == [99, 40, 40, 40, 40])
        #expect(e.words(5).prefix(5) == [50, 99, 50, 50, 50])
        #expect(e.words(6).prefix(5) == [60, 60, 60, 60, 60])
        #expect(e.words(7).allSatisfy { $0 == 70 })           // never written past the array
    }

    @Test func constantArrays() throws {
        let program = TestProgram(registers: 2, constants: [1, 10, 20, 30, 40], body: [
            Instruction(.ldk, a: 0, b: 1, d: 3, imm: 1),
        ])
        let e = try program.run([1: [0, 2, 3, 0xFFFF_FFFF]])
        #expect(e.words(0).prefix(4) == [10, 30, 0, 0])
        // An array that would run past the pool reads 0 there.
        let past = TestProgram(registers: 2, constants: [1, 2], body: [Instruction(.ldk, a: 0, b: 1, d: 9, imm: 1)])
        #expect(try past.run([1: [0, 1, 5]]).words(0).prefix(3) == [2, 0, 0])
    }

    @Test func buffers() throws {
        let program = TestProgram(registers: 3, body: [
            Instruction(.ldb, a: 0, b: 1, imm: 1),
            Instruction(.ldb, a: 2, b: 1, imm: 5),           // unbound slot
        ])
        let e = try program.run([1: [0, 2, 3, 0xFFFF_FFFF]], resources: DrawResources(buffers: [[9], [5, 6, 7]]))
        #expect(e.words(0).prefix(4) == [5, 7, 0, 0])
        #expect(e.words(2).allSatisfy { $0 == 0 })
    }
}
