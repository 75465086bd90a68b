/// Constants of the binary library format (`docs/library-format.md`), shared by the
/// writer and the reader so the two cannot disagree.
public enum LibraryFormat {
    /// The first eight bytes of every library: `KILNLIB\0`.
    public static let magic: [UInt8] = Array("KILNLIB".utf8) + [0]
    /// The format version this module writes. A reader accepts any minor version of its
    /// own major version (newer minors only add sections, which are skipped).
    public static let majorVersion: UInt16 = 3
    public static let minorVersion: UInt16 = 0
    /// Bytes before the section table: magic, major, minor, flags, section count.
    public static let headerByteCount = 20
    /// Bytes per section table entry: id, offset, length.
    public static let sectionEntryByteCount = 12
    /// Every section starts at a multiple of this.
    public static let sectionAlignment = 4
    /// Length of a SHA-256 digest in the provenance section.
    public static let sha256ByteCount = 32
    /// Sentinel for "no discard register" in a function record.
    static let noDiscardRegister: UInt32 = 0xFFFF_FFFF

    /// Section identifiers: four ASCII bytes, stored in file order (so `STRS` reads as the
    /// little-endian u32 `0x53525453`).
    public enum Section: UInt32, CaseIterable, Sendable {
        case strings = 0x5352_5453      // "STRS"
        case functions = 0x434E_5546    // "FUNC"
        case constants = 0x5453_4E43    // "CNST"
        case code = 0x4544_4F43         // "CODE"
        case debug = 0x4755_4244        // "DBUG"
        case provenance = 0x564F_5250   // "PROV"
        /// Optional (format 1.1): `DebugInfo`. Absent means no variable information.
        case variables = 0x5241_5644    // "DVAR"

        /// Every 1.x library has these; `DVAR` may be missing.
        public var isRequired: Bool { self != .variables }

        /// The four-character name, as the doc and error messages spell it.
        public var name: String { LibraryFormat.fourCharacterName(rawValue) }
    }

    /// The four ASCII characters of a section id (non-printable bytes as `?`).
    static func fourCharacterName(_ id: UInt32) -> String {
        var text = ""
        for shift in stride(from: 0, to: 32, by: 8) {
            let byte = UInt8(truncatingIfNeeded: id >> UInt32(shift))
            text.append(byte >= 0x20 && byte < 0x7F ? Character(UnicodeScalar(byte)) : "?")
        }
        return text
    }
}
