import Testing
@testable import KilnLanguage
import KilnTestSupport

/// `sameSpelling` and `TokenSpelling(ascii:in:at:)` rely on how the standard library stores
/// short ASCII strings (inline, zero-padded, count in the last byte): these tests fail if
/// that ever changes, before any compile could go wrong.
struct SpellingTests {
    /// Every ASCII spelling of 0…15 bytes built in place is the string `String(decoding:)`
    /// makes: equal, the same bits, the same count and bytes — read with two loads from the
    /// middle of a buffer and byte by byte from its last 15 bytes.
    @Test func inlineSpellingsAreTheStandardLibrarysStrings() {
        var random = SeededRandom(seed: 41)
        func next(_ bound: Int) -> Int { random.below(bound) }
        for _ in 0..<100_000 {
            let bytes = (0..<next(16)).map { _ in UInt8(1 + next(127)) }
            let expected = String(decoding: bytes, as: UTF8.self)
            // Noise around the spelling, which must not leak into it; at the end of the
            // buffer or with 16 bytes or more after its start.
            let before = (0..<next(4)).map { _ in UInt8(1 + next(255)) }
            let after = next(2) == 0 ? [] : (0..<(16 + next(4))).map { _ in UInt8(1 + next(255)) }
            let buffer = before + bytes + after
            let spelling = buffer.withUnsafeBufferPointer { source in
                TokenSpelling(ascii: UnsafeBufferPointer(rebasing: source[before.count..<before.count + bytes.count]),
                              in: source, at: before.count)
            }
            #expect(spelling == TokenSpelling.inline(expected))
            let made = spelling.inlineText
            #expect(made == expected)
            #expect(made.map { Array($0.utf8) } == bytes)
        }
    }

    /// `sameSpelling` agrees with `==` on short and long, ASCII and non-ASCII strings, and on
    /// strings that are canonically equivalent without being the same bytes.
    @Test func sameSpellingAgreesWithEquality() {
        let words = ["", "(", ")", "->", "-", "--", "<<=", "float", "float2", "static", "__always_inline",
                     "a_sixteen_bytes_", "KILN_EXAMPLES_COMMON_H", "é", "e\u{301}", "\u{212A}", "K", "naïve"]
        let built = words.map { String(decoding: Array($0.utf8), as: UTF8.self) }
        for a in words + built {
            for b in words + built {
                #expect(sameSpelling(a, b) == (a == b), "\(a) vs \(b)")
            }
        }
    }

    /// A `switch` over `Spelling` picks the case spelled the same, whoever made the string.
    @Test func switchOverSpelling() {
        func group(_ text: String) -> Int {
            switch Spelling(text) {
            case "static", "inline": return 1
            case "(", "->": return 2
            default: return 0
            }
        }
        #expect(group("inline") == 1)
        #expect(group(String(decoding: Array("static".utf8), as: UTF8.self)) == 1)
        #expect(group("->") == 2)
        #expect(group("inlin") == 0)
        #expect(group("-") == 0)
        #expect(group("a_name_longer_than_fifteen_bytes") == 0)
    }
}
