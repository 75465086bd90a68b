/// The words the lexer flags: C++/MSL's reserved words and the builtin type names
/// (`Token.wordFlags`), so the parser tells keywords and type names apart without hashing
/// a `String` per identifier (a `[String: UInt8]` lookup was a tenth of lexing).
///
/// An open-addressing table keyed by an FNV-1a hash of a word's bytes, which the lexer
/// computes straight from the source. The words themselves sit end to end in one byte
/// array; a slot holds where its word starts and how long it is. Every process that
/// compiles builds the table once, so building it allocates nothing per word: the earlier
/// table of one `[UInt8]` per slot, filled from `Set<String>`s, cost 815 000 instructions
/// of a whole-process `kiln compile` of a small shader's 5.8 M (docs/benchmarks.md).
struct WordTable: Sendable {
    /// A power of two, a few times the number of words (about 400): short probes.
    static let size = 2048

    /// The table every lexer uses.
    static let shared = WordTable()

    /// The words, end to end.
    private let text: [UInt8]
    /// Per slot: the word's flags (`Token.reservedFlag`, `Token.builtinTypeFlag` or both) in
    /// the top byte, its start in `text` in the middle two and its length in the low one;
    /// 0 for an empty slot (no word is empty). The flags beside the span, not in an array
    /// of their own: a word found is one cache line read, not two.
    private let spans: [UInt32]

    /// The words of at most 15 bytes again, keyed by their inline spelling — the two words
    /// of a `TokenSpelling`, which the lexer has in hand for every short identifier — so
    /// that looking one up is a multiply, a mask and a 16-byte compare instead of hashing
    /// and comparing it a byte at a time (`flags(of:)` was 1.4 % of a compile). Per slot:
    /// the two words and the flags; an empty slot's words are 0 (no spelling's are: the
    /// high word holds the length tag). `shortSize` slots, a power of two.
    private let shortKeys: [UInt64]
    private let shortFlags: [UInt8]
    /// Per slot, the type a short builtin type name spells (`TypeResolver.type(ofTypeWord:)`),
    /// nil for every other word.
    private let shortTypes: [KType?]
    private static let shortSize = 1024

    private init() {
        var text = [UInt8](repeating: 0, count: 8192)
        var spans = [UInt32](repeating: 0, count: Self.size)
        var used = 0
        // Filled through raw buffers: a Swift array's append or subscript store checks it is
        // uniquely referenced on every byte.
        text.withUnsafeMutableBufferPointer { text in
            spans.withUnsafeMutableBufferPointer { spans in
                func add(_ word: UnsafeBufferPointer<UInt8>, _ flag: UInt8) {
                    precondition(word.count > 0 && word.count < 256 && used + word.count <= text.count,
                                 "word table entries are 1...255 bytes, 8 KB in all")
                    let index = Self.slot(of: word, text: UnsafeBufferPointer(text), spans: UnsafeBufferPointer(spans))
                    if spans[index] == 0 {
                        spans[index] = UInt32(used) << 8 | UInt32(word.count)
                        (text.baseAddress! + used).update(from: word.baseAddress!, count: word.count)
                        used += word.count
                    }
                    spans[index] |= UInt32(flag) << 24
                }
                for word in Parser.reservedWords {
                    word.withUTF8Buffer { add($0, Token.reservedFlag) }
                }
                Parser.forEachBuiltinTypeName { add($0, Token.builtinTypeFlag) }
            }
        }
        text.removeSubrange(used...)
        self.text = text
        self.spans = spans
        var shortKeys = [UInt64](repeating: 0, count: 2 * Self.shortSize)
        var shortFlags = [UInt8](repeating: 0, count: Self.shortSize)
        var shortTypes = [KType?](repeating: nil, count: Self.shortSize)
        for slot in spans where slot != 0 {
            let start = Int((slot >> 8) & 0xFFFF), count = Int(slot & 0xFF)
            guard count <= 15 else { continue }
            let flags = UInt8(truncatingIfNeeded: slot >> 24)
            let (spelling, type) = text.withUnsafeBufferPointer { text in
                let word = UnsafeBufferPointer(rebasing: text[start..<(start + count)])
                return (TokenSpelling(ascii: word, in: word, at: 0),
                        flags & Token.builtinTypeFlag != 0 ? TypeResolver.type(ofTypeWord: word) : nil)
            }
            var index = Self.shortSlot(spelling)
            while shortKeys[2 * index + 1] != 0 { index = (index + 1) & (Self.shortSize - 1) }
            (shortKeys[2 * index], shortKeys[2 * index + 1]) = (spelling.low, spelling.high)
            shortFlags[index] = flags
            shortTypes[index] = type
        }
        self.shortKeys = shortKeys
        self.shortFlags = shortFlags
        self.shortTypes = shortTypes
    }

