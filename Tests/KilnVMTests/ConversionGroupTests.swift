import KilnBytecode
import Testing
@testable import KilnVM

/// `ftoi` and `ftou` convert eight lanes at a time from the float's bits
/// (`KilnMath.toInt32(_: SIMD8<Float>)`); every lane must get what the scalar conversion
/// gives — truncation toward zero, saturation, NaN → 0 — for any float. (All 2³² floats
/// were compared once when the group version was written; this sweeps a stride of them,
/// every exponent included, and the edges.)
@Suite struct ConversionGroupTests {
    static let edges: [Float] = [
        0, -0.0, 0.5, -0.5, 0.99999994, -0.99999994, 1, -1, 1.5, -1.5, 2.5, -2.5,
        8_388_607.5, -8_388_607.5, 8_388_608, 16_777_215, 16_777_216, 16_777_218,
        2_147_483_520, -2_147_483_520, 2_147_483_648, -2_147_483_648, -2_147_483_904,
        4_294_967_040, 4_294_967_296, 3e38, -3e38, .infinity, -.infinity, .nan, -.nan,
        .signalingNaN, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
    ]

    /// The edges, then every 65 521st bit pattern (a prime stride: every exponent and sign,
    /// a spread of significands).
    static func operands() -> [Float] {
        edges + stride(from: UInt64(0), to: 1 << 32, by: 65_521).map { Float(bitPattern: UInt32($0)) }
    }

    @Test func everyLaneGetsTheScalarConversion() throws {
        let all = Self.operands()
        var mismatches: [String] = []
        for start in stride(from: 0, to: all.count, by: laneCount) {
            let batch = Array(all[start..<min(start + laneCount, all.count)])
            let signed = try apply(.ftoi, bits(batch)), unsigned = try apply(.ftou, bits(batch))
            for (l, x) in batch.enumerated() {
                let s = UInt32(bitPattern: KilnMath.toInt32(x)), u = KilnMath.toUInt32(x)
                if signed[l] != s || unsigned[l] != u {
                    mismatches.append("\(x) (0x\(String(x.bitPattern, radix: 16))): \(signed[l]) \(unsigned[l]), scalar \(s) \(u)")
                }
            }
        }
        #expect(all.count > 65_000)
        #expect(mismatches.isEmpty, "\(mismatches.count) lanes differ, first \(mismatches.prefix(5))")
    }
}
