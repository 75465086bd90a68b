import Testing
import Foundation
import KilnBytecode
@testable import KilnVM

/// Accuracy of Kiln's builtin math (the binary64 `precise::` versions, sqrt, rsqrt and fmod; the binary32 ones are `FastMathAccuracyTests`) against Foundation's binary64 functions (the oracle; only
/// tests may call libm). Each test samples inputs with a fixed-seed generator, runs them
/// through the VM's lane loops (so the vectorized and fix-up paths are what is measured),
/// and reports the largest error in binary32 ulps of the exact result.
@Suite struct MathAccuracyTests {
    /// Deterministic xorshift generator: the same inputs on every run.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        mutating func uniform(_ low: Float, _ high: Float) -> Float {
            low + (high - low) * Float(next() >> 40) * 0x1p-24
        }
        /// A float with random bits inside [low, high] magnitude (covers every binade).
        mutating func anyBits(maxExponent: UInt32 = 254) -> Float {
            Float(bitPattern: UInt32(truncatingIfNeeded: next()) & 0x807F_FFFF | (UInt32(next() % UInt64(maxExponent + 1)) << 23))
        }
    }

    /// Error of `got` in ulps of binary32 at the exact value `exact`.
    static func ulps(_ got: Float, _ exact: Double) -> Double {
        if exact.isNaN { return got.isNaN ? 0 : .infinity }
        if got.isNaN { return .infinity }
        let rounded = Float(exact)
        if rounded.isInfinite {
            // Overflow: ∞ is right; the largest finite value is one ulp off.
            return got == rounded ? 0 : (got.magnitude == .greatestFiniteMagnitude && got.sign == rounded.sign ? 1 : .infinity)
        }
        var ulp = Double(rounded.magnitude.ulp)
        // Just below a power of two the result rounds up into the next binade: use the smaller ulp.
        if Double(rounded.magnitude) > exact.magnitude && rounded.magnitude.significandBitPattern == 0 && rounded != 0 { ulp /= 2 }
        ulp = max(ulp, Double(Float.leastNonzeroMagnitude))
        return (Double(got) - exact).magnitude / ulp
    }

    /// Runs `opcode` over `inputs` `laneCount` at a time through the VM and returns the max ulp error.
    static func maxError(_ opcode: Opcode, _ inputs: [Float], _ second: [Float]? = nil,
                         _ oracle: (Double, Double) -> Double) throws -> (ulps: Double, worst: (Float, Float)) {
        let program = TestProgram(registers: 3, body: [Instruction(opcode, a: 0, b: 1, c: 2)])
        let executor = try Executor(program.prepared, resources: DrawResources())
        var worst = 0.0, worstInput: (Float, Float) = (0, 0)
        var start = 0
        while start < inputs.count {
            let x = executor.floatLanes(1), y = executor.floatLanes(2)
            for l in 0..<laneCount {
                x[l] = inputs[(start + l) % inputs.count]
                y[l] = second?[(start + l) % inputs.count] ?? 0
            }
            try executor.run()
            let r = executor.floatLanes(0)
            for l in 0..<laneCount where start + l < inputs.count {
                let e = ulps(r[l], oracle(Double(x[l]), Double(y[l])))
                if e > worst || e.isNaN { worst = e; worstInput = (x[l], y[l]) }
            }
            start += laneCount
        }
        return (worst, worstInput)
    }

    static func inputs(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15, _ make: (inout Generator) -> Float) -> [Float] {
        var g = Generator(state: seed)
        return (0..<count).map { _ in make(&g) }
    }

    /// Inputs per function and distribution; `KILN_MATH_SAMPLES` raises it for a long run.
    static let count = Int(ProcessInfo.processInfo.environment["KILN_MATH_SAMPLES"] ?? "") ?? 400_000

    static func check(_ name: String, _ opcode: Opcode, bound: Double, _ xs: [Float], _ ys: [Float]? = nil,
                      _ oracle: (Double, Double) -> Double) throws {
        let (error, input) = try maxError(opcode, xs, ys, oracle)
        print("math accuracy: \(name) max \(String(format: "%.3f", error)) ulp over \(xs.count) inputs (worst at \(input))")
        #expect(error <= bound, "\(name): \(error) ulp at \(input)")
    }

    @Test func sinAndCosWithinOneUlp() throws {
        let edges: [Float] = [0, -0.0, 1e-30, .pi / 4, .pi / 2, .pi, 3 * .pi / 2, 1e5, -1e5, 1421.0, 12.9898 * 127.5 + 78.233 * 127.5]
        let xs = edges + Self.inputs(Self.count) { $0.uniform(-1e5, 1e5) } + Self.inputs(Self.count / 2, seed: 7) { $0.uniform(-8, 8) }
        try Self.check("precise sin |x|≤1e5", .psin, bound: 1, xs) { x, _ in Foundation.sin(x) }
        try Self.check("precise cos |x|≤1e5", .pcos, bound: 1, xs) { x, _ in Foundation.cos(x) }
    }

    /// The `sparkle` hash: sin of dot(p, (12.9898, 78.233)) for every pixel of a 128² image.
    @Test func sparkleArgumentsWithinOneUlp() throws {
        var xs: [Float] = []
        for y in 0..<128 {
            for x in 0..<128 {
                let p = (Float(x) + 0.5, Float(y) + 0.5)
                xs.append(p.0 * 12.9898 + p.1 * 78.233)
                xs.append(Float(x / 8) * 12.9898 + Float(y / 8) * 78.233)
            }
        }
        try Self.check("precise sin (sparkle)", .psin, bound: 1, xs) { x, _ in Foundation.sin(x) }
    }

    @Test func trigBeyondTheFastRangeWithinTwoUlp() throws {
        let xs: [Float] = [1e6, -1e6, 0x1.fffffep127, -0x1.fffffep127, 0x1p100, 1.5e38, 3.0e6, 1e10]
            + Self.inputs(Self.count / 2, seed: 3) { g in Float(sign: g.next() & 1 == 0 ? .plus : .minus, exponent: Int(g.next() % 108) + 20, significand: g.uniform(1, 2)) }
            + Self.inputs(Self.count / 4, seed: 4) { $0.uniform(1e5, 2e6) }
        try Self.check("precise sin large", .psin, bound: 2, xs) { x, _ in Foundation.sin(x) }
        try Self.check("precise cos large", .pcos, bound: 2, xs) { x, _ in Foundation.cos(x) }
        try Self.check("precise tan large", .ptan, bound: 4, xs) { x, _ in Foundation.tan(x) }
        #expect(try applyFloat(.psin, [.infinity, .nan, -.infinity]).allSatisfy(\.isNaN))
    }

    @Test func exponentialsWithinOneUlp() throws {
        let xs = [0, -0.0, 1, -1, 88.7, 88.73, 89, -87.3, -103.9, -104, -150, 1e-8] + Self.inputs(Self.count) { $0.uniform(-104, 89) }
        try Self.check("precise exp", .pexp, bound: 1, xs) { x, _ in Foundation.exp(x) }
        let ys = [0, 1, -1, 127.9, 128, -126, -149, -150, 0.5, 3] + Self.inputs(Self.count) { $0.uniform(-150, 128) }
        try Self.check("precise exp2", .pexp2, bound: 1, ys) { x, _ in Foundation.exp2(x) }
        #expect(try applyFloat(.pexp2, [3, -2, 10])  == [8, 0.25, 1024])
        #expect(try applyFloat(.pexp, [.infinity, -.infinity, 100]) == [.infinity, 0, .infinity])
        #expect(try applyFloat(.pexp, [.nan])[0].isNaN)
    }

    @Test func logarithmsWithinOneUlp() throws {
        let xs = [1, 2, 0x1p-149, 0x1.fffffep127, 0x1.000002p0, 0x1.fffffep-1, 10, 0.1]
            + Self.inputs(Self.count) { $0.anyBits().magnitude } + Self.inputs(Self.count / 2, seed: 5) { $0.uniform(0.5, 2) }
        try Self.check("precise log", .plog, bound: 1, xs) { x, _ in Foundation.log(x) }
        try Self.check("precise log2", .plog2, bound: 1, xs) { x, _ in Foundation.log2(x) }
        try Self.check("precise log10", .plog10, bound: 4, xs) { x, _ in Foundation.log10(x) }
        #expect(try applyFloat(.plog2, [8, 0.25, 1]) == [3, -2, 0])
        let special = try applyFloat(.plog, [0, -0.0, -1, .infinity, .nan])
        #expect(special[0] == -.infinity && special[1] == -.infinity && special[2].isNaN && special[3] == .infinity && special[4].isNaN)
    }

    @Test func squareRootIsCorrectlyRounded() throws {
        let xs = Self.inputs(Self.count) { $0.anyBits().magnitude }
        try Self.check("sqrt", .fsqrt, bound: 0.5, xs) { x, _ in x.squareRoot() }
        try Self.check("rsqrt", .frsqrt, bound: 4, xs) { x, _ in 1 / x.squareRoot() }
    }

    @Test func otherFunctionsWithinFourUlp() throws {
        let unit = [1, -1, 0, -0.0, 0.5, 0x1.fffffep-1, 1e-20] + Self.inputs(Self.count) { $0.uniform(-1, 1) }
        try Self.check("precise asin", .pasin, bound: 4, unit) { x, _ in Foundation.asin(x) }
        try Self.check("precise acos", .pacos, bound: 4, unit) { x, _ in Foundation.acos(x) }
        let wide = [0, 1, -1, .infinity, -.infinity, 1e-30, 1e30] + Self.inputs(Self.count) { $0.anyBits() }
            + Self.inputs(Self.count / 2, seed: 9) { $0.uniform(-4, 4) }
        try Self.check("precise atan", .patan, bound: 4, wide) { x, _ in Foundation.atan(x) }
        let small = Self.inputs(Self.count) { $0.uniform(-1e5, 1e5) }
        try Self.check("tan", .ftan, bound: 4, small) { x, _ in Foundation.tan(x) }
        let hyper = [0, -0.0, 1e-20, 0.99, 1, 1.01, 88, 89.5, -89.5, 20, 30] + Self.inputs(Self.count) { $0.uniform(-90, 90) }
            + Self.inputs(Self.count / 2, seed: 11) { $0.uniform(-2, 2) }
        try Self.check("precise sinh", .psinh, bound: 4, hyper) { x, _ in Foundation.sinh(x) }
        try Self.check("precise cosh", .pcosh, bound: 4, hyper) { x, _ in Foundation.cosh(x) }
        try Self.check("precise tanh", .ptanh, bound: 4, hyper) { x, _ in Foundation.tanh(x) }
    }

    @Test func atan2QuadrantsAndZeros() throws {
        let ys = Self.inputs(Self.count, seed: 21) { $0.anyBits(maxExponent: 160) }
        let xs = Self.inputs(Self.count, seed: 22) { $0.anyBits(maxExponent: 160) }
        try Self.check("precise atan2", .patan2, bound: 4, ys, xs) { y, x in Foundation.atan2(y, x) }
        let y: [Float] = [0, -0.0, 0, -0.0, 1, -1, .infinity, .infinity, -.infinity, 1, -1, 0]
        let x: [Float] = [0, 0, -0.0, -0.0, 0, 0, .infinity, -.infinity, 5, -.infinity, .infinity, -3]
        let r = try applyFloat(.patan2, y, x)
        let expected = zip(y, x).map { Float(Foundation.atan2(Double($0), Double($1))) }
        #expect(same(r, expected))
    }

    @Test func powWithinFourUlpAndCSpecialCases() throws {
        let bases = Self.inputs(Self.count, seed: 31) { $0.uniform(0, 100) }
        let exponents = Self.inputs(Self.count, seed: 32) { $0.uniform(-18, 18) }
        try Self.check("precise pow", .ppow, bound: 4, bases, exponents) { x, y in Foundation.pow(x, y) }
        let x: [Float] = [0, -0.0, -0.0, 0, -2, -2, -2, -1, -1, 1, .nan, .nan, 2, 0.5, .infinity, -.infinity, -.infinity, -8, 3]
        let y: [Float] = [-1, -3, 3, 0.5, 3, 2, 0.5, .infinity, -.infinity, .nan, 0, 1, .infinity, .infinity, -2, 3, 2, 1.0 / 3, 2]
        let r = try applyFloat(.ppow, x, y)
        let expected = zip(x, y).map { Float(Foundation.pow(Double($0), Double($1))) }
        #expect(same(r, expected), "\(r) vs \(expected)")
        #expect(r[18] == 9)
    }

    @Test func fmodIsExact() throws {
        let xs = Self.inputs(Self.count / 4, seed: 41) { $0.anyBits() }
        let ys = Self.inputs(Self.count / 4, seed: 42) { $0.anyBits() }
        try Self.check("fmod", .fmod, bound: 0, xs, ys) { x, y in Foundation.fmod(x, y) }
        // Quotients below 2²⁴, where the vectorized quick path answers: uniform values, and
        // numerators a hair either side of a multiple (quotients that round across an integer).
        let quickX = Self.inputs(Self.count / 4, seed: 43) { $0.uniform(-5000, 5000) }
        let quickY = Self.inputs(Self.count / 4, seed: 44) { $0.uniform(0.001, 7) * ($0.next() & 1 == 0 ? 1 : -1) }
        try Self.check("fmod (quick quotients)", .fmod, bound: 0, quickX, quickY) { x, y in Foundation.fmod(x, y) }
        var edgeX: [Float] = [], edgeY: [Float] = []
        var g = Generator(state: 45)
        for _ in 0..<(Self.count / 8) {
            let y = g.uniform(0.01, 3), k = Float(g.next() % 100_000)
            let x = k * y
            for candidate in [x.nextDown, x, x.nextUp] { edgeX.append(candidate); edgeY.append(y) }
        }
        try Self.check("fmod (near multiples)", .fmod, bound: 0, edgeX, edgeY) { x, y in Foundation.fmod(x, y) }
        // A quotient past 2²³ and the special values take the long division.
        let quick = KilnMath.quickFmod(SIMD8(7.5, -7.5, 0x1p30, 1, .infinity, .nan, 3, 2.5),
                                       SIMD8(2, 2, 3, 0, 2, 2, .infinity, 0.5))
        #expect(quick.valid == SIMDMask(SIMD8<Int32>(-1, -1, 0, 0, 0, 0, 0, -1)))
        #expect(quick.value[0] == 1.5 && quick.value[1] == -1.5 && quick.value[7] == 0)
        let x: [Float] = [5.5, -5.5, 1, .infinity, 3, -4, 0x1p-149 * 3]
        let y: [Float] = [2, 2, 0, 2, .infinity, 2, 0x1p-149 * 2]
        let r = try applyFloat(.fmod, x, y)
        #expect(same(r, [1.5, -1.5, .nan, .nan, 3, -0.0, 0x1p-149]))
    }

    /// `x = fmod(x, y)` in place: lanes the quick path cannot do are computed from the
    /// operands, not from the half-written destination.
    @Test func fmodInPlaceKeepsItsOperands() throws {
        let program = TestProgram(registers: 2, body: [Instruction(.fmod, a: 0, b: 0, c: 1)])
        let x: [Float] = [0x1p30, 7.5, .infinity, 0x1p40 + 0x1p17, -9, 5, Float(1e-40 as Double), 0x1p29]
        let y: [Float] = [3, 2, 2, 0.75, 4, 0, Float(3e-41 as Double), -0.3]
        let executor = try program.run([0: bits(x), 1: bits(y)])
        let expected = zip(x, y).map { Float(Foundation.fmod(Double($0), Double($1))) }
        #expect(same(Array(executor.floats(0).prefix(8)), expected), "\(executor.floats(0).prefix(8)) vs \(expected)")
    }
}
