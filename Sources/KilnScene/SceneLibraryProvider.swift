import KilnBytecode

/// Turns the shader source a scene names into a library. Scenes never compile shaders
/// themselves: whoever renders them (the server, the command line) provides the compiler,
/// so KilnScene depends on the bytecode, the VM and the renderer, not on the compiler.
public protocol SceneLibraryProvider: Sendable {
    /// The library for `text` (called `fileName` in diagnostics), or why there is none
    /// (the compiler's diagnostics as text).
    func library(fileName: String, text: String) -> Result<Library, SceneLibraryFailure>
}

/// Why a scene's shader source gave no library: the diagnostics, rendered as text.
public struct SceneLibraryFailure: Error, Sendable {
    public var message: String
    public init(message: String) { self.message = message }
}
