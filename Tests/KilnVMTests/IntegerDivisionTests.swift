import KilnBytecode
import Testing
@testable import KilnVM

/// Integer division and remainder run eight lanes at a time through binary64
/// (`Execution.divide`); every lane must get what the scalar rule gives — C's truncating
/// division, ÷0 → 0, INT_MIN ÷ −1 → INT_MIN with remainder 0 — for any operands.
@Suite struct IntegerDivisionTests {
    static let edges: [UInt32] = [0, 1, 2, 3, 5, 7, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFF, 0xFFFF_FFFE,
                                  0xFFFF_FFF9, 0x0001_0000, 0x00FF_FFFF, 0x0100_0001, 0x7FFF_FFFE]

    /// Operand pairs: every pair of edges, then random words, small divisors and dividends
    /// that are multiples of their divisor (or one off), in 64-lane batches.
    static func pairs() -> [(UInt32, UInt32)] {
        var result = edges.flatMap { x in edges.map { (x, $0) } }
        var g = MathAccuracyTests.Generator(state: 77)
        for _ in 0..<60_000 {
            let x = UInt32(truncatingIfNeeded: g.next()), y = UInt32(truncatingIfNeeded: g.next())
            let small = UInt32(truncatingIfNeeded: g.next() % 41) &- 20
            result.append((x, y))
            result.append((x, small))
            result.append((x >> (g.next() % 32), y >> (g.next() % 32)))
            let multiple = small &* UInt32(truncatingIfNeeded: g.next() % 100_000_000)
            result.append((multiple &+ UInt32(truncatingIfNeeded: g.next() % 3) &- 1, small))
        }
        return result
    }

    static func scalarSigned(_ x: Int32, _ y: Int32) -> (Int32, Int32) {
        if y == 0 { return (0, 0) }
        if x == .min && y == -1 { return (.min, 0) }
        return (x / y, x % y)
    }

    @Test func everyLaneGetsTheScalarAnswer() throws {
        let all = Self.pairs()
        var mismatches: [String] = []
        for start in stride(from: 0, to: all.count, by: laneCount) {
            let batch = Array(all[start..<min(start + laneCount, all.count)])
            let xs = batch.map(\.0), ys = batch.map(\.1)
            let (q, r) = (try apply(.idiv, xs, ys), try apply(.irem, xs, ys))
            let (uq, ur) = (try apply(.udiv, xs, ys), try apply(.urem, xs, ys))
            for (l, (x, y)) in batch.enumerated() {
                let (sq, sr) = Self.scalarSigned(Int32(bitPattern: x), Int32(bitPattern: y))
                let (eq, er) = y == 0 ? (UInt32(0), UInt32(0)) : (x / y, x % y)
                if q[l] != UInt32(bitPattern: sq) || r[l] != UInt32(bitPattern: sr) || uq[l] != eq || ur[l] != er {
                    mismatches.append("\(x), \(y): \(q[l]) \(r[l]) \(uq[l]) \(ur[l])")
                }
            }
        }
        #expect(all.count > 200_000)
        #expect(mismatches.isEmpty, "\(mismatches.count) lanes differ, first \(mismatches.prefix(5))")
    }
}
