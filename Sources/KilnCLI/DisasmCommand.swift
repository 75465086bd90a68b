import ArgumentParser
import KilnBytecode
import KilnCompileTool

/// `kiln disasm FILE.kilnlib | FILE.metal…`
///
/// Prints a library's functions, constants and code with the source lines interleaved.
/// Shader files are compiled first; for a `.kilnlib`, the sources are read from the
/// library's folder when they are there and unchanged (otherwise the listing has no
/// source lines, only their line:column).
struct DisasmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disasm",
        abstract: "Disassemble a library, or compile shader files and disassemble the result.")

    @Argument(help: "One .kilnlib, or shader files (.metal, .h).")
    var files: [String]

    @Option(name: [.customShort("I"), .customLong("include-directory")], help: "A folder #include searches after the including file's own (repeatable).")
    var includeDirectories: [String] = []

    func run() throws {
        let loaded = try ShaderBuild.load(files, includeDirectories: includeDirectories)
        var text = Disassembler.disassemble(loaded.library,
                                            sourceTexts: loaded.sources.isEmpty ? nil : loaded.sources.map(\.text))
        if !text.hasSuffix("\n") { text += "\n" }
        Console.current.write(text)
    }
}
