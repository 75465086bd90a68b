/// Semantic analysis: turns a parsed `TranslationUnit` into a `CheckedProgram`.
///
/// The checker resolves names and types, makes every conversion, splat, default argument
/// and overload choice explicit, classifies entry points, and reports problems the way
/// clang would (precise ranges, notes, fix-its). An expression with an error checks to
/// `nil`, which silences every follow-on diagnostic about it, so one mistake is reported once.
///
/// It runs in two passes over the declarations, both in source order:
/// 1. types, enums, aliases, program-scope constants and function signatures
///    (`Checker+Declarations.swift`);
/// 2. function bodies (`Checker+Statements.swift`, `Checker+Expressions.swift`) and entry
///    classification (`Checker+Entries.swift`).
/// A body only sees functions declared before it (or itself), as in C++.
final class Checker {
    let files: [SourceFile]
    let limits: LanguageLimits
    private(set) var diagnostics: [Diagnostic] = []
    private(set) var errorCount = 0
    /// Set once `limits.maxErrors` is reached; later errors are dropped.
    private var stoppedReporting = false
    /// Errors are no longer shown, so expensive explanations (suggestions) can be skipped.
    var reportingStopped: Bool { stoppedReporting }

    // MARK: Program being built

    var structs: [StructInfo] = []
    var globals: [GlobalInfo] = []
    /// Values of scalar globals whose initializer is a constant (for array sizes and labels).
    var globalConstants: [GlobalID: ConstantValue] = [:]
    var functions: [CheckedFunction] = []
    var entries: [EntryInfo] = []

    // MARK: Program-scope names

    /// Structs, enums and aliases by name.
    var typeNames: [String: KType] = [:]
    /// `constant` globals and `constexpr sampler`s by name.
    var globalNames: [String: GlobalID] = [:]
    /// Cases of unscoped enums, visible unqualified.
    var enumConstants: [String: ConstantValue] = [:]
    /// Cases of every enum, by enum name then case name (`Mode::fast`).
    var enumCases: [String: [String: ConstantValue]] = [:]
    /// Where each program-scope name (type, global, enumerator) was declared: the index of
    /// its top-level declaration and its range. Pass 1 declares everything before bodies are
    /// checked, so bodies use this to see only what C++ would: names declared above them.
    var namePositions: [String: (index: Int, range: SourceRange)] = [:]
    /// Index of the top-level declaration pass 1 is at.
    var declarationIndex = 0
    /// Program-scope names whose declaration had an error: uses stay silent (no cascade).
    var poisonedNames: Set<String> = []
    /// Every declared function signature, in declaration order.
    var signatures: [FunctionSignature] = []
    /// Function definitions declared so far; the next one gets this `FunctionID`.
    var definitionCount = 0
    /// Indexes into `signatures` by function name.
    var overloads: [String: [Int]] = [:]
    /// Bit n set when a name in `overloads` is n UTF-8 bytes long (bit 63: 63 or more). A call
    /// of a builtin (`sin`, `clamp`) whose name's length no function of the program has skips
    /// hashing the name to find no overloads of its own.
    var overloadNameLengths: UInt64 = 0

    // MARK: The function being checked

    /// The function whose body is being checked; `FunctionContext.programScope` (no
    /// variables, `isFunction` false) while checking program-scope declarations.
    var current = FunctionContext.programScope
    var scope = Scope()
    /// Call graph edges between function definitions (for recursion): each caller's callees,
    /// indexed by the caller's `FunctionID` (definitions are numbered from 0), grown as calls come.
    var callees: [Set<FunctionID>] = []
    /// Functions some call has targeted so far (a caller not among them cannot close a cycle),
    /// indexed by `FunctionID`, grown as calls come.
    var calledFunctions: [Bool] = []
    /// Caller/callee pairs already reported as recursive.
    var reportedRecursion: Set<CallEdge> = []
    /// Open `checkExpression` calls; 0 at an outermost expression (see `expressionFitsDepthLimit`).
    var expressionNesting = 0

    init(files: [SourceFile], limits: LanguageLimits) {
        self.files = files
        self.limits = limits
    }

    /// Checks a whole translation unit. The program is `nil` when any error was reported.
    func check(_ unit: TranslationUnit) -> CheckedProgram? {
        checkDeclarations(unit.declarations[...], from: 0)
        return program
    }

    /// Both passes over a run of the unit's top-level declarations, the first of which is
    /// declaration `firstIndex` of the unit. The whole unit is one run; a unit that starts
    /// with a header is two (`HeaderCache`): the header's, then the rest.
    func checkDeclarations(_ declarations: ArraySlice<Declaration>, from firstIndex: Int) {
        let definitions = declareAll(declarations, from: firstIndex)
        for definition in definitions {
            checkDefinition(definition)
        }
    }

