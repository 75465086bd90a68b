/// A bounds-checked little-endian cursor over one region (a section) of the input.
///
/// Every read checks against `end` first, so no byte string can make the reader read out
/// of bounds; counts are checked with `requireElements` before anything is allocated, so a
/// count claiming gigabytes fails instead of reserving memory.
struct ByteReader {
    let bytes: [UInt8]
    /// Offset of the next byte to read (absolute in `bytes`, for error offsets).
    var position: Int
    /// One past the last byte this reader may read.
    let end: Int
    /// What is being read, for messages (`section FUNC`).
    let context: String

    init(bytes: [UInt8], start: Int, end: Int, context: String) {
        self.bytes = bytes
        self.position = start
        self.end = end
        self.context = context
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position >= end }

    func error(_ message: String, at offset: Int? = nil) -> LibraryError {
        LibraryError(message: "\(context): \(message)", offset: offset ?? position)
    }

    private mutating func take(_ count: Int, _ what: String) throws(LibraryError) -> Int {
        guard count >= 0, count <= remaining else {
            throw error("truncated \(what) (needs \(count) bytes, \(max(0, remaining)) left)")
        }
        let start = position
        position += count
        return start
    }

    mutating func u8(_ what: String) throws(LibraryError) -> UInt8 {
        bytes[try take(1, what)]
    }

    mutating func u16(_ what: String) throws(LibraryError) -> UInt16 {
        let at = try take(2, what)
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    mutating func u32(_ what: String) throws(LibraryError) -> UInt32 {
        let at = try take(4, what)
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[at + i]) << UInt32(8 * i) }
        return value
    }

    mutating func f32(_ what: String) throws(LibraryError) -> Float {
        Float(bitPattern: try u32(what))
    }

    /// A byte that must be 0 or 1.
    mutating func bool(_ what: String) throws(LibraryError) -> Bool {
        let at = position
        let value = try u8(what)
        guard value <= 1 else { throw error("\(what) must be 0 or 1, found \(value)", at: at) }
        return value == 1
    }

    mutating func bytes(_ count: Int, _ what: String) throws(LibraryError) -> ArraySlice<UInt8> {
        let start = try take(count, what)
        return bytes[start..<start + count]
    }

    /// Reads a u32 element count and checks that `count × minimumElementBytes` bytes are
    /// left, so the caller may reserve `count` elements safely.
    mutating func count(_ what: String, minimumElementBytes: Int) throws(LibraryError) -> Int {
        let at = position
        let count = Int(try u32("\(what) count"))
        guard count <= remaining / max(1, minimumElementBytes) else {
            throw error("\(what) count \(count) needs at least \(count * minimumElementBytes) bytes, \(remaining) left", at: at)
        }
        return count
    }

    /// Fails unless the whole region was consumed: a library has one encoding.
    func expectEnd() throws(LibraryError) {
        guard position == end else { throw error("\(end - position) unexpected trailing bytes") }
    }
}
