import Testing
import KilnBytecode
@testable import KilnVM

@Suite struct IntegerOpcodeTests {
    @Test func wrappingArithmetic() throws {
        #expect(try apply(.iadd, words([.max, 1]), words([1, -2])) == words([.min, -1]))
        #expect(try apply(.isub, words([.min]), words([1])) == words([.max]))
        #expect(try apply(.imul, words([65536, -3]), words([65536, 7])) == words([0, -21]))
        #expect(try apply(.ineg, words([.min, 5])) == words([.min, -5]))
        #expect(try apply(.iabs, words([.min, -5, 5])) == words([.min, 5, 5]))
    }

    @Test func divisionNeverTraps() throws {
        let b = words([7, -7, 7, .min, .min, 0])
        let c = words([2, 2, 0, -1, 0, 0])
        #expect(try apply(.idiv, b, c) == words([3, -3, 0, .min, 0, 0]))
        #expect(try apply(.irem, b, c) == words([1, -1, 0, 0, 0, 0]))
        #expect(try apply(.udiv, [7, 0xFFFF_FFFF, 5], [2, 2, 0]) == [3, 0x7FFF_FFFF, 0])
        #expect(try apply(.urem, [7, 0xFFFF_FFFF, 5], [2, 16, 0]) == [1, 15, 0])
    }

    @Test func minMax() throws {
        #expect(try apply(.imin, words([-1, 3]), words([1, 2])) == words([-1, 2]))
        #expect(try apply(.imax, words([-1, 3]), words([1, 2])) == words([1, 3]))
        #expect(try apply(.umin, [0xFFFF_FFFF, 3], [1, 2]) == [1, 2])
        #expect(try apply(.umax, [0xFFFF_FFFF, 3], [1, 2]) == [0xFFFF_FFFF, 3])
    }

    @Test func bitwiseAndLogical() throws {
        #expect(try apply(.and, [0b1100], [0b1010]) == [0b1000])
        #expect(try apply(.or, [0b1100], [0b1010]) == [0b1110])
        #expect(try apply(.xor, [0b1100], [0b1010]) == [0b0110])
        #expect(try apply(.not, [0]) == [0xFFFF_FFFF])
        #expect(try apply(.lnot, [0, 1, 42]) == [1, 0, 0])
    }

    @Test func shiftsMaskTheirAmount() throws {
        #expect(try apply(.shl, [1, 1, 1, 3], [3, 32, 33, 31]) == [8, 1, 2, 0x8000_0000])
        #expect(try apply(.shr, words([-16, -16, 16]), [2, 34, 36]) == words([-4, -4, 1]))
        #expect(try apply(.ushr, [0x8000_0000, 0x8000_0000], [31, 63]) == [1, 1])
    }

    @Test func comparisons() throws {
        let b = words([-1, 2, 3]), c = words([1, 2, -5])
        #expect(try apply(.ieq, b, c) == [0, 1, 0])
        #expect(try apply(.ine, b, c) == [1, 0, 1])
        #expect(try apply(.ilt, b, c) == [1, 0, 0])
        #expect(try apply(.ile, b, c) == [1, 1, 0])
        #expect(try apply(.ult, b, c) == [0, 0, 1])
        #expect(try apply(.ule, b, c) == [0, 1, 1])
    }

    @Test func shortConversions() throws {
        #expect(try apply(.sext16, [0x0001_8000, 0x7FFF]) == words([-32768, 32767]))
        #expect(try apply(.zext16, [0xFFFF_8001]) == [0x8001])
    }
}
