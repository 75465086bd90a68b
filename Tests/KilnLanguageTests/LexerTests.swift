import Testing
@testable import KilnLanguage
import KilnTestSupport

/// A token with what its table holds for it.
@dynamicMemberLookup
private struct Lexed {
    let token: Token
    let text: String
    let documentation: [String]
    subscript<T>(dynamicMember path: KeyPath<Token, T>) -> T { token[keyPath: path] }
}

/// Lexes `text` as file 0.
private func lex(_ text: String) -> (tokens: [Lexed], diagnostics: [Diagnostic]) {
    let (tokens, table, diagnostics) = Lexer.tokenize(SourceFile(name: "test.metal", text: text), fileIndex: 0)
    return (tokens.map { Lexed(token: $0, text: table.text(of: $0), documentation: table.documentation(of: $0)) }, diagnostics)
}

private func spellings(_ text: String) -> [String] {
    lex(text).tokens.dropLast().map(\.text)
}

@Suite struct LexerTests {
    @Test func punctuatorsUseLongestMatchButKeepBracketsSingle() {
        #expect(spellings("a[b[0]]") == ["a", "[", "b", "[", "0", "]", "]"])
        #expect(spellings("[[ stitchable ]]") == ["[", "[", "stitchable", "]", "]"])
        #expect(spellings("x<<=1>>=2->y::z++--...") == ["x", "<<=", "1", ">>=", "2", "->", "y", "::", "z", "++", "--", "..."])
        #expect(spellings("a+=b-=c*=d/=e%=f&=g|=h^=i") == ["a", "+=", "b", "-=", "c", "*=", "d", "/=", "e", "%=", "f", "&=", "g", "|=", "h", "^=", "i"])
        #expect(spellings("a&&b||!c!=d==e<=f>=g") == ["a", "&&", "b", "||", "!", "c", "!=", "d", "==", "e", "<=", "f", ">=", "g"])
        #expect(lex("a[b[0]]").diagnostics.isEmpty)
    }

    @Test(arguments: [
        ("1.", NumericLiteral.float(1, suffix: "")),
        (".5", .float(0.5, suffix: "")),
        (".5f", .float(0.5, suffix: "f")),
        ("2.0F", .float(2, suffix: "f")),
        ("1e-3", .float(0.001, suffix: "")),
        ("1E+2f", .float(100, suffix: "f")),
        ("1h", .float(1, suffix: "h")),
        ("0.35h", .float(0.35, suffix: "h")),
        ("0x1F", .integer(31, suffix: "")),
        ("0X10u", .integer(16, suffix: "u")),
        ("3u", .integer(3, suffix: "u")),
        ("7UL", .integer(7, suffix: "u")),
        ("5l", .integer(5, suffix: "")),
        ("017", .integer(15, suffix: "")),
        ("0", .integer(0, suffix: "")),
        ("18446744073709551615", .integer(UInt64.max, suffix: "")),
        ("0x1.8p1", .float(3, suffix: "")),
    ])
    func numericLiteralValues(text: String, expected: NumericLiteral) {
        #expect(NumericLiteral.parse(text) == expected)
        let (tokens, diagnostics) = lex(text)
        #expect(diagnostics.isEmpty)
        #expect(tokens.count == 2)
        #expect(tokens[0].text == text)
    }

