import Foundation
import KilnTestSupport
import Testing
@testable import KilnBytecode

@Suite("Disassembler")
struct DisassemblerTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// Compares `text` with the checked-in golden file (see `Golden`).
    func expectGolden(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mismatch = Golden.mismatch(text: text, at: Self.goldenDirectory.appendingPathComponent(name))
        #expect(mismatch == nil, "\(mismatch ?? "")", sourceLocation: sourceLocation)
    }

    @Test("golden disassembly with source lines")
    func goldenWithSources() throws {
        let text = Disassembler.disassemble(TestLibraries.combined, sourceTexts: TestLibraries.combinedTexts)
        try expectGolden(text, "combined.txt")
    }

    @Test("golden disassembly without source texts")
    func goldenWithoutSources() throws {
        try expectGolden(Disassembler.disassemble(TestLibraries.wave), "wave.txt")
    }

    @Test("the output is stable and every instruction gets exactly one line")
    func oneLinePerInstruction() {
        let library = TestLibraries.combined
        let text = Disassembler.disassemble(library)
        #expect(text == Disassembler.disassemble(library))
        let listingLines = text.split(separator: "\n").filter { $0.hasPrefix("  0") }
        #expect(listingLines.count == library.functions.reduce(0) { $0 + $1.instructionCount })
    }

    @Test("operands per shape")
    func operandShapes() {
        let text = Disassembler.disassemble(TestLibraries.combined)
        for fragment in [
            "const   r2, k0 ; 0.1",                         // constant resolved as a float
            "const   r3, k2 ; 2",                           // and as an int
            "arg     r0, u0 ; amplitude",                   // argument word named
            "arg     r2, u2 ; tint[1]",
            "jz      r0, @0012",                            // absolute target
            "jany    r15, @0048",
            "ldk     r13, k6..k9[r7]",
            "str     r10..r12[r7], r13, if r14",
            "ldr     r16, r10..r12[r0]",
            "ldb     r8, buf1[r2]",
            "sample  r8..r11, tex0, r5, r6, normalized linear clamp_to_edge",
            "texread r8..r11, tex1, r24, r25",
            "texsize r24..r25, tex0",
            "fma     r20, r16, r0, r8",
            "fsin    r6, r5",
        ] {
            #expect(text.contains(fragment), "missing \(fragment)")
        }
    }

    @Test("a kernel: output texture, thread positions and texwrite")
    func kernelOperands() {
        let text = Disassembler.disassemble(TestLibraries.stripes)
        for fragment in [
            "kernel stripes(texture2d<half, access::write> out [output tex0], uint2 gid [thread position], float level [u0]) -> void",
            "; input  bool in_grid r1 [[in_grid]]",
            "; input  uint2 gid r2..r3 [[thread_position_in_grid]]",
            "texwrite tex0, r2, r3, r4..r7, if r1",
        ] {
            #expect(text.contains(fragment), "missing \(fragment)")
        }
    }

    @Test("floats print like %g, exactly")
    func floatFormatting() {
        #expect(Disassembler.format(Float(4)) == "4")
        #expect(Disassembler.format(Float(-0.5)) == "-0.5")
        #expect(Disassembler.format(Float(0.1)) == "0.1")
        #expect(Disassembler.format(Float.nan) == "nan")
        #expect(Disassembler.format(-Float.infinity) == "-inf")
        #expect(Disassembler.format(word: 7) == "7")
        #expect(Disassembler.format(word: UInt32(bitPattern: -3)) == "-3")
        #expect(Disassembler.format(word: Float(1).bitPattern) == "1")
        #expect(Disassembler.format(word: Float(1e20).bitPattern) == "1e+20")
    }
}

@Suite("Disassembler on unverified libraries")
struct DisassemblerRobustnessTests {
    @Test("ranges and indexes outside the library print without trapping")
    func outOfRangeFields() {
        var library = TestLibraries.wave
        library.functions[0].body = 40..<50
        library.functions[0].file = 9
        library.code[1].imm = 99        // argument word no parameter owns
        library.code[2].imm = 1000      // constant outside the pool
        let text = Disassembler.disassemble(library, sourceTexts: [])
        #expect(text.contains("const   r2, k1000\n"))
        #expect(text.contains("arg     r1, u99\n"))
        #expect(text.contains("declared at file9:5:18"))
    }
}
