import Testing
import KilnBytecode
@testable import KilnVM

/// The lane-wide steps of the common opcodes run eight lanes at a time as `SIMD8`
/// (`Execution+Groups.swift`), the one-lane step of a uniform instruction runs the plain
/// scalar loop. Both must give the same bits on every value — NaNs of either sign and
/// kind, ±0, ±∞, subnormals, integers past 2²³, `Int32.min` — and whether or not the
/// destination is also an operand (`mask &= c`, `x = floor(x)`): that is what the groups
/// were written for.
@Suite struct LaneGroupTests {
    /// Interesting binary32 values and integer words, 64 lanes' worth with their negations.
    static let specials: [UInt32] = {
        let floats: [Float] = [0, 1, 0.5, 1.5, 2.5, 0.49999997, 0x1p-149, 0x1p-126, 0x1.fffffep-1,
                               0x1p23 - 0.5, 0x1p23 + 1, 1e30, .greatestFiniteMagnitude, .infinity,
                               3.25, 1e-9, 7]
        var words = floats.flatMap { [$0.bitPattern, (-$0).bitPattern] }
        words += [0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFA0_0000,      // quiet and signalling NaNs
                  0x7FFF_FFFF, 1, 2, 31, 32, 0xFFFF_FFFF, 0xFFFF_FFFE]
        return words
    }()

    /// The opcodes with an eight-lane group form (unary ones ignore `c`).
    static let grouped: [Opcode] = [
        .mov, .fadd, .fsub, .fmul, .fdiv, .fneg, .fabs, .fmin, .fmax, .ffloor, .ffract,
        .feq, .fne, .flt, .fle, .iadd, .isub, .and, .or, .xor, .not, .lnot,
        .ieq, .ine, .ilt, .ile, .ult, .ule,
        .fceil, .ftrunc, .frint, .fround, .fsqrt, .fsign, .fisnan, .fisinf, .itof, .utof, .ftoi, .ftou,
        .imul, .ineg, .iabs, .imin, .imax, .umin, .umax, .shl, .shr, .ushr, .sext16, .zext16,
    ]

    /// Every ordered pair of `specials`.
    static let specialPairs = specials.flatMap { x in specials.map { y in (x, y) } }

    /// An executor of an empty program with `registers` registers to step instructions on
    /// directly, and the lanes of a register (keep the executor alive while using them).
    static func scratchMachine(registers: UInt16) throws -> (Executor, (UInt32) -> UnsafeMutablePointer<UInt32>) {
        let executor = try TestProgram(registers: registers, body: []).run()
        let base = executor.machine.registers
        return (executor, { base + Int($0) * laneCount })
    }

    /// An instruction on registers `a`, `b`, `c` (in the prepared form: lane offsets).
    static func instruction(_ opcode: Opcode, a: UInt32, b: UInt32, c: UInt32) -> PreparedInstruction {
        PreparedInstruction(opcode: opcode, mode: 0, a: a * UInt32(laneCount), b: b * UInt32(laneCount),
                            c: c * UInt32(laneCount), d: 0, imm: 0)
    }

