import Testing
import KilnBytecode
@testable import KilnVM

@Suite struct FloatOpcodeTests {
    @Test func arithmetic() throws {
        #expect(try applyFloat(.fadd, [1, 0.1, .infinity], [2, 0.2, -.infinity]).prefix(2) == [3, 0.1 + 0.2])
        #expect(try applyFloat(.fadd, [.infinity], [-.infinity])[0].isNaN)
        #expect(try applyFloat(.fsub, [5, -0.0], [7, 0]) == [-2, -0.0])
        #expect(try applyFloat(.fmul, [3, 1e30], [-2, 1e30]) == [-6, .infinity])
        #expect(try applyFloat(.fdiv, [1, -1, 0], [3, 0, 0]).prefix(2) == [1 / 3, -.infinity])
        #expect(try applyFloat(.fdiv, [0], [0])[0].isNaN)
        #expect(same(try applyFloat(.fneg, [1, 0, -.infinity]), [-1, -0.0, .infinity]))
        #expect(same(try applyFloat(.fabs, [-1, -0.0, -.infinity]), [1, 0, .infinity]))
    }

    /// fma rounds once. (1 + 2⁻¹²)² = 1 + 2⁻¹¹ + 2⁻²⁴ lies exactly halfway between two floats,
    /// so a tiny addend decides the rounding direction: a separate multiply (ties to even) or
    /// a plain binary64 sum (which loses 2⁻⁸⁰ and then ties to even) both get it wrong.
    @Test func fusedMultiplyAddRoundsOnce() throws {
        let b: Float = 1 + 0x1p-12
        let fused = try applyFloat(.fma, [b, b, 3, 1 + 0x1p-23], [b, b, 4, 1 - 0x1p-23], [0x1p-80, -0x1p-80, 0.5, -1])
        #expect(fused[0] == 1 + 0x1p-11 + 0x1p-23)
        #expect(fused[1] == 1 + 0x1p-11)
        #expect(fused[2] == 12.5)
        #expect(fused[3] == -0x1p-46)                          // (1 + ε)(1 − ε) − 1 = −ε², lost without fusion
        #expect(b * b + 0x1p-80 == 1 + 0x1p-11)               // the unfused answer differs
    }

    @Test func minMaxIgnoreNaN() throws {
        #expect(try applyFloat(.fmin, [1, .nan, 3], [2, 5, .nan]) == [1, 5, 3])
        #expect(try applyFloat(.fmax, [1, .nan, 3], [2, 5, .nan]) == [2, 5, 3])
        #expect(try applyFloat(.fmin, [.nan], [.nan])[0].isNaN)
    }

    @Test func roundingFamily() throws {
        let x: [Float] = [2.5, -2.5, 0.5, -0.5, 1.7, -1.7, -0.0, 0x1p23 + 1, 1e30, .infinity, 3.5]
        #expect(same(try applyFloat(.ffloor, x), [2, -3, 0, -1, 1, -2, -0.0, 0x1p23 + 1, 1e30, .infinity, 3]))
        #expect(same(try applyFloat(.fceil, x), [3, -2, 1, -0.0, 2, -1, -0.0, 0x1p23 + 1, 1e30, .infinity, 4]))
        #expect(same(try applyFloat(.ftrunc, x), [2, -2, 0, -0.0, 1, -1, -0.0, 0x1p23 + 1, 1e30, .infinity, 3]))
        #expect(same(try applyFloat(.fround, x), [3, -3, 1, -1, 2, -2, -0.0, 0x1p23 + 1, 1e30, .infinity, 4]))
        #expect(same(try applyFloat(.frint, x), [2, -2, 0, -0.0, 2, -2, -0.0, 0x1p23 + 1, 1e30, .infinity, 4]))
        #expect(try applyFloat(.ffloor, [.nan])[0].isNaN)
        #expect(try applyFloat(.fround, [0.49999997])[0] == 0)
    }

    @Test func fractNeverReachesOne() throws {
        let r = try applyFloat(.ffract, [1.25, -1.25, -1e-9, -0x1p-30, 5, .infinity])
        #expect(r[0] == 0.25)
        #expect(r[1] == 0.75)
        #expect(r[2] == 0x1.fffffep-1)
        #expect(r[3] == 0x1.fffffep-1)
        #expect(r[4] == 0)
        #expect(r[5].isNaN)
    }

    @Test func signAndClassification() throws {
        #expect(same(try applyFloat(.fsign, [3, -2, 0, -0.0, .nan, -.infinity]), [1, -1, 0, -0.0, 0, -1]))
        #expect(try apply(.fisnan, bits([.nan, 1, .infinity, -.nan])) == [1, 0, 0, 1])
        #expect(try apply(.fisinf, bits([.nan, 1, .infinity, -.infinity])) == [0, 0, 1, 1])
    }

    @Test func comparisonsAreOrdered() throws {
        let b: [Float] = [1, 2, .nan, 0, -0.0]
        let c: [Float] = [2, 2, .nan, -0.0, 0]
        #expect(try apply(.feq, bits(b), bits(c)) == [0, 1, 0, 1, 1])
        #expect(try apply(.fne, bits(b), bits(c)) == [1, 0, 1, 0, 0])
        #expect(try apply(.flt, bits(b), bits(c)) == [1, 0, 0, 0, 0])
        #expect(try apply(.fle, bits(b), bits(c)) == [1, 1, 0, 1, 1])
    }

    @Test func squareRoots() throws {
        #expect(try applyFloat(.fsqrt, [4, 2, 0]) == [2, Float(2).squareRoot(), 0])
        #expect(try applyFloat(.fsqrt, [-1])[0].isNaN)
        let r = try applyFloat(.frsqrt, [4, 0, 2])
        #expect(r[0] == 0.5)
        #expect(r[1] == .infinity)
        #expect(r[2] == Float(1 / Double(2).squareRoot()))
    }

    @Test func conversionsSaturate() throws {
        let x: [Float] = [.nan, .infinity, -.infinity, 3e9, -3e9, -2.7, 2.7, 2_147_483_520, -2_147_483_648, -0.5]
        #expect(try apply(.ftoi, bits(x)) == words([0, .max, .min, .max, .min, -2, 2, 2_147_483_520, .min, 0]))
        let u: [Float] = [.nan, .infinity, -.infinity, 5e9, -3, 2.7, 4_294_967_040, -0.9]
        #expect(try apply(.ftou, bits(u)) == [0, .max, 0, .max, 0, 2, 4_294_967_040, 0])
        let i = try apply(.itof, words([-3, .max, .min, 16_777_217])).map { Float(bitPattern: $0) }
        #expect(i == [-3, 2_147_483_648, -2_147_483_648, 16_777_216])
        let f = try apply(.utof, [0xFFFF_FFFF, 7]).map { Float(bitPattern: $0) }
        #expect(f == [4_294_967_296, 7])
    }
}