    /// What was checked; `nil` when any error was reported.
    var program: CheckedProgram? {
        guard errorCount == 0 else { return nil }
        return CheckedProgram(structs: structs, globals: globals, functions: functions, entries: entries)
    }

    // MARK: Resuming after a header

    /// The checker between two top-level declarations, when no function is being checked:
    /// everything it has declared and checked so far. A checker made from it goes on
    /// exactly as this one would (`HeaderCache` keeps one per header).
    struct Snapshot: @unchecked Sendable {
        fileprivate var diagnostics: [Diagnostic]
        fileprivate var errorCount: Int
        fileprivate var stoppedReporting: Bool
        fileprivate var structs: [StructInfo]
        fileprivate var globals: [GlobalInfo]
        fileprivate var globalConstants: [GlobalID: ConstantValue]
        fileprivate var functions: [CheckedFunction]
        fileprivate var entries: [EntryInfo]
        fileprivate var typeNames: [String: KType]
        fileprivate var globalNames: [String: GlobalID]
        fileprivate var enumConstants: [String: ConstantValue]
        fileprivate var enumCases: [String: [String: ConstantValue]]
        fileprivate var namePositions: [String: (index: Int, range: SourceRange)]
        fileprivate var declarationIndex: Int
        fileprivate var poisonedNames: Set<String>
        fileprivate var signatures: [FunctionSignature]
        fileprivate var definitionCount: Int
        fileprivate var overloads: [String: [Int]]
        fileprivate var overloadNameLengths: UInt64
        fileprivate var callees: [Set<FunctionID>]
        fileprivate var calledFunctions: [Bool]
        fileprivate var reportedRecursion: Set<CallEdge>

        /// The stored properties of `Checker` a snapshot does not hold: the request's
        /// (given again on resuming) and the per-function ones (reset after each definition).
        static let notCaptured: Set<String> = ["files", "limits", "current", "scope", "expressionNesting"]
    }

    /// This checker's state; only between top-level declarations.
    func snapshot() -> Snapshot {
        precondition(!current.isFunction && expressionNesting == 0, "a snapshot is taken between declarations")
        return Snapshot(diagnostics: diagnostics, errorCount: errorCount, stoppedReporting: stoppedReporting,
                        structs: structs, globals: globals, globalConstants: globalConstants, functions: functions,
                        entries: entries, typeNames: typeNames, globalNames: globalNames, enumConstants: enumConstants,
                        enumCases: enumCases, namePositions: namePositions, declarationIndex: declarationIndex,
                        poisonedNames: poisonedNames, signatures: signatures, definitionCount: definitionCount,
                        overloads: overloads, overloadNameLengths: overloadNameLengths,
                        callees: callees, calledFunctions: calledFunctions,
                        reportedRecursion: reportedRecursion)
    }

    /// A checker that goes on from `snapshot` over the files of a new request (whose files
    /// the snapshot's declarations came from are the same bytes: `HeaderCache.Key`).
    convenience init(resuming snapshot: Snapshot, files: [SourceFile], limits: LanguageLimits) {
        self.init(files: files, limits: limits)
        diagnostics = snapshot.diagnostics
        errorCount = snapshot.errorCount
        stoppedReporting = snapshot.stoppedReporting
        structs = snapshot.structs
        globals = snapshot.globals
        globalConstants = snapshot.globalConstants
        functions = snapshot.functions
        entries = snapshot.entries
        typeNames = snapshot.typeNames
        globalNames = snapshot.globalNames
        enumConstants = snapshot.enumConstants
        enumCases = snapshot.enumCases
        namePositions = snapshot.namePositions
        declarationIndex = snapshot.declarationIndex
        poisonedNames = snapshot.poisonedNames
        signatures = snapshot.signatures
        definitionCount = snapshot.definitionCount
        overloads = snapshot.overloads
        overloadNameLengths = snapshot.overloadNameLengths
        callees = snapshot.callees
        calledFunctions = snapshot.calledFunctions
        reportedRecursion = snapshot.reportedRecursion
    }

    // MARK: Diagnostics

    func error(_ message: String, at range: SourceRange, notes: [Diagnostic.Note] = [], fixIt: Diagnostic.FixIt? = nil) {
        errorCount += 1
        guard !stoppedReporting else { return }
        if errorCount > limits.maxErrors {
            stoppedReporting = true
            diagnostics.append(.error("too many errors emitted, stopping now (limit maxErrors = \(limits.maxErrors))", at: range))
            return
        }
        diagnostics.append(.error(message, at: range, notes: notes, fixIt: fixIt))
    }

    func warning(_ message: String, at range: SourceRange, notes: [Diagnostic.Note] = [], fixIt: Diagnostic.FixIt? = nil) {
        guard !stoppedReporting else { return }
        diagnostics.append(.warning(message, at: range, notes: notes, fixIt: fixIt))
    }

    /// Records that a program-scope name is declared by the current top-level declaration.
    func noteDeclared(_ name: String, at range: SourceRange) {
        if namePositions[name] == nil { namePositions[name] = (declarationIndex, range) }
    }

