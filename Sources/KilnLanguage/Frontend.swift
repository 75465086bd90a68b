/// The front end as one call: preprocess, parse and check a translation unit.
public enum Frontend {
    /// Preprocesses, parses and checks translation unit `mainFile`; `program` is nil when any
    /// error was reported. Diagnostics come in source order of discovery: parse errors first.
    /// Semantic analysis runs only on a unit that parsed cleanly, so a syntax error never
    /// cascades into follow-on type errors about the declarations it damaged.
    ///
    /// With a `headerCache`, a unit that starts with `#include "…"` reuses (or leaves there)
    /// the work on that header; the result is the same either way (`HeaderCache`).
    public static func check(files: [SourceFile], mainFile: Int, limits: LanguageLimits = .default,
                             searchPaths: [String] = [],
                             headerCache: HeaderCache? = nil) -> (program: CheckedProgram?, diagnostics: [Diagnostic]) {
        guard files.indices.contains(mainFile), let headerCache else {
            return checkWhole(files: files, mainFile: mainFile, limits: limits, searchPaths: searchPaths)
        }
        var preprocessor = Preprocessor(files: files, limits: limits, searchPaths: searchPaths)
        preprocessor.headerCache = headerCache
        let (tokens, table, problems) = preprocessor.run(mainFile: mainFile)
        var parser = Parser(tokens: tokens, table: table, limits: limits, diagnostics: problems)
        switch preprocessor.leadingHeader {
        case .resumed(let header):
            // Only the main file's tokens: the header's declarations are checked already.
            parser.declaredTypeNames = header.parser.declaredTypeNames
            let unit = parser.parseTranslationUnit()
            // A syntax error is reported exactly as without the cache: the parser went on from
            // where the header left it, and the header itself reported nothing.
            if parser.diagnostics.contains(where: { $0.severity == .error }) { return (nil, parser.diagnostics) }
            let checker = Checker(resuming: header.checker, files: files, limits: limits)
            checker.checkDeclarations(unit.declarations[...], from: header.parser.declarationCount)
            let diagnostics = parser.diagnostics + checker.diagnostics
            if !diagnostics.contains(where: { $0.severity == .error }) { return (checker.program, diagnostics) }
            // Type errors are reported as a compile without the cache reports them: some
            // follow-on diagnostics depend on the order the two passes met the declarations in.
            return checkWhole(files: files, mainFile: mainFile, limits: limits, searchPaths: searchPaths)
        case .recorded(let key, let resumption):
            let (unit, boundary) = parser.parseTranslationUnit(boundary: resumption.tokenCount)
            let parseFailed = parser.diagnostics.contains(where: { $0.severity == .error })
            if let boundary {
                // The header is checked and kept even when the main file does not parse: the
                // next edit, which may fix it, finds the header done.
                let checker = Checker(files: files, limits: limits)
                checker.checkDeclarations(unit.declarations[..<boundary.declarationCount], from: 0)
                if checker.diagnostics.isEmpty {
                    headerCache.store(HeaderCache.Entry(key: key.withoutMainText(), preprocessor: resumption,
                                                        parser: boundary,
                                                        checker: checker.snapshot()))
                    if !parseFailed {
                        checker.checkDeclarations(unit.declarations[boundary.declarationCount...], from: boundary.declarationCount)
                        let diagnostics = parser.diagnostics + checker.diagnostics
                        if !diagnostics.contains(where: { $0.severity == .error }) { return (checker.program, diagnostics) }
                    }
                }
            }
            if parseFailed { return (nil, parser.diagnostics) }
            return check(unit, parseDiagnostics: parser.diagnostics, files: files, limits: limits)
        case nil:
            let unit = parser.parseTranslationUnit()
            if parser.diagnostics.contains(where: { $0.severity == .error }) { return (nil, parser.diagnostics) }
            return check(unit, parseDiagnostics: parser.diagnostics, files: files, limits: limits)
        }
    }

    /// The unit preprocessed, parsed and checked in one piece, without a header cache.
    static func checkWhole(files: [SourceFile], mainFile: Int, limits: LanguageLimits,
                           searchPaths: [String]) -> (program: CheckedProgram?, diagnostics: [Diagnostic]) {
        let (unit, parseDiagnostics) = Parser.parse(files: files, mainFile: mainFile, limits: limits, searchPaths: searchPaths)
        if parseDiagnostics.contains(where: { $0.severity == .error }) {
            return (nil, parseDiagnostics)
        }
        return check(unit, parseDiagnostics: parseDiagnostics, files: files, limits: limits)
    }

    /// Both passes over a whole parsed unit.
    private static func check(_ unit: TranslationUnit, parseDiagnostics: [Diagnostic], files: [SourceFile],
                              limits: LanguageLimits) -> (program: CheckedProgram?, diagnostics: [Diagnostic]) {
        let checker = Checker(files: files, limits: limits)
        let program = checker.check(unit)
        return (program, parseDiagnostics + checker.diagnostics)
    }
}
