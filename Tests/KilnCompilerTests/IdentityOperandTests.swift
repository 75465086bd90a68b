import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing
@testable import KilnCompiler

/// An instruction whose constant operand leaves the other unchanged is not emitted
/// (`ConstantFolder.identityOperand`): the other operand is the result. That is only right
/// if the instruction gives back its operand's bits for every value, which this checks
/// with the folder's own arithmetic (the VM's): ±0, infinities, subnormals, quiet NaNs
/// and random bit patterns.
@Suite struct IdentityOperandTests {
    static let values: [UInt32] = {
        var values: [UInt32] = [0, 0x8000_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC1_2345, 1, 0x8000_0001,
                                0x007F_FFFF, 0x3F80_0000, 0xBF80_0000, 0x7F7F_FFFF, 0x4049_0FDB]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            var bits = UInt32.random(in: .min ... .max, using: &generator)
            let isSignallingNaN = bits & 0x7F80_0000 == 0x7F80_0000 && bits & 0x007F_FFFF != 0 && bits & 0x0040_0000 == 0
            if isSignallingNaN { bits |= 0x0040_0000 }  // arithmetic quiets those: see identityOperand
            values.append(bits)
        }
        return values
    }()

    @Test func everyRuleGivesBackItsOperand() throws {
        let opcodes: [Opcode] = [.fadd, .fsub, .fmul, .fdiv, .iadd, .isub, .imul, .or, .xor, .shl, .shr, .ushr]
        let candidates: [UInt32] = [0, 0x8000_0000, Float(1).bitPattern, 1]
        var rules = 0
        /// `x op k` (constant second) or `k op x` (constant first) must be `x` for every value.
        func check(_ opcode: Opcode, _ k: UInt32, constantFirst: Bool) {
            let which = constantFirst ? ConstantFolder.identityOperand(opcode, k, nil) : ConstantFolder.identityOperand(opcode, nil, k)
            guard let which else { return }
            #expect(which == (constantFirst ? 1 : 0))
            rules += 1
            for x in Self.values where ConstantFolder.fold(opcode, constantFirst ? [k, x] : [x, k]) != x {
                Issue.record("\(opcode) with \(String(k, radix: 16)) \(constantFirst ? "first" : "second") changes \(String(x, radix: 16))")
                return
            }
        }
        for opcode in opcodes {
            for k in candidates {
                check(opcode, k, constantFirst: false)
                check(opcode, k, constantFirst: true)
            }
        }
        #expect(rules >= 14)
    }

    /// A division by ±2ᵏ becomes a multiplication by its reciprocal (`exactReciprocal`) only
    /// where that gives the division's bits for every dividend — NaNs, infinities, zeros and
    /// subnormal quotients included; a reciprocal that would be rounded or subnormal keeps
    /// the division.
    @Test func divisionByAPowerOfTwoIsAnExactMultiplication() {
        var rules = 0
        for exponent in UInt32(0)...255 {
            for sign: UInt32 in [0, 0x8000_0000] {
                let divisor = sign | exponent << 23
                guard let reciprocal = ConstantFolder.exactReciprocal(ofDivisor: divisor) else { continue }
                rules += 1
                for x in Self.values.prefix(4000)
                where ConstantFolder.fold(.fdiv, [x, divisor]) != ConstantFolder.fold(.fmul, [x, reciprocal]) {
                    Issue.record("x / \(Float(bitPattern: divisor)) ≠ x · its reciprocal for x = \(String(x, radix: 16))")
                    break
                }
            }
        }
        #expect(rules == 2 * 253)
        for divisor: UInt32 in [Float(3).bitPattern, 0x3F80_0001, 0, 0x7F80_0000, 0x7F00_0000, 0x0040_0000, 0x7FC0_0000] {
            #expect(ConstantFolder.exactReciprocal(ofDivisor: divisor) == nil, "\(String(divisor, radix: 16))")
        }
        #expect(ConstantFolder.exactReciprocal(ofDivisor: Float(-0.5).bitPattern) == Float(-2).bitPattern)
    }

    /// `smoothstep(0.6, 0.1, d)` divides by −0.5: a multiplication; by 0.2, a division.
    @Test func smoothstepOverAPowerOfTwoMultiplies() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 fade(float2 position, half4 color) {
            return half4(smoothstep(0.6, 0.1, position.x), smoothstep(0.8, 1.0, position.y), 0, 1);
        }
        """
        let result = Compiler.compile([SourceFile(name: "fade.metal", text: source)])
        let library = try #require(result.library, "\(result.diagnostics.map(\.message))")
        let function = try #require(library.functions.first)
        let body = library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)]
        #expect(body.filter { $0.opcode == .fdiv }.count == 1)
    }

    /// The near misses stay instructions: `x + +0` and `x - -0` give +0 for -0.
    @Test func signedZerosKeepTheirInstruction() {
        #expect(ConstantFolder.identityOperand(.fadd, nil, 0) == nil)
        #expect(ConstantFolder.identityOperand(.fadd, 0, nil) == nil)
        #expect(ConstantFolder.identityOperand(.fsub, nil, 0x8000_0000) == nil)
        #expect(ConstantFolder.identityOperand(.fmul, nil, 0) == nil)
        #expect(ConstantFolder.fold(.fadd, [0x8000_0000, 0]) == 0)
    }

    /// An SDF scene's offset by a vector with zero components subtracts only the non-zero one.
    @Test func zeroComponentsOfAnOffsetCostNothing() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 offset(float2 position, half4 color) {
            float3 p = float3(position, position.x * position.y);
            float3 q = (p - float3(0.0, 1.3, 0.0)) * float3(1.0, 2.0, 1.0) / float3(1.0);
            return half4(half3(q), 1);
        }
        """
        let result = Compiler.compile([SourceFile(name: "offset.metal", text: source)])
        let library = try #require(result.library, "\(result.diagnostics.map(\.message))")
        let function = try #require(library.functions.first)
        let body = library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)]
        #expect(body.filter { $0.opcode == .fsub }.count == 1)
        #expect(body.filter { $0.opcode == .fmul }.count == 2)  // position.x · position.y and q.y · 2
        #expect(body.filter { $0.opcode == .fdiv }.isEmpty)
    }
}
