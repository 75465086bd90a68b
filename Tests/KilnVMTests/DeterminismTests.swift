import Testing
import KilnBytecode
@testable import KilnVM

@Suite struct DeterminismTests {
    /// The same program over the same inputs gives the same bits, across executors and runs,
    /// and the lane loops agree with the scalar `KilnMath` functions.
    @Test func sameInputsSameBits() throws {
        let ops: [Opcode] = [.fsin, .fcos, .fexp, .flog, .fpow, .fatan2, .ftanh, .fsqrt]
        var body: [Instruction] = []
        for (k, op) in ops.enumerated() { body.append(Instruction(op, a: UInt16(2 + k), b: 0, c: 1)) }
        let program = TestProgram(registers: 2 + UInt16(ops.count), body: body)
        let xs = (0..<laneCount).map { Float($0) * 13.7 - 300 }
        let ys = (0..<laneCount).map { Float($0) * 0.1 }
        let first = try program.run([0: bits(xs), 1: bits(ys)])
        let second = try program.run([0: bits(xs), 1: bits(ys)])
        for k in 0..<ops.count {
            #expect(first.words(UInt16(2 + k)) == second.words(UInt16(2 + k)))
        }
        #expect(first.floats(2) == xs.map { KilnMath.fastSinAny($0) })
        #expect(first.floats(4) == xs.map { KilnMath.fastExp($0) })
        #expect(same(first.floats(6), zip(xs, ys).map { KilnMath.fastPow($0, $1) }))
        #expect(same(first.floats(5), xs.map { KilnMath.fastLog($0) }))
        #expect(same(first.floats(7), zip(xs, ys).map { KilnMath.fastAtan2($0, $1) }))
    }
}
