import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing

/// Compiles `source` as one file and returns the library (recording a failure when it fails).
func compileLibrary(_ source: String, name: String = "test.metal", options: CompileOptions = .init(),
                    sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Library? {
    let result = Compiler.compile([SourceFile(name: name, text: source)], options: options)
    let errors = result.diagnostics.filter { $0.severity == .error }
    #expect(errors.isEmpty, "\(errors.map(\.message))", sourceLocation: sourceLocation)
    guard let library = result.library else { return nil }
    do {
        try Verifier.verify(library)
    } catch {
        Issue.record("verifier: \(error)", sourceLocation: sourceLocation)
    }
    return library
}

extension Library {
    /// Mnemonics of a range of a function's code (`ret` included).
    func opcodes(_ range: Range<UInt32>) -> [String] {
        code[Int(range.lowerBound)..<Int(range.upperBound)].map(\.opcode.mnemonic)
    }
}

/// Wraps statements in a color effect with uniform arguments `float amount, float2 offset`.
func colorEffect(_ body: String, arguments: String = "float amount, float2 offset") -> String {
    """
    #include <metal_stdlib>
    using namespace metal;
    [[ stitchable ]] half4 effect(float2 position, half4 color, \(arguments)) {
    \(body)
    }
    """
}
