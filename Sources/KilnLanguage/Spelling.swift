/// Equality of spellings — a token's text against the literal words and punctuators the
/// preprocessor and parser test for — decided inline when both are short ASCII strings.
///
/// Why not `==`: Swift's `String ==` answers inline only when the two strings are
/// bit-for-bit identical; every mismatch calls `_stringCompareWithSmolCheck` (Unicode
/// canonical equivalence), and nearly every test the parser makes is a mismatch
/// (`check("(")` against `)`, a `switch` over eleven specifier words against `float`):
/// 2.3 % of a median compile's instructions went to those calls (docs/benchmarks.md,
/// "thirty-eighth session"). A string of at most 15 ASCII bytes is stored inline ("small"),
/// zero-padded, with its count in the last byte, so two such strings are equal exactly
/// when their 16 bytes are — the same fact the standard library's own comparison uses for
/// them. Anything else (longer, or non-ASCII) takes `==`.
@inline(__always)
func sameSpelling(_ a: String, _ b: String) -> Bool {
    // The layout below is 64-bit platforms' (a constant test: it folds away there).
    guard MemoryLayout<String>.size == 16 else { return a == b }
    let x = unsafeBitCast(a, to: (UInt64, UInt64).self)
    let y = unsafeBitCast(b, to: (UInt64, UInt64).self)
    if x == y { return true }
    // The top nibble 0xE marks a small ASCII string on 64-bit platforms.
    if x.1 >> 60 == 0xE && y.1 >> 60 == 0xE { return false }
    return a == b
}

/// A spelling to `switch` over with `sameSpelling` instead of `==`:
/// `switch Spelling(text(token)) { case "static", "inline": … }`.
struct Spelling {
    let text: String
    @inline(__always) init(_ text: String) { self.text = text }

    @inline(__always)
    static func ~= (pattern: String, value: Spelling) -> Bool { sameSpelling(pattern, value.text) }
}
