import Testing
import Foundation
import KilnBytecode
@testable import KilnVM

/// The binary32 versions of sin, cos, tan, asin, acos, atan, atan2, exp, exp2, log, log2,
/// log10 and pow (what a shader's plain call runs)
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

    @Test func logarithmsWithinTwoUlp() throws {
        let xs = [1, 2, 0x1p-149, 0x1p-126, Float.leastNormalMagnitude.nextDown, 0x1.fffffep127, 0x1.000002p0, 0x1.fffffep-1, 10, 0.1,
                  Float(0.5).squareRoot(), Float(0.5).squareRoot().nextDown, Float(0.5).squareRoot().nextUp]
            + M.inputs(Self.count) { $0.anyBits().magnitude } + M.inputs(Self.count / 4, seed: 16) { $0.uniform(0.5, 2) }
        try M.check("fast log", .flog, bound: 2, xs) { x, _ in Foundation.log(x) }
        try M.check("fast log2", .flog2, bound: 2, xs) { x, _ in Foundation.log2(x) }
        try M.check("fast log10", .flog10, bound: 2, xs) { x, _ in Foundation.log10(x) }
        #expect(try applyFloat(.flog2, [8, 0.25, 1, 0x1p-149, 0x1p127]) == [3, -2, 0, -149, 127])
        for opcode in [Opcode.flog, .flog2, .flog10] {
            let special = try applyFloat(opcode, [0, -0.0, -1, .infinity, .nan, -.infinity])
            #expect(special[0] == -.infinity && special[1] == -.infinity && special[2].isNaN && special[3] == .infinity
                    && special[4].isNaN && special[5].isNaN, "\(opcode): \(special)")
        }
    }

    @Test func inverseTrigonometryWithinThreeUlp() throws {
        let unit = [1, -1, 0, -0.0, 0.5, Float(0.5).nextUp, -0.5, Float(-0.5).nextDown, 0x1.fffffep-1, 1e-20, -1e-38]
            + M.inputs(Self.count) { $0.uniform(-1, 1) } + M.inputs(Self.count / 4, seed: 17) { $0.uniform(-1e-3, 1e-3) }
        try M.check("fast asin", .fasin, bound: 3, unit) { x, _ in Foundation.asin(x) }
        try M.check("fast acos", .facos, bound: 3, unit) { x, _ in Foundation.acos(x) }
        let wide = [0, -0.0, 1, -1, .infinity, -.infinity, 1e-30, 1e30, 0x1p-149, 2.414213562373095, 0.4142135623730950]
            + M.inputs(Self.count) { $0.anyBits() } + M.inputs(Self.count / 2, seed: 18) { $0.uniform(-4, 4) }
        try M.check("fast atan", .fatan, bound: 3, wide) { x, _ in Foundation.atan(x) }
        for opcode in [Opcode.fasin, .facos] {
            #expect(try applyFloat(opcode, [1.0000001, -1.0000001, 2, .infinity, .nan]).allSatisfy(\.isNaN))
        }
        #expect(try applyFloat(.fatan, [.nan])[0].isNaN)
        #expect(try applyFloat(.fasin, [0, -0.0, 1, -1]).map(\.bitPattern)
                == [Float(0), -0.0, Float(Double.pi / 2), -Float(Double.pi / 2)].map(\.bitPattern))
        #expect(try applyFloat(.facos, [1, -1, 0]) == [0, Float(Double.pi), Float(Double.pi / 2)])
    }

    @Test func atan2WithinThreeUlpAndCRules() throws {
        let ys = M.inputs(Self.count, seed: 19) { $0.anyBits(maxExponent: 160) }
        let xs = M.inputs(Self.count, seed: 20) { $0.anyBits(maxExponent: 160) }
        try M.check("fast atan2", .fatan2, bound: 3, ys, xs) { y, x in Foundation.atan2(y, x) }
        // Ordinary angles: points of a ±4 square (polar coordinates of a centred uv).
        let py = M.inputs(Self.count / 2, seed: 23) { $0.uniform(-4, 4) }, px = M.inputs(Self.count / 2, seed: 24) { $0.uniform(-4, 4) }
        try M.check("fast atan2 (±4 square)", .fatan2, bound: 3, py, px) { y, x in Foundation.atan2(y, x) }
        let y: [Float] = [0, -0.0, 0, -0.0, 1, -1, .infinity, .infinity, -.infinity, 1, -1, 0, .nan, 1, 1e30, 1e-30]
        let x: [Float] = [0, 0, -0.0, -0.0, 0, 0, .infinity, -.infinity, 5, -.infinity, .infinity, -3, 1, .nan, 1e-30, -1e30]
        let r = try applyFloat(.fatan2, y, x)
        let expected = zip(y, x).map { Float(Foundation.atan2(Double($0), Double($1))) }
        #expect(same(r, expected), "\(r) vs \(expected)")
    }

    @Test func powWithinFourUlpForOrdinaryExponentsAndCSpecialCases() throws {
        let bases = M.inputs(Self.count, seed: 31) { $0.uniform(0, 100) }
        let exponents = M.inputs(Self.count, seed: 32) { $0.uniform(-18, 18) }
        try M.check("fast pow x∈[0,100] y∈[−18,18]", .fpow, bound: 4, bases, exponents) { x, y in Foundation.pow(x, y) }
        // Every binade of x, with y chosen so that y·log₂x spans the whole binary32 range:
        // large exponents of bases near 1 are where a binary32 log₂ would lose the most.
        var g = M.Generator(state: 33)
        var wideX: [Float] = [], wideY: [Float] = []
        for _ in 0..<Self.count {
            let x = g.anyBits().magnitude
            let target = Double(g.uniform(-149, 127.9))
            let log2x = Foundation.log2(Double(x))
            guard x != 1, log2x.isFinite, log2x != 0 else { continue }
            wideX.append(x); wideY.append(Float(target / log2x))
        }
        for _ in 0..<(Self.count / 4) {
            let x = 1 + g.uniform(-1e-3, 1e-3)
            let log2x = Foundation.log2(Double(x))
            guard log2x != 0 else { continue }
            wideX.append(x); wideY.append(Float(Double(g.uniform(-149, 127.9)) / log2x))
        }
        // Here the polynomial's own error (≈ 2⁻²⁶ in log₂ for f near ±0.4) is multiplied by
        // |y| up to ~400: 16 ulp is Metal's bound for its *precise* pow.
        try M.check("fast pow (whole range)", .fpow, bound: 16, wideX, wideY) { x, y in Foundation.pow(x, y) }
        let x: [Float] = [0, -0.0, -0.0, 0, -2, -2, -2, -1, -1, 1, .nan, .nan, 2, 0.5, .infinity, -.infinity, -.infinity, -8, 3,
                          0, 2, 0.5, .infinity, 1, -1, 2, 2, 0.5]
        let y: [Float] = [-1, -3, 3, 0.5, 3, 2, 0.5, .infinity, -.infinity, .nan, 0, 1, .infinity, .infinity, -2, 3, 2, 1.0 / 3, 2,
                          .infinity, -.infinity, -.infinity, 0.5, .nan, 3, 200, -200, 1e30]
        let r = try applyFloat(.fpow, x, y)
        let expected = zip(x, y).map { Float(Foundation.pow(Double($0), Double($1))) }
        #expect(same(r, expected), "\(r) vs \(expected)")
        #expect(r[18] == 9)
        let exact = try applyFloat(.fpow, [2, 10, 3], [10, 3, -2])
        #expect(exact == [1024, 1000, Float(1.0 / 9)], "\(exact)")
    }

    @Test func hyperbolicFunctionsWithinThreeUlp() throws {
        let xs = [0, -0.0, 1e-20, 0.624, 0.625, 0.99, 1, 1.01, 44, 87.9, 88, 88.1, 89.4, 89.5, -89.5, 20, 30, 1e-38]
            + M.inputs(Self.count) { $0.uniform(-90, 90) } + M.inputs(Self.count / 4, seed: 28) { $0.uniform(-2, 2) }
        try M.check("fast sinh", .fsinh, bound: 3, xs) { x, _ in Foundation.sinh(x) }
        try M.check("fast cosh", .fcosh, bound: 3, xs) { x, _ in Foundation.cosh(x) }
        try M.check("fast tanh", .ftanh, bound: 3, xs) { x, _ in Foundation.tanh(x) }
        #expect(try applyFloat(.fsinh, [.infinity, -.infinity, 0, -0.0]).map(\.bitPattern)
                == [Float.infinity, -.infinity, 0, -0.0].map(\.bitPattern))
        #expect(try applyFloat(.fcosh, [.infinity, -.infinity, 0]) == [.infinity, .infinity, 1])
        #expect(try applyFloat(.ftanh, [.infinity, -.infinity, 100, -0.0]).map(\.bitPattern)
                == [Float(1), -1, 1, -0.0].map(\.bitPattern))
        for opcode in [Opcode.fsinh, .fcosh, .ftanh] { #expect(try applyFloat(opcode, [.nan])[0].isNaN) }
    }

    /// Batches whose operands need no special case (positive normal bases, finite exponents)
    /// run the polynomial alone; one lane that does sends the batch through every select.
    /// Either way a lane gets the any-input function's bits.
    @Test func ordinaryBatchesGiveTheAnyInputBits() throws {
        let xs = M.inputs(64, seed: 25) { $0.anyBits().magnitude }.map { max($0, .leastNormalMagnitude) }
        let ys = M.inputs(64, seed: 26) { $0.uniform(-40, 40) }
        var mixed = xs
        mixed[63] = -1                                                    // NaN for every log
        let functions: [(Opcode, (Float) -> Float)] = [(.flog, KilnMath.fastLog), (.flog2, KilnMath.fastLog2),
                                                        (.flog10, KilnMath.fastLog10)]
        for (opcode, scalar) in functions {
            #expect(try applyFloat(opcode, xs).map(\.bitPattern) == xs.map { scalar($0).bitPattern }, "\(opcode)")
            let out = try applyFloat(opcode, mixed)
            #expect(out.prefix(63).map(\.bitPattern) == xs.prefix(63).map { scalar($0).bitPattern } && out[63].isNaN)
        }
        let bases = M.inputs(64, seed: 27) { $0.uniform(1e-3, 50) }
        let pow = try applyFloat(.fpow, bases, ys)
        #expect(pow.map(\.bitPattern) == zip(bases, ys).map { KilnMath.fastPow($0, $1).bitPattern })
        var withNegative = bases
        withNegative[5] = -2
        let mixedPow = try applyFloat(.fpow, withNegative, ys)
        #expect(zip(withNegative, ys).enumerated().allSatisfy { l, pair in same(mixedPow[l], KilnMath.fastPow(pair.0, pair.1)) })
        #expect(KilnMath.fastPowMagnitude(1, 123.5, normal: true) == 1 && KilnMath.fastPowMagnitude(7, -0.0, normal: true) == 1)
    }

    /// A uniform operand (one lane, `scalarStep`), an operand the same in every lane
    /// (computed once and broadcast) and a varying one give the same bits for the same x.
    @Test func everyPathGivesTheSameBits() throws {
        let xs = M.inputs(64 * 50, seed: 15) { $0.uniform(-2e5, 2e5) }
        let unary: [(Opcode, (Float) -> Float)] = [
            (.fsin, KilnMath.fastSinAny), (.fcos, KilnMath.fastCosAny), (.ftan, KilnMath.fastTanAny),
            (.fexp, KilnMath.fastExp), (.fexp2, KilnMath.fastExp2), (.fasin, KilnMath.fastAsin),
            (.facos, KilnMath.fastAcos), (.fatan, KilnMath.fastAtan), (.flog, KilnMath.fastLog),
            (.flog2, KilnMath.fastLog2), (.flog10, KilnMath.fastLog10), (.fsinh, KilnMath.fastSinh),
            (.fcosh, KilnMath.fastCosh), (.ftanh, KilnMath.fastTanh),
            (.fatan2, { KilnMath.fastAtan2($0, 0.75) }), (.fpow, { KilnMath.fastPow($0, 0.75) })]
        for (opcode, scalar) in unary {
            // The binary ones get 0.75 as their second operand (pow of |x|·10⁻⁴, a real number).
            let inputs = opcode == .fpow ? xs.prefix(64).map { $0.magnitude * 1e-4 } : Array(xs.prefix(64))
            let lanes = try applyFloat(opcode, inputs, [0.75])
            #expect(lanes.map(\.bitPattern) == inputs.map { scalar($0).bitPattern }, "\(opcode)")
            for x in inputs.prefix(20) {
                #expect(try applyFloat(opcode, [Float](repeating: x, count: 64), [0.75]).allSatisfy { $0.bitPattern == scalar(x).bitPattern })
            }
        }
    }
}
