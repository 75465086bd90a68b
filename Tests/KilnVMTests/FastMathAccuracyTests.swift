import Testing
import Foundation
import KilnBytecode
@testable import KilnVM

/// The binary32 versions of sin, cos, tan, exp and exp2 (what a shader's plain call runs)
/// against Foundation's binary64 functions, over at least 10⁶ inputs per function through
/// the VM's lane loops. The bounds here are the ones docs/vm.md and the opcode table
/// promise; the measured maxima are printed (`math accuracy: …`).
@Suite struct FastMathAccuracyTests {
    typealias M = MathAccuracyTests

    /// Inputs per function; `KILN_MATH_SAMPLES` raises it for a long run.
    static let count = max(1_000_000, M.count)

    static let trigEdges: [Float] = [0, -0.0, 1e-30, -1e-30, .pi / 4, .pi / 2, .pi, 3 * .pi / 2, 2 * .pi,
                                     1e5, -1e5, 999_999, -999_999, 1421.0, 12.9898 * 127.5 + 78.233 * 127.5]

    /// Uniform over |x| < 10⁵ (the hash arguments of noise shaders), plus a quarter in ±8
    /// (ordinary angles) and a quarter up to the end of the fast range.
    static func trigInputs() -> [Float] {
        trigEdges + M.inputs(count / 2) { $0.uniform(-1e5, 1e5) } + M.inputs(count / 4, seed: 11) { $0.uniform(-8, 8) }
            + M.inputs(count / 4, seed: 12) { $0.uniform(-999_999, 999_999) }
    }

    @Test func sinAndCosWithinTwoUlp() throws {
        let xs = Self.trigInputs()
        try M.check("fast sin |x|<1e6", .fsin, bound: 2, xs) { x, _ in Foundation.sin(x) }
        try M.check("fast cos |x|<1e6", .fcos, bound: 2, xs) { x, _ in Foundation.cos(x) }
    }

    @Test func tanWithinFourUlp() throws {
        try M.check("fast tan |x|<1e6", .ftan, bound: 4, Self.trigInputs()) { x, _ in Foundation.tan(x) }
    }

    /// Past the fast range and for non-finite x the precise path answers: the same bits.
    @Test func largeArgumentsTakeThePrecisePath() throws {
        let xs: [Float] = [1e6, -1e6, 3e6, 1e10, 0x1p100, -0x1.fffffep127]
        for (fast, precise) in [(Opcode.fsin, Opcode.psin), (.fcos, .pcos), (.ftan, .ptan)] {
            #expect(try applyFloat(fast, xs) == applyFloat(precise, xs))
            #expect(try applyFloat(fast, [.infinity, .nan, -.infinity]).allSatisfy(\.isNaN))
        }
    }

    @Test func exponentialsWithinTwoUlp() throws {
        let xs = [0, -0.0, 1, -1, 88.7, 88.72, 88.73, 89, -87.3, -103.9, -104, -150, 1e-8]
            + M.inputs(Self.count) { $0.uniform(-104, 89) } + M.inputs(Self.count / 4, seed: 13) { $0.uniform(-2, 2) }
        try M.check("fast exp", .fexp, bound: 2, xs) { x, _ in Foundation.exp(x) }
        let ys = [0, 1, -1, 127.9, 128, -126, -149, -150, -149.5, 0.5, 3]
            + M.inputs(Self.count) { $0.uniform(-150, 128) } + M.inputs(Self.count / 4, seed: 14) { $0.uniform(-1, 1) }
        try M.check("fast exp2", .fexp2, bound: 2, ys) { x, _ in Foundation.exp2(x) }
        #expect(try applyFloat(.fexp2, [3, -2, 10, 0, -149]) == [8, 0.25, 1024, 1, 0x1p-149])
        #expect(try applyFloat(.fexp, [0, .infinity, -.infinity, 100, -200]) == [1, .infinity, 0, .infinity, 0])
        #expect(try applyFloat(.fexp, [.nan])[0].isNaN && applyFloat(.fexp2, [.nan])[0].isNaN)
    }

    /// A uniform operand (one lane, `scalarStep`), an operand the same in every lane
    /// (computed once and broadcast) and a varying one give the same bits for the same x.
    @Test func everyPathGivesTheSameBits() throws {
        let xs = M.inputs(64 * 50, seed: 15) { $0.uniform(-2e5, 2e5) }
        for opcode in [Opcode.fsin, .fcos, .ftan, .fexp, .fexp2] {
            let scalar: (Float) -> Float
            switch opcode {
            case .fsin: scalar = KilnMath.fastSinAny
            case .fcos: scalar = KilnMath.fastCosAny
            case .ftan: scalar = KilnMath.fastTanAny
            case .fexp: scalar = KilnMath.fastExp
            default: scalar = KilnMath.fastExp2
            }
            let lanes = try applyFloat(opcode, Array(xs.prefix(64)))
            #expect(lanes.map(\.bitPattern) == xs.prefix(64).map { scalar($0).bitPattern })
            for x in xs.prefix(20) {
                #expect(try applyFloat(opcode, [Float](repeating: x, count: 64)).allSatisfy { $0.bitPattern == scalar(x).bitPattern })
            }
        }
    }
}
