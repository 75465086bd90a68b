import Foundation
import KilnTestSupport
import Testing
@testable import KilnCLI

/// docs/cli.md describes every command and every option `kiln help` shows, so the
/// reference cannot fall behind the tool (`kiln serve`'s limits live in docs/server.md).
@Suite struct CommandDocumentTests {
    static let commands = Kiln.configuration.subcommands.map { $0.configuration.commandName ?? "" }
    static let reference = RepositoryFiles.text("docs/cli.md")
    static let serverReference = RepositoryFiles.text("docs/server.md")

    @Test func everyCommandHasASection() {
        #expect(Self.commands.count >= 7)
        for command in Self.commands {
            #expect(Self.reference.contains("## `kiln \(command)`") || Self.reference.contains("`kiln \(command)`,"),
                    "docs/cli.md has no section for kiln \(command)")
            #expect(Self.reference.contains("| `kiln \(command)"), "docs/cli.md's command table lacks kiln \(command)")
        }
    }

    /// Commands with their subcommands (`bench throughput`, `bench compile`).
    static let invocations: [[String]] = Kiln.configuration.subcommands.flatMap { type -> [[String]] in
        let name = type.configuration.commandName ?? ""
        let subcommands = type.configuration.subcommands.map { [name, $0.configuration.commandName ?? ""] }
        return subcommands.isEmpty ? [[name]] : subcommands
    }

    @Test(arguments: invocations) func everyOptionIsDescribed(_ invocation: [String]) throws {
        let command = invocation[0]
        let outcome = Kiln.run(arguments: invocation + ["--help"])
        let help = outcome.output + outcome.errorOutput
        let options = Set(try NSRegularExpression(pattern: #"--[a-z0-9-]+"#)
            .matches(in: help, range: NSRange(help.startIndex..., in: help))
            .map { String(help[Range($0.range, in: help)!]) })
            .subtracting(["--help", "--version"])
        #expect(!options.isEmpty || command == "disasm", "kiln help \(command) printed no options")
        for option in options {
            let documented = Self.reference.contains(option) || (command == "serve" && Self.serverReference.contains(option))
            #expect(documented, "kiln \(command) \(option) is not in docs/cli.md")
        }
    }
}
