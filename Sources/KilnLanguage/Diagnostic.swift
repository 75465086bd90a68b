/// A problem found in a shader, printed clang-style by `DiagnosticRenderer`.
public struct Diagnostic: Hashable, Sendable {
    public enum Severity: String, Hashable, Sendable {
        case error, warning, note
    }

    /// A secondary message attached to a diagnostic (`note: expanded from macro 'X'`).
    public struct Note: Hashable, Sendable {
        public var message: String
        public var range: SourceRange?
        public init(message: String, range: SourceRange?) {
            self.message = message
            self.range = range
        }
    }

    /// A suggested edit: replace `range` with `replacement` (insertion when the range is empty).
    public struct FixIt: Hashable, Sendable {
        public var range: SourceRange
        public var replacement: String
        public init(range: SourceRange, replacement: String) {
            self.range = range
            self.replacement = replacement
        }
    }

    public var severity: Severity
    public var message: String
    /// Where the problem is; the caret goes under `range.start`, tildes under the rest.
    public var range: SourceRange
    public var notes: [Note]
    public var fixIt: FixIt?

    public init(_ severity: Severity, _ message: String, at range: SourceRange,
                notes: [Note] = [], fixIt: FixIt? = nil) {
        self.severity = severity
        self.message = message
        self.range = range
        self.notes = notes
        self.fixIt = fixIt
    }

    public static func error(_ message: String, at range: SourceRange, notes: [Note] = [], fixIt: FixIt? = nil) -> Diagnostic {
        Diagnostic(.error, message, at: range, notes: notes, fixIt: fixIt)
    }

    public static func warning(_ message: String, at range: SourceRange, notes: [Note] = [], fixIt: FixIt? = nil) -> Diagnostic {
        Diagnostic(.warning, message, at: range, notes: notes, fixIt: fixIt)
    }
}

/// Limits on what the front end accepts, so hostile input cannot exhaust time or memory.
/// Each limit, when hit, produces an error that names it.
public struct LanguageLimits: Hashable, Sendable {
    /// Maximum bytes of all source files of one compile request (at most 2³¹ − 1, whatever
    /// is set: source locations are stored in 32 bits).
    public var maxSourceBytes: Int = 1 << 20
    /// Maximum tokens after preprocessing (macro expansion included).
    public var maxTokens: Int = 1 << 20
    /// Maximum tokens macro expansion may create in one translation unit, counting those
    /// of nested expansions and pre-expanded arguments that are later copied or dropped.
    /// A function-like macro bomb (`#define F1(x) F0(x)+F0(x)` … `F60`) spends this budget
    /// in work, not in output, so it is kept well below `maxTokens`: real shaders expand
    /// to a few thousand tokens.
    public var maxExpansionTokens: Int = 1 << 17
    /// Maximum nesting of expressions, statements and blocks.
    public var maxNestingDepth: Int = 256
    /// Maximum nesting of `#include`.
    public var maxIncludeDepth: Int = 32
    /// Maximum `#include` directives followed in one translation unit, counting every
    /// time a file is entered (a header included twice counts twice): a graph where each
    /// header includes the next one twice would otherwise take 2ⁿ steps.
    public var maxIncludes: Int = 1024
    /// Maximum macro expansion depth (recursion guard).
    public var maxMacroExpansionDepth: Int = 64
    /// Maximum errors reported before the compiler stops with "too many errors".
    public var maxErrors: Int = 50

    public init() {}
    public static let `default` = LanguageLimits()
}
