/// Encodes the few x86-64 instructions a native segment (`NativeSegments`) is made of:
/// 256-bit AVX arithmetic on `ymm0`–`ymm15`, loads and stores of one group of eight lanes
/// of a VM register, and the loop over a batch's groups.
///
/// Register file addressing: `rdi` holds the register file's base, `rsi` a table of
/// constants (`NativeSegments.constants`), `rax` the byte offset of
/// the current group (0, 32, … `laneCount × 4 − 32`), and a VM register's lanes start
/// `register × laneCount × 4` bytes in — the displacement of `[rdi + rax + disp32]`.
/// Encodings from the Intel SDM, volume 2 (VEX prefix: 2.3; ModRM and SIB: 2.1).
struct VectorAssembler {
    private(set) var bytes: [UInt8] = []

    /// The packed-single operations, by their opcode in the VEX `0F` map.
    enum Operation: UInt8 {
        case and = 0x54, or = 0x56, xor = 0x57
        case add = 0x58, mul = 0x59, sub = 0x5C, min = 0x5D, div = 0x5E, max = 0x5F
    }

    /// `vcmpps` predicates: false for a NaN operand, except `notEqual`.
    enum Predicate: UInt8 {
        case equal = 0x00, less = 0x01, lessOrEqual = 0x02, unordered = 0x03, notEqual = 0x04
    }

    /// The opcode maps and mandatory prefixes (VEX `mmmmm`, `pp`) the instructions use.
    private enum Map: UInt8 { case map0F = 1, map0F38 = 2, map0F3A = 3 }
    private enum Prefix: UInt8 { case none = 0, p66 = 1 }

    /// The three-byte VEX prefix and opcode of a 256-bit (`L` = 1), `W` = 0 instruction.
    /// `reg` is ModRM.reg's register, `rmExtended` whether ModRM.rm (or the SIB base) is
    /// register 8–15, `vvvv` the second source (0 when unused: the field is stored inverted,
    /// so that encodes 1111).
    private mutating func vex(reg: Int, rmExtended: Bool, vvvv: Int, opcode: UInt8,
                              map: Map = .map0F, prefix: Prefix = .none) {
        bytes.append(0xC4)
        let r: UInt8 = reg >= 8 ? 0 : 0x80          // R̄, X̄ (never extended: the index is rax), B̄
        let b: UInt8 = rmExtended ? 0 : 0x20
        bytes.append(r | 0x40 | b | map.rawValue)
        bytes.append(UInt8((~vvvv & 15) << 3) | 0x04 | prefix.rawValue)
        bytes.append(opcode)
    }

    /// ModRM for two registers.
    private mutating func registerOperand(reg: Int, rm: Int) {
        bytes.append(0xC0 | UInt8((reg & 7) << 3) | UInt8(rm & 7))
    }

