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
/// 1 = PNG (straight alpha). Libraries start with "KILNLIB\0" instead, so a client can
/// tell the two binary messages apart by their first bytes.
public struct FrameHeader: Equatable, Sendable {
    public static let magic: [UInt8] = Array("KLNF".utf8)
    public static let byteCount = 32
    public static let version: UInt8 = 1

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

    public init(format: Format, sequence: UInt32, time: Double, width: UInt32, height: UInt32, renderMicroseconds: UInt32) {
        self.format = format
        self.sequence = sequence
        self.time = time
        self.width = width
        self.height = height
        self.renderMicroseconds = renderMicroseconds
    }

    /// The header bytes.
    public var bytes: [UInt8] {
        var out = Self.magic
        out.append(Self.version)
        out.append(format.rawValue)
        out.append(contentsOf: [0, 0])
        func append32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
        append32(sequence)
        let bits = time.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        append32(width)
        append32(height)
        append32(renderMicroseconds)
        return out
    }

    /// Parses a header (for clients and tests); nil when the bytes are not a frame.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= Self.byteCount, Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version,
              let format = Format(rawValue: bytes[5]) else { return nil }
        func read32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << UInt32(8 * $1) } }
        let bits = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[12 + $1]) << UInt64(8 * $1) }
        self.init(format: format, sequence: read32(8), time: Double(bitPattern: bits), width: read32(20),
                  height: read32(24), renderMicroseconds: read32(28))
    }
}
