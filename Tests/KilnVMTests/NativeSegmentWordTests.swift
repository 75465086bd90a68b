import KilnBytecode
@testable import KilnVM
import Testing

/// Each operation a native segment compiles (`NativeSegments.Kind`) gives the bits of the
/// interpreter's one-lane step — NaN signs and payloads included, which no picture shows —
/// on every ordered pair of special values, with the destination fresh or in place of
/// either operand; and a chain keeps its intermediates in registers without losing a value
/// that is live after it.
@Suite(.enabled(if: NativeSegments.supported, "native segments need x86-64 with AVX"))
struct NativeSegmentWordTests {
    static let opcodes: [Opcode] = [.fadd, .fsub, .fmul, .fdiv, .fmin, .fmax, .ffloor, .ffract, .fsqrt, .fabs, .fneg,
                                    .mov, .feq, .fne, .flt, .fle, .and, .or, .xor, .not]

    static func instruction(_ opcode: Opcode, a: UInt16, b: UInt16, c: UInt16) -> Instruction {
        Instruction(opcode, a: a, b: b, c: opcode.shape == .unary ? 0 : c)
    }

    @Test(arguments: opcodes)
    func operationsMatchTheOneLaneStep(_ opcode: Opcode) throws {
        let (executor, lanes) = try LaneGroupTests.scratchMachine(registers: 6)
        defer { withExtendedLifetime(executor) {} }
        let machine = executor.machine
        let pairs = LaneGroupTests.specialPairs
        var mismatches: [String] = []
        for destination: UInt16 in [0, 1, 2] {
            let run = [Self.instruction(opcode, a: destination, b: 1, c: 2)]
            let code = try #require(NativeSegments.assemble(run, liveAfter: RegisterSet(count: 6, full: true)))
            for start in stride(from: 0, to: pairs.count, by: laneCount) {
                let batch = Array(pairs[start..<min(start + laneCount, pairs.count)])
                for (l, (x, y)) in batch.enumerated() { lanes(1)[l] = x; lanes(2)[l] = y }
                code.entries[0](UnsafeMutableRawPointer(machine.registers), NativeSegments.constants)
                for (l, (x, y)) in batch.enumerated() {
                    lanes(4)[0] = x; lanes(5)[0] = y
                    _ = Execution.step(machine, LaneGroupTests.instruction(opcode, a: 3, b: 4, c: 5), lanes: 1)
                    let native = lanes(UInt32(destination))[l], one = lanes(3)[0]
                    if native != one, mismatches.count < 5 {
                        mismatches.append("\(opcode) into r\(destination): \(hex(x)), \(hex(y)) → native \(hex(native)), step \(hex(one))")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// `fmin`/`fmax` with an operand known to be a constant (`NativeSegments.knownConstants`)
    /// skip the NaN fix-up when that constant is a number — on either side, ±0 on the left
    /// excepted: every special word as the constant, every special word as the other operand.
    @Test(arguments: [Opcode.fmin, .fmax])
    func minimumAndMaximumOfAKnownConstantMatchTheOneLaneStep(_ opcode: Opcode) throws {
        let (executor, lanes) = try LaneGroupTests.scratchMachine(registers: 6)
        defer { withExtendedLifetime(executor) {} }
        let machine = executor.machine
        let words = LaneGroupTests.specials
        var mismatches: [String] = []
        for k in words {
            for constantOnLeft in [false, true] {
                let (constant, other): (UInt16, UInt16) = constantOnLeft ? (1, 2) : (2, 1)
                let run = [Self.instruction(opcode, a: 0, b: 1, c: 2)]
                let code = try #require(NativeSegments.assemble(run, liveAfter: RegisterSet(count: 6, full: true),
                                                                knownConstants: [constant: k]))
                for l in 0..<laneCount {
                    lanes(UInt32(constant))[l] = k
                    lanes(UInt32(other))[l] = words[l % words.count]
                }
                code.entries[0](UnsafeMutableRawPointer(machine.registers), NativeSegments.constants)
                for l in 0..<laneCount {
                    lanes(4)[0] = lanes(1)[l]; lanes(5)[0] = lanes(2)[l]
                    _ = Execution.step(machine, LaneGroupTests.instruction(opcode, a: 3, b: 4, c: 5), lanes: 1)
                    if lanes(0)[l] != lanes(3)[0], mismatches.count < 5 {
                        mismatches.append("\(opcode)(\(hex(lanes(1)[l])), \(hex(lanes(2)[l]))), constant on the \(constantOnLeft ? "left" : "right") → native \(hex(lanes(0)[l])), step \(hex(lanes(3)[0]))")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// `sel` on every special word as the condition (0 and −0.0's bits differ), its two
    /// values cycling through them too, the destination fresh or in place of any operand.
    @Test func selectMatchesTheOneLaneStep() throws {
        let (executor, lanes) = try LaneGroupTests.scratchMachine(registers: 8)
        defer { withExtendedLifetime(executor) {} }
        let machine = executor.machine
        let words = LaneGroupTests.specials
        let triples = words.indices.flatMap { i in words.indices.map { j in (words[i], words[j], words[(i + j * 7) % words.count]) } }
        var mismatches: [String] = []
        for destination: UInt16 in [0, 1, 2, 3] {
            let run = [Instruction(.sel, a: destination, b: 1, c: 2, d: 3)]
            let code = try #require(NativeSegments.assemble(run, liveAfter: RegisterSet(count: 8, full: true)))
            for start in stride(from: 0, to: triples.count, by: laneCount) {
                let batch = Array(triples[start..<min(start + laneCount, triples.count)])
                for (l, (b, c, d)) in batch.enumerated() { lanes(1)[l] = b; lanes(2)[l] = c; lanes(3)[l] = d }
                code.entries[0](UnsafeMutableRawPointer(machine.registers), NativeSegments.constants)
                for (l, (b, c, d)) in batch.enumerated() {
                    let expected = b != 0 ? c : d
                    if lanes(UInt32(destination))[l] != expected, mismatches.count < 5 {
                        mismatches.append("sel into r\(destination): \(hex(b)) ? \(hex(c)) : \(hex(d)) → \(hex(lanes(UInt32(destination))[l]))")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// A run longer than the 16 vector registers hold, reading early results late: values
    /// that make room are stored first, results live after the run are stored, and a dead
    /// one is not (its register keeps the old words).
    @Test func aLongChainKeepsEveryLiveValue() throws {
        let (executor, lanes) = try LaneGroupTests.scratchMachine(registers: 40)
        defer { withExtendedLifetime(executor) {} }
        // r2…r21 := r1 + r0, r2 + r0 …; then r22 := r2 · r21 (r2 was made room for long ago);
        // r23 := r22 − r3. Live after: r22 and r23 and r2…r21; r39 is written and dead.
        var run: [Instruction] = []
        for k in UInt16(2)...21 { run.append(Self.instruction(.fadd, a: k, b: k - 1, c: 0)) }
        run.append(Self.instruction(.fmul, a: 22, b: 2, c: 21))
        run.append(Self.instruction(.fsub, a: 23, b: 22, c: 3))
        run.append(Self.instruction(.fmax, a: 39, b: 23, c: 0))
        var live = RegisterSet(count: 40, full: true)
        live[39] = false
        let code = try #require(NativeSegments.assemble(run, liveAfter: live))
        for l in 0..<laneCount {
            lanes(0)[l] = Float(0.25).bitPattern
            lanes(1)[l] = Float(l).bitPattern
            lanes(39)[l] = 0xDEAD_BEEF
        }
        code.entries[0](UnsafeMutableRawPointer(executor.machine.registers), NativeSegments.constants)
        for l in 0..<laneCount {
            var r = [Float](repeating: 0, count: 24)
            r[1] = Float(l)
            for k in 2...21 { r[k] = r[k - 1] + 0.25 }
            r[22] = r[2] * r[21]
            r[23] = r[22] - r[3]
            for k in 2...23 { #expect(lanes(UInt32(k))[l] == r[k].bitPattern, "lane \(l) r\(k)") }
            #expect(lanes(39)[l] == 0xDEAD_BEEF)
        }
    }

    private func hex(_ word: UInt32) -> String { "0x" + String(word, radix: 16) }
}
