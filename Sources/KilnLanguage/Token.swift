/// One token of Kiln source, as the lexer produces it and the preprocessor passes it on.
///
/// Keywords are identifiers (the parser knows which spellings are reserved); punctuators
/// are told apart by their spelling. `[[` is two `[` tokens so that `a[b[0]]` lexes the
/// same as in C; the parser recognizes attributes from context.
///
/// A token holds no reference: its spelling is stored inline when it is a short ASCII
/// word (nearly all are), and everything else — a long spelling, `///` documentation, the
/// macro expansion it came from — lives in the `TokenTable` of the compile, which the
/// token indexes. So copying a token is copying its bytes. Why: a token is copied on its
/// way from the lexer through the preprocessor into the parser, and while it held a
/// `String` and a class reference every copy and every destroy went through its value
/// witnesses, retaining and releasing both — ~6 % of a median compile
/// (docs/benchmarks.md, "fortieth session").
public struct Token: Sendable, BitwiseCopyable {
    public enum Kind: Sendable, Equatable, BitwiseCopyable {
        case identifier
        case integerLiteral
        case floatLiteral
        case stringLiteral
        case characterLiteral
        case punctuator
        case endOfFile
    }

    /// Where a token produced by macro expansion came from (a class: shared by all tokens
    /// of one expansion).
    public final class Expansion: Sendable {
        /// The outermost macro whose use produced the token.
        public let macro: String
        /// The macro use in the user's file (name through closing parenthesis).
        public let useRange: SourceRange
        public init(macro: String, useRange: SourceRange) {
            self.macro = macro
            self.useRange = useRange
        }
    }

    public var kind: Kind
    /// `WordFlags` of an identifier, computed once by the lexer so the parser needs no
    /// string hashing to tell keywords and builtin type names.
    var wordFlags: UInt8 = 0
    /// First token on its line (preprocessing directives start with such a `#`).
    public var isAtLineStart: Bool
    /// Whitespace or a comment precedes the token (for `#` stringizing).
    public var hasLeadingSpace: Bool
    /// The token came out of a macro expansion (its annex names the expansion).
    public internal(set) var isExpanded = false
    /// Macros that must not expand this token again (the recursion guard of rescanning):
    /// an index into the preprocessor's interned sets, 0 being the empty set.
    var hideSet: Int32 = 0
    /// Documentation and expansion: an index into `TokenTable.annexes`, 0 for neither.
    var annex: Int32 = 0
    /// The spelling (for literals: as written, suffix included); `TokenTable.text(of:)` reads it.
    var spelling: TokenSpelling
    /// The token's place in a user file; for macro-expanded tokens, the macro use.
    public var range: SourceRange

    /// A reserved word of C++/MSL (`if`, `struct`, `const`, `true`, …).
    @inline(__always) public var isReservedWord: Bool { wordFlags & Token.reservedFlag != 0 }
    /// A builtin type name (`float2`, `texture2d`, `half3x3`, …).
    @inline(__always) public var isBuiltinTypeName: Bool { wordFlags & Token.builtinTypeFlag != 0 }

    static let reservedFlag: UInt8 = 1
    static let builtinTypeFlag: UInt8 = 2

    /// The flags of an identifier spelled `bytes`.
    static func wordFlags(of bytes: ArraySlice<UInt8>) -> UInt8 { WordTable.shared.flags(of: bytes) }

    init(kind: Kind, spelling: TokenSpelling, range: SourceRange, isAtLineStart: Bool = false,
         hasLeadingSpace: Bool = false, wordFlags: UInt8 = 0) {
        self.kind = kind
        self.spelling = spelling
        self.range = range
        self.isAtLineStart = isAtLineStart
        self.hasLeadingSpace = hasLeadingSpace
        self.wordFlags = wordFlags
    }

    /// `true` for the punctuator spelled `spelling` (at most 15 ASCII bytes, as every
    /// punctuator is).
    @inline(__always)
    public func isPunctuator(_ spelling: String) -> Bool {
        kind == .punctuator && self.spelling.isInline(spelling)
    }

    /// `true` for the identifier (or keyword) spelled `spelling` (at most 15 ASCII bytes:
    /// a longer word is never stored inline, so it never matches — use `TokenTable.text(of:)`).
    @inline(__always)
    public func isIdentifier(_ spelling: String) -> Bool {
        kind == .identifier && self.spelling.isInline(spelling)
    }
}