    /// If `name` is declared below the function being checked, reports its use as C++ would
    /// (undeclared, with a note pointing at the later declaration) and returns true.
    func reportIfDeclaredLater(_ name: String, at range: SourceRange, what: String) -> Bool {
        guard current.isFunction, let position = namePositions[name], position.index > current.declarationIndex else { return false }
        error("\(what) '\(name)'", at: range,
              notes: [.init(message: "'\(name)' is declared later, here; move the declaration above its use", range: position.range)])
        return true
    }

    /// "not supported: …" for valid MSL outside Kiln's subset.
    func unsupported(_ what: String, at range: SourceRange) {
        error("not supported: \(what)", at: range)
    }

    /// The source text of a range (for fix-its).
    func text(of range: SourceRange) -> String {
        guard range.start.file >= 0, range.start.file < files.count, range.start.file == range.end.file else { return "" }
        let bytes = files[range.start.file].bytes
        let start = max(0, min(range.start.offset, bytes.count))
        let end = max(start, min(range.end.offset, bytes.count))
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The range of operator `spelling` between two operands (the AST keeps only the whole
    /// expression's range); falls back to the gap between them.
    func operatorRange(_ spelling: String, after lhs: SourceRange, before rhs: SourceRange) -> SourceRange {
        let file = lhs.end.file
        guard file >= 0, file < files.count, file == rhs.start.file, lhs.end.offset <= rhs.start.offset else {
            return SourceRange(at: rhs.start)
        }
        let bytes = files[file].bytes
        let needle = Array(spelling.utf8)
        var offset = lhs.end.offset
        let limit = min(rhs.start.offset, bytes.count) - needle.count
        while offset <= limit {
            if bytes[offset] == needle[0], Array(bytes[offset..<offset + needle.count]) == needle {
                let start = location(file: file, offset: offset, near: lhs.end)
                let end = location(file: file, offset: offset + needle.count, near: lhs.end)
                return SourceRange(start: start, end: end)
            }
            offset += 1
        }
        return SourceRange(start: lhs.end, end: rhs.start)
    }

    private func location(file: Int, offset: Int, near: SourceLocation) -> SourceLocation {
        let (line, column) = files[file].lineAndColumn(ofOffset: offset)
        return SourceLocation(file: file, offset: offset, line: line, column: column)
    }

    /// `overloadNameLengths`' bit for a name.
    static func lengthBit(of name: String) -> UInt64 { 1 << UInt64(min(name.utf8.count, 63)) }

    /// How diagnostics spell a type.
    func spell(_ type: KType) -> String {
        TypeResolver.spelling(type, structs: structs)
    }
}

/// A call from one function definition to another: an edge of the call graph.
struct CallEdge: Hashable, Sendable {
    var caller: FunctionID
    var callee: FunctionID
}

/// A declared function (prototype and/or definition), as calls see it.
struct FunctionSignature {
    var name: String
    var nameRange: SourceRange
    var parameterTypes: [KType]
    /// `thread T &` (non-const) parameters: the argument must be a writable lvalue of exactly the type.
    var mutableReferences: [Bool]
    /// Default arguments, converted to the parameter types.
    var defaults: [TypedExpression?]
    var returnType: KType
    /// Position of the first declaration among all function declarations (visibility).
    var order: Int
    /// The definition's ID, once a body is declared.
    var functionID: FunctionID?
}

/// State of the function whose body is being checked.
struct FunctionContext {
    var name: String
    var functionID: FunctionID
    /// Index of this definition among the top-level declarations.
    var declarationIndex: Int
    /// Signatures with `order <= visiblePosition` were declared before this body.
    var visiblePosition: Int
    var qualifier: FunctionQualifier
    /// `[[stitchable]]`: a SwiftUI effect (no `discard_fragment`).
    var isStitchable: Bool
    var returnType: KType
    /// Parameters are the first variables.
    var parameterCount: Int
    /// Parameter types as written (`constant float &`), for messages.
    var parameterSpellings: [String] = []
    var variables: [VariableInfo] = []
    /// Locals whose declaration had an error: uses stay silent (no cascade).
    var poisonedVariables: Set<VariableID> = []
    /// `const` locals initialized with constants (usable in array sizes and case labels).
    var constantLocals: [VariableID: ConstantValue] = [:]
    /// Enclosing loops (for `continue`) and loops + switches (for `break`).
    var loopDepth = 0
    var breakableDepth = 0

    /// The context outside every function: program-scope declarations have no locals,
    /// parameters, loops or caller.
    static let programScope = FunctionContext(name: "", functionID: -1, declarationIndex: -1, visiblePosition: -1,
                                              qualifier: .none, isStitchable: false, returnType: .void, parameterCount: 0)

    /// False at program scope.
    var isFunction: Bool { functionID >= 0 }
}