    @Test(arguments: grouped)
    func groupsMatchTheOneLaneStep(_ opcode: Opcode) throws {
        let (executor, lanes) = try Self.scratchMachine(registers: 6)
        defer { withExtendedLifetime(executor) {} }
        let machine = executor.machine
        var mismatches: [String] = []
        // Every ordered pair of special values, one lane each, batch after batch.
        let pairs = Self.specialPairs
        for start in stride(from: 0, to: pairs.count, by: laneCount) {
            let batch = pairs[start..<min(start + laneCount, pairs.count)]
            // A fresh destination, the destination in place of either operand, one register
            // for both operands; the one-lane reference maps r0 → r3, r1 → r4, r2 → r5.
            for (a, b, c, name) in [(UInt32(0), UInt32(1), UInt32(2), "r0"), (1, 1, 2, "in place of b"),
                                    (2, 1, 2, "in place of c"), (0, 1, 1, "b = c")] {
                for (l, (x, y)) in batch.enumerated() { lanes(1)[l] = x; lanes(2)[l] = y }
                _ = Execution.step(machine, Self.instruction(opcode, a: a, b: b, c: c))
                let wide = Array(UnsafeBufferPointer(start: lanes(a), count: batch.count))
                let reference = { (r: UInt32) in r == 0 ? UInt32(3) : r + 3 }
                for (l, (x, y)) in batch.enumerated() {
                    lanes(4)[0] = x; lanes(5)[0] = y
                    _ = Execution.step(machine, Self.instruction(opcode, a: reference(a), b: reference(b), c: reference(c)),
                                       lanes: 1)
                    let one = lanes(reference(a))[0]
                    if wide[l] != one, mismatches.count < 5 {
                        mismatches.append("\(opcode) \(name): b \(hex(x)) c \(hex(c == b ? x : y)) → eight lanes \(hex(wide[l])), one lane \(hex(one))")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// Every kind of fused pair (`FusedPair`), its first operation, its second and whether
    /// `t` is the second's left operand.
    static let pairs: [(FusedPair, first: Opcode, second: Opcode, tFirst: Bool)] = {
        let firsts: [Opcode] = [.fadd, .fsub, .fmul, .fdiv, .fmax, .fmin]
        let seconds: [Opcode] = [.fadd, .fsub, .fmul, .fdiv, .fmax, .fmin, .ffract]
        return firsts.flatMap { first in
            seconds.flatMap { second in
                [true, false].compactMap { tFirst in
                    FusedPair(first: first, second: second, tFirst: tFirst).map { ($0, first, second, tFirst) }
                }
            }
        }
    }()

    @Test func everyPairKindIsReached() {
        let kinds = Set((1...255).compactMap { FusedPair(rawValue: UInt8($0)) })
        #expect(Set(Self.pairs.map(\.0)) == kinds)
    }

    /// A fused step computes the bits of its two instructions run one lane at a time — NaN
    /// signs and payloads included, which no picture shows — on every pair of special
    /// values, with a third operand cycling through them too, whether the destination is
    /// fresh or one of the operands.
    @Test(arguments: pairs.indices)
    func fusedPairsMatchTheirTwoSteps(_ index: Int) throws {
        let (kind, firstOpcode, secondOpcode, tFirst) = Self.pairs[index]
        let (executor, lanes) = try Self.scratchMachine(registers: 8)
        defer { withExtendedLifetime(executor) {} }
        let machine = executor.machine
        let values = Self.specials
        let operands = Self.specialPairs
        let unaryFirst = firstOpcode.shape == .unary, unarySecond = secondOpcode.shape == .unary
        var mismatches: [String] = []
        // The destination fresh (r0), in place of `x` (r1) or of `s` (r3): `acc = acc + x · y`.
        for destination in [UInt32(0), 1, 3] {
            var fused = Self.instruction(firstOpcode, a: destination, b: 1, c: unaryFirst ? 1 : 2)
            fused.fusion = kind.rawValue
            fused.d = unarySecond ? 0 : 3 * UInt32(laneCount)
            for start in stride(from: 0, to: operands.count, by: laneCount) {
                let batch = Array(operands[start..<min(start + laneCount, operands.count)])
                let thirds = batch.indices.map { values[(start + $0 * 7) % values.count] }
                for (l, (x, y)) in batch.enumerated() { lanes(1)[l] = x; lanes(2)[l] = y; lanes(3)[l] = thirds[l] }
                withUnsafePointer(to: fused) { Execution.fusedStep(machine, $0) }
                for (l, (x, y)) in batch.enumerated() {
                    // The reference: t into r4, then the second into r5, one lane each.
                    lanes(6)[0] = x; lanes(7)[0] = y
                    _ = Execution.step(machine, Self.instruction(firstOpcode, a: 4, b: 6, c: 7), lanes: 1)
                    lanes(6)[0] = thirds[l]
                    let second = tFirst ? Self.instruction(secondOpcode, a: 5, b: 4, c: 6)
                                        : Self.instruction(secondOpcode, a: 5, b: 6, c: 4)
                    _ = Execution.step(machine, second, lanes: 1)
                    let wide = lanes(destination)[l], one = lanes(5)[0]
                    if wide != one, mismatches.count < 5 {
                        mismatches.append("\(kind) into r\(destination): x \(hex(x)) y \(hex(y)) s \(hex(thirds[l])) → fused \(hex(wide)), apart \(hex(one))")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    private func hex(_ word: UInt32) -> String { "0x" + String(word, radix: 16) }
}
