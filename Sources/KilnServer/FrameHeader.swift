/// The fixed 32-byte header in front of every preview frame sent as a binary
/// WebSocket message (little-endian), followed by the payload:
///
/// ```
///  0        4     5       6        8           12                  20      24       28        32
///  +--------+-----+-------+--------+-----------+-------------------+-------+--------+---------+
///  | "KLNF" | ver | format| flags  | sequence  | time (f64 seconds)| width | height | render  |
///  +--------+-----+-------+--------+-----------+-------------------+-------+--------+---------+
///     4 B     u8    u8      u16       u32               f64           u32     u32    u32 µs
/// ```
/// `format` 0 = RGBA8 premultiplied (width × height × 4 bytes, row 0 at the top),
/// 1 = PNG (straight alpha). `flags` bits 0–7: the sample stride k of a *coarse* frame
/// (0 for a full frame): its pixel (x, y) is the full frame's pixel (k·x, k·y), to be shown
/// scaled up until the full frame follows. Bit 8 marks a *provisional* frame: a coarse frame
/// of the newest edit, drawn from its quick compile before the edit is answered (its
/// `compiled` follows; docs/server.md, "Two compile tiers"). Bits 9–15 are 0. Libraries
/// start with "KILNLIB\0" instead, so a client can tell the two binary messages apart by
/// their first bytes.
///
/// `Field` is the one definition of the layout: the writer and reader here use it, and a
/// test checks the browser's reader (`public/frames.js`) and docs/protocol.md against it.
public struct FrameHeader: Equatable, Sendable {
    public static let magic: [UInt8] = Array("KLNF".utf8)
    public static let byteCount = 32
    public static let version: UInt8 = 1

    /// The header's fields by byte offset, in order.
    public enum Field: Int, CaseIterable, Sendable {
        case magic = 0
        case version = 4
        case format = 5
        case flags = 6
        case sequence = 8
        case time = 12
        case width = 20
        case height = 24
        case renderMicroseconds = 28

        /// The field's byte offset.
        public var offset: Int { rawValue }
    }

    public enum Format: UInt8, Sendable {
        case rgba8 = 0
        case png = 1
    }

    public var format: Format
    public var sequence: UInt32
    public var time: Double
    public var width: UInt32
    public var height: UInt32
    public var renderMicroseconds: UInt32
    /// The sample stride of a coarse frame (`flags` bits 0–7); 0 for a full frame.
    public var coarseStride: UInt8
    /// `flags` bit 8: drawn from the quick compile of an edit not answered yet.
    public var provisional: Bool

    /// `flags`' bit for `provisional`.
    public static let provisionalFlag: UInt16 = 0x100

    public init(format: Format, sequence: UInt32, time: Double, width: UInt32, height: UInt32, renderMicroseconds: UInt32,
                coarseStride: UInt8 = 0, provisional: Bool = false) {
        self.coarseStride = coarseStride
        self.provisional = provisional
        self.format = format
        self.sequence = sequence
        self.time = time
        self.width = width
        self.height = height
        self.renderMicroseconds = renderMicroseconds
    }

    /// The header bytes.
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        func put(_ value: UInt64, _ field: Field, bytes count: Int) {
            for index in 0..<count { out[field.offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * index)) }
        }
        out.replaceSubrange(Field.magic.offset..<Field.magic.offset + 4, with: Self.magic)
        out[Field.version.offset] = Self.version
        out[Field.format.offset] = format.rawValue
        put(UInt64(UInt16(coarseStride) | (provisional ? Self.provisionalFlag : 0)), .flags, bytes: 2)
        put(UInt64(sequence), .sequence, bytes: 4)
        put(time.bitPattern, .time, bytes: 8)
        put(UInt64(width), .width, bytes: 4)
        put(UInt64(height), .height, bytes: 4)
        put(UInt64(renderMicroseconds), .renderMicroseconds, bytes: 4)
        return out
    }

    /// Parses a header (for clients and tests); nil when the bytes are not a frame.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= Self.byteCount, Array(bytes[0..<4]) == Self.magic, bytes[Field.version.offset] == Self.version,
              let format = Format(rawValue: bytes[Field.format.offset]) else { return nil }
        func read(_ field: Field, bytes count: Int) -> UInt64 {
            (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[field.offset + $1]) << UInt64(8 * $1) }
        }
        let flags = UInt16(truncatingIfNeeded: read(.flags, bytes: 2))
        self.init(format: format, sequence: UInt32(read(.sequence, bytes: 4)), time: Double(bitPattern: read(.time, bytes: 8)),
                  width: UInt32(read(.width, bytes: 4)), height: UInt32(read(.height, bytes: 4)),
                  renderMicroseconds: UInt32(read(.renderMicroseconds, bytes: 4)),
                  coarseStride: UInt8(truncatingIfNeeded: flags), provisional: flags & Self.provisionalFlag != 0)
    }
}
