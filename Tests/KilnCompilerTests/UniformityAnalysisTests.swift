import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing

/// `UniformityAnalysis` on compiled shaders and on hand-built bytecode: which instructions
/// give every lane the same value.
@Suite struct UniformityAnalysisTests {
    /// Opcode and uniformity of every body instruction of the library's first function.
    static func body(_ library: Library) -> [(opcode: Opcode, uniform: Bool)] {
        let function = library.functions[0]
        let analysis = UniformityAnalysis(library: library, function: function)
        let code = library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)]
        return zip(code, analysis.uniform).map { ($0.0.opcode, $0.1) }
    }

    /// The sphere tracer of `bench/raymarch.metal`, its loops kept as loops: the sphere
    /// centres (sin/cos of time and the inner loop counter) are uniform inside the divergent
    /// outer loop; distances are not.
    @Test func sphereCentresInsideTheDivergentLoopAreUniform() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("bench/raymarch.metal")
        let library = try #require(compileLibrary(try String(contentsOf: url, encoding: .utf8), name: "raymarch.metal",
                                                        options: CompileOptions(maxUnrolledIterations: 0)))
        let body = Self.body(library)
        let trig = body.filter { $0.opcode == .fsin || $0.opcode == .fcos }
        #expect(trig.count >= 15)
        #expect(trig.allSatisfy { $0.uniform })
        let roots = body.filter { $0.opcode == .fsqrt }
        #expect(!roots.isEmpty && roots.allSatisfy { !$0.uniform })
        // The loop masks are varying; the inner loop's counter test is uniform.
        #expect(body.contains { $0.opcode == .ilt && $0.uniform })
    }

    /// A value assigned in a divergent branch is varying after it; in a uniform branch it
    /// stays uniform.
    @Test func divergentAssignmentsMakeVaryingValues() throws {
        let divergent = try #require(compileLibrary(colorEffect("""
            float v = amount;
            if (position.x > 3.0) { v = 2.0; }
            return half4(sin(v), sin(amount), 0, 1);
        """)))
        let sines = Self.body(divergent).filter { $0.opcode == .fsin }
        // sin(amount) is hoisted into the prologue; the one left in the body reads v.
        #expect(sines.count == 1 && !sines[0].uniform)

        let uniformBranch = try #require(compileLibrary(colorEffect("""
            float v = amount;
            if (offset.x > 3.0) { v = v * offset.y; }
            return half4(sin(v), position.x, 0, 1);
        """)))
        let body = Self.body(uniformBranch)
        #expect(body.contains { $0.opcode == .fmul && $0.uniform })
        #expect(body.filter { $0.opcode == .fsin }.allSatisfy { $0.uniform })
    }

    /// A uniform loop counter stays uniform, and so does work on it, even when the loop's
    /// trip count comes from an argument.
    @Test func uniformLoopWorkIsUniform() throws {
        let library = try #require(compileLibrary(colorEffect("""
            float acc = 0;
            for (int i = 0; i < int(amount); i++) {
                acc += cos(float(i) * offset.x) * position.x;
            }
            return half4(acc, 0, 0, 1);
        """)))
        let body = Self.body(library)
        #expect(body.filter { $0.opcode == .fcos }.count == 1)
        #expect(body.filter { $0.opcode == .fcos }.allSatisfy { $0.uniform })
        #expect(body.filter { $0.opcode == .itof }.allSatisfy { $0.uniform })
        // acc accumulates position.x: varying.
        #expect(body.contains { $0.opcode == .fadd && !$0.uniform })
    }

    /// Hand-built code: a store at a varying index makes the whole register array varying,
    /// a store of a uniform value at a uniform index keeps it uniform; a back edge carries
    /// varying values to the loop head; registers the prologue did not write start varying.
    @Test func storesBackEdgesAndEntryState() {
        // r0 = input (varying), r1 = arg (prologue), r2..r3 an array, r4 temp.
        let prologue: [Instruction] = [Instruction(.arg, a: 1, imm: 0), Instruction(.const, a: 2, imm: 0),
                                       Instruction(.const, a: 3, imm: 0), Instruction(.ret)]
        let body: [Instruction] = [
            Instruction(.mov, a: 2, b: 1), Instruction(.mov, a: 3, b: 1),   // 0, 1: the array, uniform again
            Instruction(.str, a: 2, b: 1, c: 1, d: 1, imm: 2),      // 2: uniform store: array stays uniform
            Instruction(.ldr, a: 4, b: 2, c: 1, imm: 2),            // 3: uniform
            Instruction(.str, a: 2, b: 1, c: 0, d: 1, imm: 2),      // 4: varying index: array varying
            Instruction(.ldr, a: 4, b: 2, c: 1, imm: 2),            // 5: varying
            Instruction(.fadd, a: 5, b: 1, c: 1),                   // 6: uniform
            Instruction(.fadd, a: 6, b: 7, c: 1),                   // 7: r7 never written by the prologue: varying
            Instruction(.fadd, a: 8, b: 1, c: 1),                   // 8: uniform (before the loop)
            Instruction(.fadd, a: 8, b: 8, c: 0),                   // 9: loop head, varying from the first pass
            Instruction(.jany, a: 0, imm: 4 + 9),                   // 10: back to 9 (absolute index)
            Instruction(.fmul, a: 9, b: 8, c: 8),                   // 11: varying
            Instruction(.fmul, a: 9, b: 2, c: 1),                   // 12: the array left varying by 4: varying
            Instruction(.ret),
        ]
        let code = prologue + body
        let function = Function(name: "f", kind: .color, parameters: [], returnTypeName: "half4", registerCount: 10,
                                uniformRegisterCount: 4, uniformWordCount: 1, bufferCount: 0, textureCount: 0,
                                prologue: 0..<4, body: 4..<UInt32(code.count),
                                inputs: [LaneSlot(name: "position", attribute: "position", type: ValueType(.float), register: 0)],
                                outputs: [], discardRegister: nil, file: 0, line: 1, column: 1)
        let library = Library(compilerVersion: "test", sources: [], functions: [function], constants: [0],
                              code: code, debugLocations: [])
        let uniform = UniformityAnalysis(library: library, function: function).uniform
        #expect(uniform[0] && uniform[3] && !uniform[5])
        #expect(uniform[6] && !uniform[7])
        #expect(uniform[8] && !uniform[9] && !uniform[11] && !uniform[12])
    }
}
