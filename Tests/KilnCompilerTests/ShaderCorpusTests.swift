import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnTestSupport
import Testing

/// Every conformance and benchmark shader compiles to a verified library with sane counts.
@Suite struct ShaderCorpusTests {
    static let corpus = RepositoryFiles.realShaders

    @Test func corpusIsPresent() {
        #expect(Self.corpus.count >= 29)
    }

    @Test(arguments: corpus) func compiles(_ path: String) throws {
        let text = RepositoryFiles.text(path)
        let name = (path as NSString).lastPathComponent
        let result = Compiler.compile([SourceFile(name: name, text: text)])
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(path): \(errors.map(\.message))")
        let library = try #require(result.library)
        try Verifier.verify(library)
        // Round trip through the binary format.
        let decoded = try LibraryReader.decode(LibraryWriter.encode(library))
        #expect(decoded == library)
        #expect(!library.functions.isEmpty)
        for f in library.functions {
            // Lane-wide registers bounded as before unrolling; the uniform ones (prologue
            // values: sdf2d's sixteen unrolled shapes keep five each) may be more.
            #expect(f.registerCount - f.uniformRegisterCount <= 96, "\(path) \(f.name): \(f.registerCount) registers")
            #expect(f.registerCount <= 160, "\(path) \(f.name): \(f.registerCount) registers")
            #expect(f.body.count >= 2)
            // Every instruction has a debug location pointing into the file.
            #expect(library.location(ofInstruction: Int(f.body.lowerBound)) != nil)
            for index in Int(f.body.lowerBound)..<Int(f.body.upperBound) {
                let instruction = library.code[index]
                if [.jmp, .jz, .jnz, .jnone, .jany].contains(instruction.opcode) {
                    #expect(f.body.contains(instruction.imm), "jump target out of the body")
                    if Int(instruction.imm) <= index {
                        #expect(instruction.opcode == .jany || instruction.opcode == .jnz)
                    }
                }
            }
        }
        #expect(library.sources.first?.sha256.count == 32)
    }
}