    /// The lexer classifies the commonest literals without parsing them
    /// (`NumericLiteral.simpleKind`): over random pp-numbers — digits, dots, exponents,
    /// suffixes, leading zeros, long and short — every one it classifies is valid and of
    /// that kind by `parse`, and it classifies the usual ones.
    @Test func simpleLiteralKindsAgreeWithParsing() {
        var random = SeededRandom(seed: 41_1)
        func next(_ bound: Int) -> Int { random.below(bound) }
        let alphabet = Array("0123456789000.....eEfFhHuUlLxp+-".utf8)
        var classified = 0
        for _ in 0..<200_000 {
            let bytes = [UInt8(ascii: "0") + UInt8(next(10))] + (0..<next(22)).map { _ in alphabet[next(alphabet.count)] }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let kind = bytes.withUnsafeBufferPointer({ NumericLiteral.simpleKind(of: $0) }) else { continue }
            classified += 1
            switch NumericLiteral.parse(text) {
            case .integer: #expect(kind == .integerLiteral, "\(text)")
            case .float: #expect(kind == .floatLiteral, "\(text)")
            case .invalid(let message): Issue.record("\(text) classified as \(kind), but: \(message)")
            }
        }
        #expect(classified > 1_000)
        for (text, kind) in [("0", Token.Kind.integerLiteral), ("7", .integerLiteral), ("123456789012345678", .integerLiteral),
                             ("0.5", .floatLiteral), (".5", .floatLiteral), ("1.", .floatLiteral), ("2.0f", .floatLiteral),
                             ("0.35h", .floatLiteral), ("12345678901.25", .floatLiteral)] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { NumericLiteral.simpleKind(of: $0) } == kind, "\(text)")
        }
        for text in ["017", "08", "1234567890123456789", "1e5", "1f", "1h", "3u", "0x1F", "1.2.3", "123456789012.345", "2.0q"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { NumericLiteral.simpleKind(of: $0) } == nil, "\(text)")
        }
    }

    /// `//` comments are skipped to the newline eight bytes at a time (`Lexer.lineEnd`): it
    /// finds the same newline as a plain scan, wherever the newline and the start fall.
    @Test func lineEndFindsTheFirstNewline() {
        var random = SeededRandom(seed: 41_2)
        func next(_ bound: Int) -> Int { random.below(bound) }
        for _ in 0..<20_000 {
            // Bytes next to a newline's (0x0A) in value too: 0x09, 0x0B, 0x8A, 0x0A + 0x80.
            let pool: [UInt8] = [0x09, 0x0B, 0x8A, 0x20, 0x41, 0x2F, 0xFF, 0x00, 0x0A]
            let bytes = (0..<next(40)).map { _ in next(6) == 0 ? UInt8(0x0A) : pool[next(pool.count - 1)] }
            let from = next(bytes.count + 1)
            let expected = bytes[from...].firstIndex(of: 0x0A) ?? bytes.count
            #expect(bytes.withUnsafeBufferPointer { Lexer.lineEnd(in: $0, from: from) } == expected, "\(bytes) from \(from)")
        }
    }

    /// Decimal floating literals take an exact fast path (`NumericLiteral.exactDecimal`):
    /// over 300 000 random spellings — short and long mantissas, leading and trailing zeros,
    /// exponents near the path's ±22 edge and far past it — the value has the same bits as
    /// `strtod`'s (`Double(String)`).
    @Test func decimalFloatsMatchStrtodBitForBit() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            // SplitMix64: the same spellings on every run.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(next(10))) })
        }
        var mismatches: [String] = []
        for _ in 0..<300_000 {
            var body = digits(1 + next(next(2) == 0 ? 8 : 20))
            if next(4) != 0 { body += "." + digits(next(next(2) == 0 ? 6 : 18)) }
            if next(3) == 0 {
                let exponent = next(2) == 0 ? next(30) : next(400)
                body += ["e", "E", "e-", "e+", "E-"][next(5)] + String(exponent)
            }
            if !body.contains(".") && !body.lowercased().contains("e") { body += ".0" }
            guard let expected = Double(body) else { continue }
            let text = body + ["", "f", "F", "h"][next(4)]
            switch NumericLiteral.parse(text) {
            case .float(let value, _) where value.bitPattern == expected.bitPattern: break
            case .invalid where !expected.isFinite: break
            default: mismatches.append(text)
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test(arguments: [
        ("18446744073709551616", "too large"),
        ("99999999999999999999999999999999", "too large"),
        ("0xFFFFFFFFFFFFFFFFF", "too large"),
        ("1e999", "too large"),
        ("08", "octal"),
        ("1f", "invalid suffix 'f' on integer"),
        ("2.0q", "invalid suffix 'q'"),
        ("1e", "exponent"),
        ("0x", "no digits"),
    ])
    func badLiteralsReportAndContinue(text: String, message: String) {
        let (tokens, diagnostics) = lex("\(text) + 1")
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.contains(message) == true, "\(diagnostics)")
        #expect(tokens.map(\.text) == [text, "+", "1", ""])
    }

    @Test func rangesCountLinesAndByteColumns() {
        let (tokens, _) = lex("float x;\n  // comment\n\tx = 1.5;")
        let x = tokens[3]
        #expect(x.text == "x")
        #expect(x.range.start.line == 3)
        #expect(x.range.start.column == 2)
        #expect(x.range.end.column == 3)
        #expect(x.isAtLineStart)
        #expect(!tokens[1].isAtLineStart)
        let literal = tokens[5]
        #expect(literal.text == "1.5")
        #expect(literal.range.start.offset == 27)
        #expect(literal.range.end.offset == 30)
        #expect(tokens.last?.kind == .endOfFile)
    }

    @Test func badCharactersAreReportedOnceAndLexingGoesOn() {
        let (tokens, diagnostics) = lex("a @ b ` c é d")
        #expect(tokens.map(\.text) == ["a", "b", "c", "d", ""])
        #expect(diagnostics.count == 3)
        #expect(diagnostics[0].message == "invalid character '@' in source")
        #expect(diagnostics[0].range.start.column == 3)
        #expect(diagnostics[2].message.contains("non-ASCII"))
    }

    @Test func utf8InCommentsAndStringsIsFine() {
        let (tokens, diagnostics) = lex("// ünïcødé ✓\n/* 日本 */ x \"ß\"")
        #expect(diagnostics.isEmpty)
        #expect(tokens.map(\.kind) == [.identifier, .stringLiteral, .endOfFile])
    }

    @Test func docCommentsAttachToTheNextToken() {
        let (tokens, _) = lex("/// Waves.\n///   @arg amplitude 0...20 = 4\n//// not a doc line\n// plain\n[[ stitchable ]] float2 f();")
        #expect(tokens[0].documentation == ["Waves.", "@arg amplitude 0...20 = 4"])
        #expect(tokens[1].documentation.isEmpty)
    }

    /// A token stores a spelling of up to 15 ASCII bytes itself and any other in its table;
    /// both read back the same, and the comparisons the parser makes see the difference.
    @Test func longAndNonASCIISpellingsLiveInTheTable() {
        let (tokens, table, diagnostics) = Lexer.tokenize(
            SourceFile(name: "t.metal", text: "kGrainFramesPerSecond fifteen_bytes__ \"ß\" 0.333333333333333333f x"), fileIndex: 0)
        #expect(diagnostics.isEmpty)
        #expect(tokens.map { table.text(of: $0) }
                == ["kGrainFramesPerSecond", "fifteen_bytes__", "\"ß\"", "0.333333333333333333f", "x", ""])
        #expect(table.spellings == ["kGrainFramesPerSecond", "\"ß\"", "0.333333333333333333f"])
        #expect(tokens[1].isIdentifier("fifteen_bytes__"))
        #expect(!tokens[0].isIdentifier("kGrain"))
        #expect(tokens[4].isIdentifier("x") && !tokens[4].isPunctuator("x"))
    }

    @Test func unterminatedCommentAndStringReport() {
        #expect(lex("x /* never closed").diagnostics.first?.message == "unterminated /* comment")
        #expect(lex("x = \"open\ny").diagnostics.first?.message.contains("missing terminating") == true)
    }

    @Test func lineSplicesKeepTheLogicalLine() {
        let (tokens, _) = lex("#define A \\\n  1\nB")
        #expect(tokens.map(\.text) == ["#", "define", "A", "1", "B", ""])
        #expect(!tokens[3].isAtLineStart)
        #expect(tokens[4].isAtLineStart)
    }

    @Test func tokenLimitIsNamed() {
        var limits = LanguageLimits()
        limits.maxTokens = 5
        let (tokens, _, diagnostics) = Lexer.tokenize(SourceFile(name: "t.metal", text: "a b c d e f g h"), fileIndex: 0, limits: limits)
        #expect(tokens.count == 6)
        #expect(diagnostics.map(\.message) == ["too many tokens (limit maxTokens = 5)"])
    }
}
