import Testing
@testable import KilnCompiler

/// `ValueTable`, value numbering's hash table: every key found again with its latest
/// result across growth, keys differing in any one word kept apart, nothing found after
/// `removeAll`.
@Suite struct ValueTableTests {
    /// Keys that differ in one word at a time, as value numbering's do (the next register,
    /// the next version).
    static func key(_ n: Int) -> ValueTable.Key {
        (UInt64(n % 7), UInt64(n / 7 % 5), UInt64(n / 35), UInt64(n & 1) << 32)
    }

    @Test func findsEveryKeyAcrossGrowth() {
        var table = ValueTable(expected: 4)
        for n in 0..<5_000 { table.insert(Self.key(n), register: n, version: n * 3) }
        for n in 0..<5_000 {
            let found = table.lookup(Self.key(n))
            #expect(found?.register == n && found?.version == n * 3, "key \(n)")
        }
        #expect(table.lookup((99, 99, 99, 99)) == nil)
    }

    @Test func aSecondInsertReplacesTheResult() {
        var table = ValueTable(expected: 16)
        table.insert((1, 2, 3, 4), register: 10, version: 1)
        table.insert((1, 2, 3, 4), register: 11, version: 2)
        #expect(table.lookup((1, 2, 3, 4))?.register == 11)
        #expect(table.lookup((1, 2, 3, 4))?.version == 2)
        for word in 0..<4 {
            var other: ValueTable.Key = (1, 2, 3, 4)
            switch word {
            case 0: other.0 += 1
            case 1: other.1 += 1
            case 2: other.2 += 1
            default: other.3 += 1
            }
            #expect(table.lookup(other) == nil, "word \(word)")
        }
    }

    @Test func removeAllForgetsEverythingAndTheTableStaysUsable() {
        var table = ValueTable(expected: 8)
        for n in 0..<100 { table.insert(Self.key(n), register: n, version: 0) }
        table.removeAll()
        #expect((0..<100).allSatisfy { table.lookup(Self.key($0)) == nil })
        for n in 0..<100 { table.insert(Self.key(n + 1_000), register: n, version: 1) }
        #expect((0..<100).allSatisfy { table.lookup(Self.key($0 + 1_000))?.register == $0 })
        #expect((0..<100).allSatisfy { table.lookup(Self.key($0)) == nil })
    }
}
