import KilnBytecode
import Testing
@testable import KilnVM

/// `ldr`, `str` and `ldk` on arrays of at most `Execution.selectedElementLimit` elements run
/// as a compare and blend per element over eight lanes; longer arrays lane by lane. Both
/// must do what the lane rule says, for indices in range, past the end and huge, for any
/// mask, and when the destination or an operand is one of the array's own registers.
@Suite struct SmallArrayGroupTests {
    /// Per-lane indices: mostly in range, some just past the end, some huge.
    static func indices(count: Int, seed: UInt64) -> [UInt32] {
        var g = MathAccuracyTests.Generator(state: seed)
        return (0..<laneCount).map { _ in
            switch g.next() % 8 {
            case 0: UInt32(count)
            case 1: UInt32(truncatingIfNeeded: g.next()) | 0x8000_0000
            default: UInt32(g.next() % UInt64(max(count, 1)))
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 7, 8, 9, 12])
    func registerArraysReadAndWriteTheIndexedElement(count: Int) throws {
        let first: UInt16 = 4, index = Self.indices(count: count, seed: UInt64(count) &* 977)
        let mask = (0..<laneCount).map { UInt32($0 % 3 == 0 ? 0 : 0xFFFF_0000 >> ($0 % 5)) }
        let value = (0..<laneCount).map { UInt32(5_000 + $0) }
        var inputs: [UInt16: [UInt32]] = [1: index, 2: value, 3: mask]
        var elements: [[UInt32]] = []
        for k in 0..<count {
            elements.append((0..<laneCount).map { UInt32(100 * k + $0) })
            inputs[first + UInt16(k)] = elements[k]
        }
        let program = TestProgram(registers: first + UInt16(count), body: [
            Instruction(.ldr, a: 0, b: first, c: 1, imm: UInt32(count)),
            Instruction(.str, a: first, b: 2, c: 1, d: 3, imm: UInt32(count)),
        ])
        let e = try program.run(inputs)
        let loaded = (0..<laneCount).map { l in index[l] < count ? elements[Int(index[l])][l] : 0 }
        #expect(e.words(0) == loaded)
        for k in 0..<count {
            let expected = (0..<laneCount).map { l in
                index[l] == UInt32(k) && mask[l] != 0 ? value[l] : elements[k][l]
            }
            #expect(e.words(first + UInt16(k)) == expected, "element \(k)")
        }
    }

    /// The index register is element 1 of the array it indexes, and the load's destination
    /// is the index: each lane uses its index as it was before the instruction.
    @Test func operandsThatAreElementsAreReadFirst() throws {
        let index: [UInt32] = (0..<laneCount).map { UInt32($0 % 4) }
        let program = TestProgram(registers: 8, body: [
            Instruction(.str, a: 4, b: 2, c: 5, d: 3, imm: 3),      // index in r5 = element 1
            Instruction(.ldr, a: 1, b: 4, c: 1, imm: 3),            // r1 is index and result
        ])
        let e = try program.run([1: index, 2: [77], 3: [1], 4: [10], 5: index, 6: [30]])
        for l in 0..<laneCount {
            let k = index[l]
            // After the store: element k holds 77 in this lane when k < 3.
            let element4: UInt32 = k == 0 ? 77 : 10, element5: UInt32 = k == 1 ? 77 : k
            let element6: UInt32 = k == 2 ? 77 : 30
            #expect(e.words(4)[l] == element4 && e.words(5)[l] == element5 && e.words(6)[l] == element6)
            let loaded: UInt32 = [element4, element5, element6, 0][Int(k)]
            #expect(e.words(1)[l] == loaded, "lane \(l)")
        }
    }

    @Test(arguments: [1, 5, 8, 9, 16])
    func constantArraysReadTheIndexedConstant(count: Int) throws {
        let constants = (0..<(count + 3)).map { UInt32(1_000 + $0) }
        let index = Self.indices(count: count, seed: UInt64(count) &* 131)
        let program = TestProgram(registers: 2, constants: constants, body: [
            Instruction(.ldk, a: 0, b: 1, d: UInt16(count), imm: 2),
        ])
        let e = try program.run([1: index])
        #expect(e.words(0) == index.map { $0 < count ? constants[2 + Int($0)] : 0 })
    }
}
