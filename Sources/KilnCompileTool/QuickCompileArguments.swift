/// `kiln compile` without ArgumentParser, for the plain command lines editors and build
/// scripts run on every save.
///
/// ArgumentParser discovers a command's options by reflection (`Mirror`), and the Swift
/// runtime answers each first "does this type conform to that protocol?" by scanning every
/// conformance record of the executable. For `kiln compile bench/wave.metal` that was
/// 11.0 M of the process's 24.0 M instructions (callgrind), more than the compile and the
/// dynamic loader together. A command line made only of file names, `-o`/`--output`,
/// `--json` and `-I`/`--include-directory` is read here instead, into the same
/// `CompileJob` `kiln compile`'s ArgumentParser command runs; anything else (`--help`,
/// `--version`, `--`, `-o` twice, an unknown or glued option, no file) returns nil, and
/// the `kiln` executable hands the whole command line to `kiln-cli` (`CommandLauncher`),
/// whose ArgumentParser then also writes the messages. `QuickCompileArgumentsTests` checks
/// that both readings agree.
public enum QuickCompileArguments {
    /// The compile `arguments` (without the program name) describe, or nil to let
    /// ArgumentParser read them.
    public static func parse(_ arguments: [String]) -> CompileJob? {
        guard arguments.first == "compile" else { return nil }
        var files: [String] = []
        var output: String?
        var json = false
        var includeDirectories: [String] = []
        var index = 1
        /// The value after an option at `index`, or nil when there is none.
        func value() -> String? {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-o", "--output":
                guard output == nil, let path = value() else { return nil }
                output = path
            case "--json":
                guard !json else { return nil }
                json = true
            case "-I", "--include-directory":
                guard let directory = value() else { return nil }
                includeDirectories.append(directory)
            default:
                guard !argument.hasPrefix("-"), !argument.isEmpty else { return nil }
                files.append(argument)
            }
            index += 1
        }
        guard !files.isEmpty else { return nil }
        return CompileJob(files: files, output: output, json: json, includeDirectories: includeDirectories)
    }
}
