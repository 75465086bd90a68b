import ArgumentParser
import CKilnCPU
import KilnCompileTool
import KilnCompiler

/// The `kiln` command: compile, inspect, render and benchmark shaders written in the
/// Kiln subset of the Metal Shading Language.
///
/// The `kiln-cli` executable only calls `Kiln.main()`; every command lives in this library
/// so tests can run them in-process with `Kiln.run(arguments:)`.
public struct Kiln: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "kiln",
        abstract: "Compile Metal-subset shaders to bytecode and preview them on the CPU.",
        discussion: """
            Examples:
              kiln compile shaders/wave.metal -o wave.kilnlib
              kiln disasm wave.kilnlib
              kiln render shaders/ripple.metal --function ripple --size 256x256 --content photo -o ripple.png
              kiln bench --sizes 512
            """,
        version: "\(CompilerVersion.string) (\(Kiln.cpuLevel) build)",
        subcommands: [CompileCommand.self, DisasmCommand.self, RenderCommand.self, DebugCommand.self, TestCommand.self, ShareCommand.self, BenchCommand.self,
                      ServeCommand.self, LiveCommand.self, SceneCommand.self])

    public init() {}

    /// The x86-64 level this executable was built for: `x86-64-v4` (AVX-512) or `x86-64-v3`
    /// (AVX2, FMA), whichever of the two the building CPU has (what `make` builds), or
    /// `portable` (README "CPU level").
    public static var cpuLevel: String { String(cString: kiln_cpu_level()) }

    /// What an in-process run printed and how it ended.
    public struct Outcome: Sendable {
        /// The process exit status the run would have had (0 on success).
        public var exitCode: Int32
        public var output: String
        public var errorOutput: String
    }

    /// Parses `arguments` (without the program name) and runs the command in-process,
    /// capturing its output instead of writing to stdout/stderr. Errors are reported as
    /// `kiln` itself would report them.
    public static func run(arguments: [String]) -> Outcome {
        let capture = CapturingConsole()
        let code: Int32 = Console.$current.withValue(capture.console) {
            do {
                var command = try Kiln.parseAsRoot(arguments)
                try command.run()
                return 0
            } catch {
                let message = Kiln.fullMessage(for: error)
                if !message.isEmpty {
                    Console.current.error(message + "\n")
                }
                return Kiln.exitCode(for: error).rawValue
            }
        }
        return Outcome(exitCode: code, output: capture.output, errorOutput: capture.errorOutput)
    }
}
