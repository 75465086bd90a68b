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
