import Testing
@testable import KilnCompiler

/// `WordIndex`, the constant tables' map from 32-bit words: the same answers as a
/// `[UInt32: Int]` across growth, replacement, and copies that stay independent (a copy of
/// the lowering state is a snapshot).
@Suite struct WordIndexTests {
    @Test func agreesWithADictionaryAcrossGrowth() {
        var index = WordIndex(), reference: [UInt32: Int] = [:]
        var state: UInt32 = 0x1234_5678
        for n in 0..<20_000 {
            // Float bit patterns and small integers, as constants are, with repeats.
            state = state &* 1_664_525 &+ 1_013_904_223
            let word = n % 3 == 0 ? Float(state % 1000).bitPattern : (n % 3 == 1 ? state % 64 : state)
            let value = Int(state % 5_000)
            index[word] = value
            reference[word] = value
        }
        #expect(index.count == reference.count)
        for (word, value) in reference { #expect(index[word] == value, "word \(word)") }
        for word: UInt32 in [0xFFFF_FFFF, 0x7FC0_0001, 12_345_678] where reference[word] == nil {
            #expect(index[word] == nil)
        }
    }

    @Test func emptyIndexFindsNothing() {
        let index = WordIndex()
        #expect(index[0] == nil)
        #expect(index[Float(1).bitPattern] == nil)
        #expect(index.count == 0)
    }

    @Test func aCopyIsASnapshot() {
        var index = WordIndex()
        index[1] = 10
        let saved = index
        index[1] = 11
        index[2] = 20
        #expect(saved[1] == 10 && saved[2] == nil && saved.count == 1)
        #expect(index[1] == 11 && index[2] == 20 && index.count == 2)
    }
}
