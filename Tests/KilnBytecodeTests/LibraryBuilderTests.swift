import Testing
import KilnBytecode

@Suite("LibraryBuilder")
struct LibraryBuilderTests {
    @Test("jump targets and debug lines are relocated from range-relative to absolute")
    func relocation() throws {
        var builder = LibraryBuilder(sources: [SourceRecord(name: "a.metal", sha256: TestLibraries.digest(0))])
        builder.addFunction(LibraryBuilder.function("first", kind: .shape, registerCount: 2),
                            prologue: [Instruction(.ret)], body: [Instruction(.ret)])
        let second = builder.addFunction(
            LibraryBuilder.function("second", kind: .shape, registerCount: 2),
            prologue: [Instruction(.ret)],
            body: [Instruction(.jnone, a: 0, imm: 2), Instruction(.jmp, imm: 0), Instruction(.ret)],
            lines: [.init(1, line: 9)])
        #expect(second.prologue == 2..<3)
        #expect(second.body == 3..<6)
        let library = builder.library
        #expect(library.code[3].imm == 5)
        #expect(library.code[4].imm == 3)
        #expect(library.location(ofInstruction: 4)?.line == 9)
        #expect(library.location(ofInstruction: 3) == nil)
        try Verifier.verify(library)
    }

    @Test("scalar constants are interned, arrays are not")
    func constants() {
        var builder = LibraryBuilder()
        #expect(builder.constant(Float(0.5)) == 0)
        #expect(builder.constant(UInt32(7)) == 1)
        #expect(builder.constant(Float(0.5)) == 0)
        #expect(builder.constantArray([7, 7]) == 2)
        #expect(builder.library.constants == [Float(0.5).bitPattern, 7, 7, 7])
    }
}
