import ArgumentParser

/// `kiln bench`: the benchmark commands; `kiln bench [options]` runs the throughput
/// benchmark, `kiln bench compile` the compile-time one.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure rendering throughput and compile times.",
        subcommands: [BenchThroughputCommand.self, BenchCompileCommand.self, BenchShaderCommand.self],
        defaultSubcommand: BenchThroughputCommand.self)
}