    /// ModRM and SIB for `[rdi + rax + disp32]`, with `reg` in ModRM.reg.
    private mutating func memoryOperand(reg: Int, displacement: Int32) {
        bytes.append(0x80 | UInt8((reg & 7) << 3) | 0x04)    // mod 10 (disp32), rm 100 (SIB)
        bytes.append(0x07)                                   // scale 1, index rax, base rdi
        withUnsafeBytes(of: displacement.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// `vmovups ymm, [rdi + rax + displacement]`.
    mutating func load(_ ymm: Int, displacement: Int32) {
        vex(reg: ymm, rmExtended: false, vvvv: 0, opcode: 0x10)
        memoryOperand(reg: ymm, displacement: displacement)
    }

    /// `vmovups [rdi + rax + displacement], ymm`.
    mutating func store(_ ymm: Int, displacement: Int32) {
        vex(reg: ymm, rmExtended: false, vvvv: 0, opcode: 0x11)
        memoryOperand(reg: ymm, displacement: displacement)
    }

    /// `vOPps destination, left, right`.
    mutating func operation(_ operation: Operation, _ destination: Int, _ left: Int, _ right: Int) {
        vex(reg: destination, rmExtended: right >= 8, vvvv: left, opcode: operation.rawValue)
        registerOperand(reg: destination, rm: right)
    }

    /// `vOPps destination, left, [rdi + rax + displacement]`.
    mutating func operation(_ operation: Operation, _ destination: Int, _ left: Int, rightAt displacement: Int32) {
        vex(reg: destination, rmExtended: false, vvvv: left, opcode: operation.rawValue)
        memoryOperand(reg: destination, displacement: displacement)
    }

    /// `vcmpps destination, left, right, predicate`: all ones where it holds.
    mutating func compare(_ destination: Int, _ left: Int, _ right: Int, _ predicate: Predicate) {
        vex(reg: destination, rmExtended: right >= 8, vvvv: left, opcode: 0xC2)
        registerOperand(reg: destination, rm: right)
        bytes.append(predicate.rawValue)
    }

    /// `vpcmpeqd destination, left, right` (AVX2): all ones where the words are equal.
    mutating func equalWords(_ destination: Int, _ left: Int, _ right: Int) {
        vex(reg: destination, rmExtended: right >= 8, vvvv: left, opcode: 0x76, prefix: .p66)
        registerOperand(reg: destination, rm: right)
    }

    /// `vpsrld destination, source, count` (AVX2): each word shifted right, zeros in.
    mutating func shiftRightWords(_ destination: Int, _ source: Int, by count: UInt8) {
        vex(reg: 2, rmExtended: source >= 8, vvvv: destination, opcode: 0x72, prefix: .p66)   // 72 /2 ib
        registerOperand(reg: 2, rm: source)
        bytes.append(count)
    }

    /// `vsqrtps destination, source`.
    mutating func squareRoot(_ destination: Int, _ source: Int) {
        vex(reg: destination, rmExtended: source >= 8, vvvv: 0, opcode: 0x51)
        registerOperand(reg: destination, rm: source)
    }

    /// `vmovaps destination, source`.
    mutating func copy(_ destination: Int, _ source: Int) {
        vex(reg: destination, rmExtended: source >= 8, vvvv: 0, opcode: 0x28)
        registerOperand(reg: destination, rm: source)
    }

    /// `vblendvps destination, whereClear, whereSet, mask`: `whereSet`'s lanes where the
    /// mask lane's sign bit is set, `whereClear`'s elsewhere.
    mutating func blend(_ destination: Int, _ whereClear: Int, _ whereSet: Int, mask: Int) {
        vex(reg: destination, rmExtended: whereSet >= 8, vvvv: whereClear, opcode: 0x4A, map: .map0F3A, prefix: .p66)
        registerOperand(reg: destination, rm: whereSet)
        bytes.append(UInt8(mask << 4))
    }

    /// `vroundps destination, source, 9`: rounded toward −∞, no precision exception.
    mutating func floor(_ destination: Int, _ source: Int) {
        vex(reg: destination, rmExtended: source >= 8, vvvv: 0, opcode: 0x08, map: .map0F3A, prefix: .p66)
        registerOperand(reg: destination, rm: source)
        bytes.append(0x09)
    }

    /// `vbroadcastss destination, [rsi + 4 × index]`: a constant of the segment's table.
    mutating func broadcastConstant(_ destination: Int, index: Int) {
        vex(reg: destination, rmExtended: false, vvvv: 0, opcode: 0x18, map: .map0F38, prefix: .p66)
        bytes.append(0x40 | UInt8((destination & 7) << 3) | 0x06)     // mod 01 (disp8), rm 110 (rsi)
        bytes.append(UInt8(index * 4))
    }

    /// `vbroadcastss destination, [rdi + rax + displacement]`: one lane's word in every lane.
    mutating func broadcastWord(_ destination: Int, displacement: Int32) {
        vex(reg: destination, rmExtended: false, vvvv: 0, opcode: 0x18, map: .map0F38, prefix: .p66)
        memoryOperand(reg: destination, displacement: displacement)
    }

    /// `vpcmpeqd destination, left, [rdi + rax + displacement]` (AVX2).
    mutating func equalWords(_ destination: Int, _ left: Int, at displacement: Int32) {
        vex(reg: destination, rmExtended: false, vvvv: left, opcode: 0x76, prefix: .p66)
        memoryOperand(reg: destination, displacement: displacement)
    }

    /// `xor eax, eax`: the first group (a pass outside the group loop works on it).
    mutating func zeroGroupOffset() {
        bytes += [0x31, 0xC0]
    }

    /// `vmovmskps ecx, mask; cmp ecx, 0xFF; jne …`: leaves unless every lane of `mask` has
    /// its sign bit set. Returns where the jump's target goes (`patchJump`).
    mutating func jumpUnlessAllSet(_ mask: Int) -> Int {
        vex(reg: 1, rmExtended: mask >= 8, vvvv: 0, opcode: 0x50)
        registerOperand(reg: 1, rm: mask)
        bytes += [0x81, 0xF9, 0xFF, 0x00, 0x00, 0x00]
        bytes += [0x0F, 0x85, 0, 0, 0, 0]
        return bytes.count - 4
    }

    /// `mov ecx, [rdi + first]; cmp ecx, [rdi + second]; jne …`: leaves unless two words
    /// of the register file are equal. Returns where the jump's target goes (`patchJump`).
    mutating func jumpUnlessEqualWords(_ first: Int32, _ second: Int32) -> Int {
        bytes += [0x8B, 0x8F]                                        // mov ecx, [rdi + disp32]
        withUnsafeBytes(of: first.littleEndian) { bytes.append(contentsOf: $0) }
        bytes += [0x3B, 0x8F]                                        // cmp ecx, [rdi + disp32]
        withUnsafeBytes(of: second.littleEndian) { bytes.append(contentsOf: $0) }
        bytes += [0x0F, 0x85, 0, 0, 0, 0]
        return bytes.count - 4
    }

    /// Makes the jump whose target field is at `field` land here.
    mutating func patchJump(_ field: Int) {
        let relative = Int32(bytes.count - (field + 4))
        withUnsafeBytes(of: relative.littleEndian) { for (k, byte) in $0.enumerated() { bytes[field + k] = byte } }
    }

    /// `vzeroupper; ret`.
    mutating func returnFromSegment() {
        bytes += [0xC5, 0xF8, 0x77, 0xC3]
    }

    /// `xor eax, eax`, and returns the loop's start.
    mutating func beginGroupLoop() -> Int {
        bytes += [0x31, 0xC0]
        return bytes.count
    }

    /// `push rbp; mov rbp, rsp; and rsp, −32; sub rsp, 32 × count`: `count` stack slots of
    /// one group each, aligned (`loadSlot`, `storeSlot`), until `closeSlots`.
    mutating func openSlots(_ count: Int) {
        bytes += [0x55, 0x48, 0x89, 0xE5, 0x48, 0x83, 0xE4, 0xE0, 0x48, 0x81, 0xEC]
        withUnsafeBytes(of: Int32(32 * count).littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// `mov rsp, rbp; pop rbp`.
    mutating func closeSlots() {
        bytes += [0x48, 0x89, 0xEC, 0x5D]
    }

    /// ModRM and SIB for `[rsp + 32 × slot]`, with `reg` in ModRM.reg.
    private mutating func slotOperand(reg: Int, slot: Int) {
        bytes.append(0x80 | UInt8((reg & 7) << 3) | 0x04)    // mod 10 (disp32), rm 100 (SIB)
        bytes.append(0x24)                                   // no index, base rsp
        withUnsafeBytes(of: Int32(32 * slot).littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// `vmovups ymm, [rsp + 32 × slot]`.
    mutating func loadSlot(_ ymm: Int, _ slot: Int) {
        vex(reg: ymm, rmExtended: false, vvvv: 0, opcode: 0x10)
        slotOperand(reg: ymm, slot: slot)
    }

    /// `vmovups [rsp + 32 × slot], ymm`.
    mutating func storeSlot(_ ymm: Int, _ slot: Int) {
        vex(reg: ymm, rmExtended: false, vvvv: 0, opcode: 0x11)
        slotOperand(reg: ymm, slot: slot)
    }

    /// `add rax, 32; cmp rax, byteCount; jne start` (then `returnFromSegment`, or more code).
    mutating func endGroupLoop(start: Int, byteCount: Int32) {
        bytes += [0x48, 0x83, 0xC0, 0x20]
        bytes += [0x48, 0x3D]
        withUnsafeBytes(of: byteCount.littleEndian) { bytes.append(contentsOf: $0) }
        let relative = Int32(start - (bytes.count + 6))
        bytes += [0x0F, 0x85]
        withUnsafeBytes(of: relative.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