/// A token's spelling as the token stores it: the 16 bytes of a `String` of at most 15
/// ASCII bytes (the standard library's inline "small" form, see `sameSpelling`), or, for
/// any other spelling, an index into `TokenTable.spellings` with the high word 0 — which
/// no small string has, since its top byte holds `0xE0 | count`.
struct TokenSpelling: Equatable, BitwiseCopyable {
#if !(arch(x86_64) || arch(arm64))
#error("TokenSpelling stores 64-bit platforms' 16-byte small strings")
#endif
    var low: UInt64
    var high: UInt64

    /// The spelling `text`, stored inline when it can be.
    @inline(__always)
    static func inline(_ text: String) -> TokenSpelling? {
        let bits = unsafeBitCast(text, to: (UInt64, UInt64).self)
        return bits.1 >> 60 == 0xE ? TokenSpelling(low: bits.0, high: bits.1) : nil
    }

    /// The empty spelling (of `.endOfFile`).
    @inline(__always)
    static var empty: TokenSpelling { inline("")! }

    /// The spelling at `index` of the table's long spellings.
    @inline(__always)
    static func stored(at index: Int) -> TokenSpelling { TokenSpelling(low: UInt64(index), high: 0) }

    /// The inline `String`, when the spelling is stored inline.
    @inline(__always)
    var inlineText: String? {
        high >> 60 == 0xE ? unsafeBitCast((low, high), to: String.self) : nil
    }

    /// Whether this is the inline spelling `text` (false for a spelling stored in the table:
    /// `text` is then either long, and this question needs the table, or short, and differs).
    @inline(__always)
    func isInline(_ text: String) -> Bool { TokenSpelling.inline(text) == self }
}

extension TokenSpelling {
    /// The inline spelling of `bytes`, 0…15 ASCII bytes that start at `offset` in `source`:
    /// the standard library's small-string form — the bytes in order, zero-padded, `0xE0 |
    /// count` in the last byte — built directly instead of through `String(decoding:as:)`,
    /// which validates and repairs UTF-8 first (~150 instructions for every identifier,
    /// number and operator the lexer makes). Two 8-byte loads when `source` has 16 bytes
    /// from `offset` on (the bytes past the spelling masked off), else one byte at a time.
    /// The caller guarantees the bytes are ASCII. `SpellingTests` checks the result against
    /// `String(decoding:as:)`, bit for bit.
    @inline(__always)
    init(ascii bytes: UnsafeBufferPointer<UInt8>, in source: UnsafeBufferPointer<UInt8>, at offset: Int) {
        let count = bytes.count
        var low: UInt64 = 0, high: UInt64 = 0
        if offset + 16 <= source.count, let base = source.baseAddress {
            let raw = UnsafeRawPointer(base + offset)
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            low &= count >= 8 ? .max : (1 << (8 * UInt64(count))) &- 1
            high &= count > 8 ? (1 << (8 * UInt64(count - 8))) &- 1 : 0
        } else {
            for index in 0..<min(count, 8) { low |= UInt64(bytes[index]) << (8 * UInt64(index)) }
            for index in min(count, 8)..<count { high |= UInt64(bytes[index]) << (8 * UInt64(index - 8)) }
        }
        self.init(low: low, high: high | (0xE0 | UInt64(count)) << 56)
    }
}

/// The value of a numeric literal's spelling, shared by the lexer (which reports bad
/// literals), the parser and `#if` evaluation.
public enum NumericLiteral: Equatable, Sendable {
    /// Suffix normalized as in `Expression.Kind.integerLiteral`: "" or "u".
    case integer(UInt64, suffix: String)
    /// Suffix lowercased: "", "f" or "h".
    case float(Double, suffix: String)
    /// Not a valid literal; the message says why.
    case invalid(String)

    /// The kind of the commonest literals — up to 18 decimal digits without a leading zero,
    /// or digits with a `.` and an optional `f` or `h` suffix, 15 bytes at most — which are
    /// always valid (no overflow, no octal digits to check, no exponent, finite), so the
    /// lexer need not parse their value; `nil` for anything else, which `parse` decides.
    /// Parsing every literal in the lexer was ~1 % of a median compile, `strtod` included.
    static func simpleKind(of bytes: UnsafeBufferPointer<UInt8>) -> Token.Kind? {
        var index = 0, digits = 0
        while index < bytes.count, isDigit(bytes[index]) { index += 1; digits += 1 }
        if index == bytes.count {
            return digits >= 1 && digits <= 18 && (digits == 1 || bytes[0] != UInt8(ascii: "0")) ? .integerLiteral : nil
        }
        guard bytes.count <= 15, bytes[index] == UInt8(ascii: ".") else { return nil }
        index += 1
        while index < bytes.count, isDigit(bytes[index]) { index += 1; digits += 1 }
        guard digits > 0 else { return nil }
        if index == bytes.count { return .floatLiteral }
        let suffix = bytes[index] | 0x20
        return index + 1 == bytes.count && (suffix == UInt8(ascii: "f") || suffix == UInt8(ascii: "h")) ? .floatLiteral : nil
    }

