/// One fixed-width instruction.
///
/// Every instruction is 16 bytes, little-endian, so decoding is a table lookup and
/// verifying is a range check per field:
///
/// ```
///  byte   0        1        2    3    4    5    6    7    8    9   10   11   12  13  14  15
///       +--------+--------+---------+---------+---------+---------+---------+---------------+
///       | opcode |  mode  |    a    |    b    |    c    |    d    |  (zero) |      imm      |
///       +--------+--------+---------+---------+---------+---------+---------+---------------+
///          u8       u8       u16       u16       u16       u16       u16         u32
/// ```
///
/// `a` is the destination register (or the condition of a jump), `b`, `c`, `d` are
/// source registers; `imm` is a constant-pool index, argument word, count, texture
/// slot or jump target depending on the opcode's `OperandShape`; `mode` is only used by
/// `sample` (a `SampleMode`). Unused fields are zero (the verifier insists, so
/// libraries have one encoding).
public struct Instruction: Hashable, Sendable {
    /// Size of an encoded instruction in bytes.
    public static let byteCount = 16

    public var opcode: Opcode
    public var mode: UInt8
    public var a: UInt16
    public var b: UInt16
    public var c: UInt16
    public var d: UInt16
    public var imm: UInt32

    public init(_ opcode: Opcode, a: UInt16 = 0, b: UInt16 = 0, c: UInt16 = 0, d: UInt16 = 0,
                imm: UInt32 = 0, mode: UInt8 = 0) {
        self.opcode = opcode
        self.mode = mode
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.imm = imm
    }

    /// Appends the 16-byte little-endian encoding to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        bytes.append(opcode.rawValue)
        bytes.append(mode)
        for field in [a, b, c, d, 0] {
            bytes.append(UInt8(truncatingIfNeeded: field))
            bytes.append(UInt8(truncatingIfNeeded: field >> 8))
        }
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: imm >> UInt32(shift)))
        }
    }

    /// Why 16 bytes could not be decoded into an instruction.
    public enum DecodeError: Error, Equatable, Sendable {
        case unknownOpcode(UInt8)
        case nonzeroPadding
        case truncated
    }

    /// Decodes the instruction at `offset` of `bytes` (which must hold 16 bytes from there).
    public static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(DecodeError) -> Instruction {
        guard offset >= 0, offset + byteCount <= bytes.count else { throw .truncated }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[offset + at]) | UInt16(bytes[offset + at + 1]) << 8 }
        guard let opcode = Opcode(rawValue: bytes[offset]) else { throw .unknownOpcode(bytes[offset]) }
        guard u16(10) == 0 else { throw .nonzeroPadding }
        var imm: UInt32 = 0
        for i in 0..<4 { imm |= UInt32(bytes[offset + 12 + i]) << UInt32(8 * i) }
        return Instruction(opcode, a: u16(2), b: u16(4), c: u16(6), d: u16(8), imm: imm, mode: bytes[offset + 1])
    }
}
