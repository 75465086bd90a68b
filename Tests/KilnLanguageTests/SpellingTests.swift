import Testing
@testable import KilnLanguage

/// `sameSpelling` and `smallASCIIString` rely on how the standard library stores short
/// ASCII strings (inline, zero-padded, count in the last byte): these tests fail if that
/// ever changes, before any compile could go wrong.
struct SpellingTests {
    /// Every ASCII spelling of 0…15 bytes built in place is the string `String(decoding:)`
    /// makes: equal, the same bits, the same count and bytes.
    @Test func smallASCIIStringsAreTheStandardLibrarysStrings() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(bound))
        }
        for _ in 0..<100_000 {
            let bytes = (0..<next(16)).map { _ in UInt8(1 + next(127)) }
            let expected = String(decoding: bytes, as: UTF8.self)
            let made = bytes.withUnsafeBufferPointer { smallASCIIString($0) }
            #expect(made == expected)
            #expect(Array(made.utf8) == bytes)
            #expect(unsafeBitCast(made, to: (UInt64, UInt64).self) == unsafeBitCast(expected, to: (UInt64, UInt64).self))
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
