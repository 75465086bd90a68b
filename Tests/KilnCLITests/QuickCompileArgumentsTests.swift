import KilnCompileTool
import Testing
@testable import KilnCLI

/// `kiln compile` command lines read without ArgumentParser mean what ArgumentParser
/// reads them as; anything outside the plain grammar is left to ArgumentParser.
@Suite struct QuickCompileArgumentsTests {
    static let plain: [[String]] = [
        ["compile", "a.metal"],
        ["compile", "a.metal", "b.metal", "common.h"],
        ["compile", "a.metal", "-o", "out.kilnlib"],
        ["compile", "-o", "out.kilnlib", "a.metal"],
        ["compile", "a.metal", "--output", "x/y.kilnlib", "--json"],
        ["compile", "--json", "a.metal"],
        ["compile", "a.metal", "-I", "include", "--include-directory", "more", "-I", "third"],
        ["compile", "dir with space/a.metal", "-o", "out file.kilnlib"],
    ]

    @Test(arguments: plain) func plainCommandLinesMeanWhatArgumentParserReads(_ arguments: [String]) throws {
        let quick = try #require(QuickCompileArguments.parse(arguments))
        let parsed = try #require(try Kiln.parseAsRoot(arguments) as? CompileCommand)
        #expect(quick == parsed.job)
        #expect(quick.files == parsed.files)
    }

    static let others: [[String]] = [
        [], ["render", "a.metal"], ["compile"], ["compile", "--help"], ["compile", "-h"], ["--version"],
        ["compile", "a.metal", "-o"], ["compile", "a.metal", "-o", "--json"], ["compile", "a.metal", "-o", "x", "-o", "y"],
        ["compile", "a.metal", "--json", "--json"], ["compile", "a.metal", "-ox.kilnlib"], ["compile", "a.metal", "--output=x"],
        ["compile", "--", "-a.metal"], ["compile", "a.metal", "--unknown"], ["compile", "a.metal", "-I"], ["compile", ""],
    ]

    @Test(arguments: others) func everythingElseGoesToArgumentParser(_ arguments: [String]) {
        #expect(QuickCompileArguments.parse(arguments) == nil)
    }
}
