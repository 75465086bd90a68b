import Testing
@testable import KilnLanguage

/// `WordTable`'s two lookups agree: a short word's flags found by its inline spelling
/// (what the lexer asks) are the flags found by its bytes, for every word in the table,
/// for near misses, and for identifiers of every length up to 15. The type the table keeps
/// for a short type name is the one read off the name's bytes.
@Suite struct WordTableTests {
    static func shortFlags(_ word: String) -> UInt8 {
        let bytes = Array(word.utf8)
        return bytes.withUnsafeBufferPointer { WordTable.shared.flags(ofShort: TokenSpelling(ascii: $0, in: $0, at: 0)) }
    }

    @Test func shortWordsFoundByTheirSpellingHaveTheirFlags() {
        let words = WordTable.shared.entries.map(\.word).filter { $0.utf8.count <= 15 }
        #expect(words.count > 300)
        for word in words {
            #expect(Self.shortFlags(word) == Token.wordFlags(of: Array(word.utf8)[...]), "\(word)")
            #expect(Self.shortFlags(word) != 0, "\(word)")
        }
    }

    @Test func otherIdentifiersHaveNone() {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyz_0123456789ABCDEFXYZ".utf8)
        var others = ["float5", "floatx", "simd_", "float4x", "float4x5", "Float4", "packed_float", "x", "ifx", "_",
                      "position", "color", "uv", "time", "sin", "mix", "half44", "texture2d_arra"]
        for length in 1...15 {
            for _ in 0..<200 {
                others.append(String(decoding: (0..<length).map { _ in letters.randomElement(using: &generator)! }, as: UTF8.self))
            }
        }
        for word in others {
            #expect(Self.shortFlags(word) == Token.wordFlags(of: Array(word.utf8)[...]), "\(word)")
        }
        #expect(others.filter { ["float5", "position", "uv", "sin"].contains($0) }.allSatisfy { Self.shortFlags($0) == 0 })
    }

    @Test func shortTypeNamesKeepTheTypeTheirBytesSpell() {
        let typeNames = WordTable.shared.entries.filter { $0.word.utf8.count <= 15 && $0.flags & Token.builtinTypeFlag != 0 }
        #expect(typeNames.count > 150)
        var typed = 0
        for (word, _) in typeNames {
            let bytes = Array(word.utf8)
            let kept = bytes.withUnsafeBufferPointer { WordTable.shared.entry(ofShort: TokenSpelling(ascii: $0, in: $0, at: 0)).type }
            let read = bytes.withUnsafeBufferPointer { TypeResolver.type(ofTypeWord: $0) }
            #expect(kept == read, "\(word)")
            #expect(TypeResolver.builtinType(named: word) == read, "\(word)")
            if kept != nil { typed += 1 }
        }
        // Every builtin type name but the few the resolver handles elsewhere (`texture2d`, `array`, …) spells a type.
        #expect(typed > 150)
        #expect(TypeResolver.builtinType(named: "float2") == .vector(.float, 2))
        #expect(TypeResolver.builtinType(named: "simd_float3x3") == .matrix(.float, columns: 3, rows: 3))
        #expect(TypeResolver.builtinType(named: "unsigned int") == .uint)
        #expect(TypeResolver.builtinType(named: "sin") == nil)
        #expect(TypeResolver.builtinType(named: "signal") == nil)
        // Reserved words are not types.
        let reserved = ["if", "return", "for"].map { word in
            Array(word.utf8).withUnsafeBufferPointer { WordTable.shared.entry(ofShort: TokenSpelling(ascii: $0, in: $0, at: 0)) }
        }
        #expect(reserved.allSatisfy { $0.flags & Token.reservedFlag != 0 && $0.type == nil })
    }
}
