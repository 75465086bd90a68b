import Testing
@testable import KilnCompiler

/// `PassTable`, the passes' fixed-size tables: made filled, written in place, copied
/// element for element, and empty when asked for no elements.
@Suite struct PassTableTests {
    struct Record: BitwiseCopyable, Equatable {
        var count = 0, last = -1
    }

    @Test func startsFilledAndKeepsWhatIsWritten() {
        var table = PassTable(repeating: -1, count: 100)
        #expect(table.count == 100)
        #expect(table.indices.allSatisfy { table[$0] == -1 })
        for index in table.indices where index % 3 == 0 { table[index] = index * 7 }
        #expect(table.indices.allSatisfy { table[$0] == ($0 % 3 == 0 ? $0 * 7 : -1) })
    }

    @Test func aFieldIsWrittenInPlace() {
        var table = PassTable(repeating: Record(), count: 4)
        for step in 0..<10 {
            table[step % 4].count += 1
            table[step % 4].last = step
        }
        #expect(table[0] == Record(count: 3, last: 8))
        #expect(table[1] == Record(count: 3, last: 9))
        #expect(table[2] == Record(count: 2, last: 6))
        #expect(table[3] == Record(count: 2, last: 7))
    }

    @Test func aCopyIsIndependent() {
        var original = PassTable(repeating: false, count: 10)
        original[3] = true
        var copy = PassTable(copying: original)
        copy[4] = true
        original[5] = true
        #expect(copy.indices.map { copy[$0] } == (0..<10).map { $0 == 3 || $0 == 4 })
        #expect(original.indices.map { original[$0] } == (0..<10).map { $0 == 3 || $0 == 5 })
    }

    @Test func anEmptyTableHasNoIndices() {
        let table = PassTable(repeating: UInt64(0), count: 0)
        #expect(table.count == 0)
        #expect(table.indices.isEmpty)
    }

    @Test func removeFlaggedKeepsTheUnflaggedInOrder() {
        var body = (0..<8).map { IRInstruction.debug($0) }
        var removed = PassTable(repeating: false, count: body.count)
        for index in [0, 3, 4, 7] { removed[index] = true }
        body.removeFlagged(removed)
        #expect(body.map(\.imm) == [1, 2, 5, 6])
    }
}