    /// Where the probe for a short word's spelling starts.
    @inline(__always)
    private static func shortSlot(_ spelling: TokenSpelling) -> Int {
        let mixed = (spelling.low &* 0x9E37_79B9_7F4A_7C15 ^ spelling.high) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 54) & (shortSize - 1)
    }

    /// The flags of the short word whose inline spelling is `spelling` (as `flags(of:)` of
    /// its bytes; `WordTableTests` checks they agree).
    @inline(__always)
    func flags(ofShort spelling: TokenSpelling) -> UInt8 {
        shortIndex(spelling).map { shortFlags[$0] } ?? 0
    }

    /// The flags of the short word whose inline spelling is `spelling` and, for a builtin type
    /// name, the type it spells (nil for any other word, or one that spells none).
    @inline(__always)
    func entry(ofShort spelling: TokenSpelling) -> (flags: UInt8, type: KType?) {
        guard let index = shortIndex(spelling) else { return (0, nil) }
        return (shortFlags[index], shortTypes[index])
    }

    /// The slot of the short word whose inline spelling is `spelling`; nil when it is none.
    @inline(__always)
    private func shortIndex(_ spelling: TokenSpelling) -> Int? {
        shortKeys.withUnsafeBufferPointer { keys in
            var index = Self.shortSlot(spelling)
            while keys[2 * index + 1] != 0 {
                if keys[2 * index] == spelling.low && keys[2 * index + 1] == spelling.high { return index }
                index = (index + 1) & (Self.shortSize - 1)
            }
            return nil
        }
    }

    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        return Int(h) & (size - 1)
    }

    /// The slot holding `bytes`, or the empty slot where it would go (the one probe, for
    /// filling the table and for looking words up).
    private static func slot(of bytes: UnsafeBufferPointer<UInt8>, text: UnsafeBufferPointer<UInt8>,
                             spans: UnsafeBufferPointer<UInt32>) -> Int {
        var index = hash(bytes)
        probing: while spans[index] != 0 {
            let start = Int((spans[index] >> 8) & 0xFFFF), count = Int(spans[index] & 0xFF)
            if count == bytes.count {
                for k in 0..<count where text[start + k] != bytes[k] {
                    index = (index + 1) & (size - 1)
                    continue probing
                }
                return index
            }
            index = (index + 1) & (size - 1)
        }
        return index
    }

    /// The flags of the word spelled `bytes` (0 when it is neither reserved nor a type name).
    func flags(of bytes: UnsafeBufferPointer<UInt8>) -> UInt8 {
        spans.withUnsafeBufferPointer { spans in
            let index = text.withUnsafeBufferPointer { Self.slot(of: bytes, text: $0, spans: spans) }
            return UInt8(truncatingIfNeeded: spans[index] >> 24)
        }
    }

    /// The flags of the word spelled `bytes`.
    func flags(of bytes: ArraySlice<UInt8>) -> UInt8 { bytes.withUnsafeBufferPointer { flags(of: $0) } }

    /// Whether `name` is a builtin type name.
    static func isBuiltinTypeName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { shared.flags(of: $0) } & Token.builtinTypeFlag != 0
    }

    /// Every word with its flags, in table order (for tests).
    var entries: [(word: String, flags: UInt8)] {
        spans.indices.compactMap { index in
            guard spans[index] != 0 else { return nil }
            let start = Int((spans[index] >> 8) & 0xFFFF), count = Int(spans[index] & 0xFF)
            return (String(decoding: text[start..<(start + count)], as: UTF8.self), UInt8(spans[index] >> 24))
        }
    }
}
