import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnScene

/// Gives scenes their libraries by compiling the source with Kiln's compiler (used by
/// `kiln serve` and `kiln scene`); a failure carries the clang-style diagnostics.
public struct CompilingLibraryProvider: SceneLibraryProvider {
    public init() {}

    public func library(fileName: String, text: String) -> Result<Library, SceneLibraryFailure> {
        let result = Compiler.compile([SourceFile(name: fileName, text: text)])
        guard let library = result.library else {
            return .failure(SceneLibraryFailure(message: DiagnosticRenderer.text(result.diagnostics, files: result.files)))
        }
        return .success(library)
    }
}
