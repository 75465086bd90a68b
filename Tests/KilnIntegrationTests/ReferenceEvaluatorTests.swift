import Testing
import KilnLanguage

/// Self-checks of the oracle's arithmetic, independent of the other modules.
@Suite struct ReferenceEvaluatorTests {
    @Test func integerEdgeCases() {
        #expect(ReferenceArithmetic.intBinary(.divide, 7, 0) == .int(0))
        #expect(ReferenceArithmetic.intBinary(.divide, .min, -1) == .int(.min))
        #expect(ReferenceArithmetic.intBinary(.remainder, .min, -1) == .int(0))
        #expect(ReferenceArithmetic.intBinary(.remainder, -7, 2) == .int(-1))
        #expect(ReferenceArithmetic.intBinary(.shiftLeft, 1, 33) == .int(2))
        #expect(ReferenceArithmetic.intBinary(.shiftRight, -8, 1) == .int(-4))
        #expect(ReferenceArithmetic.uintBinary(.shiftRight, 0x8000_0000, 31) == .uint(1))
        #expect(ReferenceArithmetic.uintBinary(.remainder, 5, 0) == .uint(0))
        #expect(ReferenceArithmetic.intBinary(.add, .max, 1) == .int(.min))
    }

    @Test func conversions() {
        #expect(ReferenceScalar.float(.nan).converted(to: .int) == .int(0))
        #expect(ReferenceScalar.float(1e20).converted(to: .int) == .int(.max))
        #expect(ReferenceScalar.float(-1e20).converted(to: .int) == .int(.min))
        #expect(ReferenceScalar.float(-3.7).converted(to: .int) == .int(-3))
        #expect(ReferenceScalar.float(-3.7).converted(to: .uint) == .uint(0))
        #expect(ReferenceScalar.float(5e9).converted(to: .uint) == .uint(.max))
        #expect(ReferenceScalar.int(-1).converted(to: .uint) == .uint(.max))
        #expect(ReferenceScalar.uint(.max).converted(to: .float) == .float(4294967296))
    }

    @Test func builtinEdgeCases() throws {
        #expect(ReferenceBuiltins.fract(-0.25) == 0.75)
        #expect(ReferenceBuiltins.fract(-1e-10) == ReferenceBuiltins.largestBelowOne)
        #expect(ReferenceBuiltins.fract(.infinity).isNaN)
        #expect(ReferenceBuiltins.modf(-.infinity) == (fractional: -0.0, integral: -.infinity))
        #expect(ReferenceBuiltins.fmin(.nan, 2) == 2)
        #expect(ReferenceBuiltins.fmax(3, .nan) == 3)
        #expect(try ReferenceBuiltins.component(.round, [.float(-2.5)]) == .float(-3))
        #expect(try ReferenceBuiltins.component(.rint, [.float(2.5)]) == .float(2))
        #expect(ReferenceBuiltins.fmod(-7, 2) == -1)
        #expect(ReferenceBuiltins.modf(-1.5) == (fractional: -0.5, integral: -1))
    }
}
