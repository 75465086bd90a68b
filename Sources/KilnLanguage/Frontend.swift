/// The front end as one call: preprocess, parse and check a translation unit.
public enum Frontend {
    /// Preprocesses, parses and checks translation unit `mainFile`; `program` is nil when any
    /// error was reported. Diagnostics come in source order of discovery: parse errors first.
    /// Semantic analysis runs only on a unit that parsed cleanly, so a syntax error never
    /// cascades into follow-on type errors about the declarations it damaged.
    public static func check(files: [SourceFile], mainFile: Int, limits: LanguageLimits = .default,
                             searchPaths: [String] = []) -> (program: CheckedProgram?, diagnostics: [Diagnostic]) {
        let (unit, parseDiagnostics) = Parser.parse(files: files, mainFile: mainFile, limits: limits, searchPaths: searchPaths)
        if parseDiagnostics.contains(where: { $0.severity == .error }) {
            return (nil, parseDiagnostics)
        }
        let checker = Checker(files: files, limits: limits)
        let program = checker.check(unit)
        return (program, parseDiagnostics + checker.diagnostics)
    }
}