    /// Classifies and evaluates `text` (a pp-number as the lexer delimits it).
    ///
    /// Over the spelling's bytes in place: the lexer classifies every literal and the parser
    /// evaluates it again, and the version that copied the bytes into an array and made
    /// `String`s of the body, the suffix and its lowercase took ~1 600 instructions a literal.
    public static func parse(_ text: String) -> NumericLiteral {
        var bytes = text
        return bytes.withUTF8 { parse($0, text: text) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, text: String) -> NumericLiteral {
        guard let first = bytes.first else { return .invalid("empty numeric literal") }
        let isHex = bytes.count >= 2 && first == UInt8(ascii: "0") && (bytes[1] | 0x20) == UInt8(ascii: "x")
        if isHex { return parseHex(Array(bytes), text: text) }
        // Decimal or octal: split the digits/fraction/exponent from the suffix.
        var index = 0
        var isFloat = false
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isFloat = true
            index += 1
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, (bytes[index] | 0x20) == UInt8(ascii: "e") {
            var look = index + 1
            if look < bytes.count, bytes[look] == UInt8(ascii: "+") || bytes[look] == UInt8(ascii: "-") { look += 1 }
            guard look < bytes.count, isDigit(bytes[look]) else {
                return .invalid("exponent has no digits")
            }
            isFloat = true
            index = look
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let body = UnsafeBufferPointer(rebasing: bytes[0..<index])
        let suffixBytes = UnsafeBufferPointer(rebasing: bytes[index...])
        // The suffix as written (for messages) and lowercased; almost always "" or one letter.
        var suffix: String { String(decoding: suffixBytes, as: UTF8.self) }
        let lowerSuffix = suffixBytes.isEmpty ? "" : lowercased(suffixBytes) ?? suffix.lowercased()
        if isFloat || lowerSuffix == "h" {
            guard lowerSuffix == "" || lowerSuffix == "f" || lowerSuffix == "h" else {
                return .invalid("invalid suffix '\(suffix)' on floating constant")
            }
            guard let value = exactDecimal(body) ?? Double(String(decoding: body, as: UTF8.self)) else {
                return .invalid("invalid floating constant '\(text)'")
            }
            guard value.isFinite else { return .invalid("magnitude of floating-point constant too large") }
            return .float(value, suffix: lowerSuffix)
        }
        guard let normalized = integerSuffix(lowerSuffix) else {
            return .invalid("invalid suffix '\(suffix)' on integer constant")
        }
        let isOctal = body.count > 1 && first == UInt8(ascii: "0")
        var value: UInt64 = 0
        for digit in body {
            let d = UInt64(digit - UInt8(ascii: "0"))
            if isOctal, d > 7 { return .invalid("invalid digit '\(d)' in octal constant") }
            let (times, o1) = value.multipliedReportingOverflow(by: isOctal ? 8 : 10)
            let (sum, o2) = times.addingReportingOverflow(d)
            if o1 || o2 { return .invalid("integer literal is too large to be represented in any integer type") }
            value = sum
        }
        return .integer(value, suffix: normalized)
    }

    private static func parseHex(_ bytes: [UInt8], text: String) -> NumericLiteral {
        var index = 2
        var value: UInt64 = 0
        var digits = 0
        var overflow = false
        while index < bytes.count, let d = hexValue(bytes[index]) {
            let (times, o1) = value.multipliedReportingOverflow(by: 16)
            let (sum, o2) = times.addingReportingOverflow(UInt64(d))
            overflow = overflow || o1 || o2
            value = sum
            digits += 1
            index += 1
        }
        let rest = bytes[index...]
        if rest.contains(UInt8(ascii: ".")) || rest.contains(where: { $0 | 0x20 == UInt8(ascii: "p") }) {
            // Hexadecimal float: `0x1.8p1`, optionally suffixed.
            var end = bytes.count
            var suffix = ""
            if let last = bytes.last, (last | 0x20) == UInt8(ascii: "f") || (last | 0x20) == UInt8(ascii: "h") {
                end -= 1
                suffix = String(UnicodeScalar(last | 0x20))
            }
            let body = String(decoding: bytes[0..<end], as: UTF8.self)
            guard body.contains(where: { $0 == "p" || $0 == "P" }), let value = Double(body), value.isFinite else {
                return .invalid("invalid hexadecimal floating constant '\(text)'")
            }
            return .float(value, suffix: suffix)
        }
        guard digits > 0 else { return .invalid("hexadecimal constant '\(text)' has no digits") }
        let suffix = String(decoding: rest, as: UTF8.self)
        guard let normalized = integerSuffix(suffix.lowercased()) else {
            return .invalid("invalid suffix '\(suffix)' on integer constant")
        }
        if overflow { return .invalid("integer literal is too large to be represented in any integer type") }
        return .integer(value, suffix: normalized)
    }

    /// The one-letter suffixes literals carry (`f`, `h`, `u`, `l`) lowercased without
    /// Unicode case mapping (`String.lowercased()` was a third of evaluating `1.0f`); nil for
    /// any other suffix.
    private static func lowercased(_ suffix: UnsafeBufferPointer<UInt8>) -> String? {
        guard suffix.count == 1 else { return nil }
        switch suffix[0] | 0x20 {
        case UInt8(ascii: "f"): return "f"
        case UInt8(ascii: "h"): return "h"
        case UInt8(ascii: "u"): return "u"
        case UInt8(ascii: "l"): return "l"
        default: return nil
        }
    }

    /// Powers of ten a `Double` holds exactly: 10ᵏ = 2ᵏ · 5ᵏ, and 5ᵏ fits in 53 bits up to k = 22.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var power = 1.0
        for _ in 0..<exponent { power *= 10 }
        return power
    }

    /// The value of a decimal floating body (`digits [. digits] [e [+-] digits]`) when
    /// one IEEE operation gives it exactly rounded, nil otherwise (the caller then asks
    /// `strtod`). The digits as an integer below 2⁵³ and a power of ten up to 10²² are both
    /// exact doubles, so `m × 10ᵏ` or `m ÷ 10ᵏ` is a single correctly rounded operation:
    /// the same bits `strtod` returns (Clinger's fast path). Nearly every literal in a
    /// shader (`0.5`, `2.0`, `1e-3`, `43758.5453`) takes it; `strtod` was half of
    /// evaluating a literal.
    static func exactDecimal(_ body: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0, fractionDigits = 0, index = 0
        var inFraction = false, sawDigit = false
        while index < body.count {
            let c = body[index]
            if c == UInt8(ascii: ".") {
                inFraction = true
            } else if isDigit(c) {
                sawDigit = true
                // Leading zeros are not significant digits.
                if mantissa != 0 || c != UInt8(ascii: "0") { digits += 1 }
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(c - UInt8(ascii: "0"))
                if inFraction { fractionDigits += 1 }
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if index < body.count {
            // `e`, a sign, digits (the caller checked there is at least one).
            index += 1
            var negative = false
            if index < body.count, body[index] == UInt8(ascii: "+") || body[index] == UInt8(ascii: "-") {
                negative = body[index] == UInt8(ascii: "-")
                index += 1
            }
            while index < body.count {
                guard exponent < 1000 else { return nil }
                exponent = exponent * 10 + Int(body[index] - UInt8(ascii: "0"))
                index += 1
            }
            if negative { exponent = -exponent }
        }
        let scale = exponent - fractionDigits
        // 15 digits: below 10¹⁵ < 2⁵³, exact as a double.
        let value = Double(mantissa)
        if scale >= 0 && scale <= 22 { return value * exactPowersOfTen[scale] }
        if scale < 0 && scale >= -22 { return value / exactPowersOfTen[-scale] }
        return nil
    }

    /// "" / "u" for the C integer suffixes (`u`, `l`, `ul`, `ll`, `ull`, …), `nil` otherwise.
    private static func integerSuffix(_ lower: String) -> String? {
        switch lower {
        case "", "l", "ll": return ""
        case "u", "ul", "lu", "ull", "llu": return "u"
        default: return nil
        }
    }

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 97...102: return c - 87
        case 65...70: return c - 55
        default: return nil
        }
    }
}
