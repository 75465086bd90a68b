import KilnBytecode
import Testing
@testable import KilnVM

/// Transcendentals whose lanes all hold the same operand are computed once and broadcast
/// (`Execution.sameInAllLanes`): the bits must be those the lane loop gives.
@Suite struct DynamicUniformityTests {
    static let unary: [Opcode] = [.fsin, .fcos, .ftan, .fasin, .facos, .fatan, .fsinh, .fcosh, .ftanh,
                                  .fexp, .fexp2, .flog, .flog2, .flog10, .psin, .pcos, .ptan, .pexp, .pexp2,
                                  .pasin, .pacos, .patan, .plog, .plog2, .plog10, .psinh, .pcosh, .ptanh]
    static let inputs: [Float] = [0, -0.0, 0.3, -1.7, 2.5e-3, 12.9898, 5937.3013, 2.0e5, 3.0e6, -1.0e30,
                                  .infinity, -.infinity, .nan, .leastNonzeroMagnitude, 0.9999999]

    @Test(arguments: unary)
    func aUniformBatchGivesTheLaneLoopsBits(_ opcode: Opcode) throws {
        for x in Self.inputs {
            let broadcast = try applyFloat(opcode, [x])                    // `laneCount` equal lanes
            let laneLoop = try applyFloat(opcode, [x, 1.25])[0]             // lane 0 of a mixed batch
            #expect(broadcast.count == 1 && same(broadcast[0], laneLoop), "\(opcode) of \(x): \(broadcast) vs \(laneLoop)")
        }
    }

    @Test(arguments: [Opcode.fpow, .fatan2, .ppow, .patan2])
    func binaryOperationsToo(_ opcode: Opcode) throws {
        for x in Self.inputs {
            for y in [Float(2), -0.5, 0, 7.25, .infinity, .nan] {
                let broadcast = try applyFloat(opcode, [x], [y])
                let laneLoop = try applyFloat(opcode, [x, 1.25], [y, 3])[0]
                #expect(same(broadcast[0], laneLoop), "\(opcode)(\(x), \(y)): \(broadcast[0]) vs \(laneLoop)")
            }
        }
    }

    @Test func oneDifferentLaneTakesTheLaneLoop() throws {
        var values = [Float](repeating: 0.75, count: laneCount)
        values[63] = 0.25
        let program = TestProgram(registers: 2, body: [Instruction(.fsin, a: 0, b: 1)])
        let executor = try program.run([1: bits(values)])
        let result = executor.floats(0)
        #expect(result[0] == KilnMath.sin(0.75) && result[63] == KilnMath.sin(0.25))
    }
}
