import KilnBytecode
import KilnLanguage

/// Settings of one compile request.
public struct CompileOptions: Hashable, Sendable {
    /// Limits of the front end (source size, tokens, nesting, errors).
    public var languageLimits: LanguageLimits
    /// Limits of the produced library (registers per function, instructions, constants).
    public var libraryLimits: LibraryLimits
    /// Run dead-code elimination (constant folding and uniform hoisting always run).
    public var optimize: Bool
    /// Most helper calls inlined into one entry point. Every call is inlined, so helpers
    /// that each call the previous one twice would otherwise mean 2^n calls of work.
    public var maxInlinedCalls: Int
    /// Folders `#include` searches after the including file's own, as names relative to
    /// the request's files (`kiln compile -I`; see `IncludePath`).
    public var includeSearchPaths: [String]
    /// A loop whose trip count the compiler knows is lowered as that many copies of its body
    /// (no counter, compare or jump; the counter a constant in each copy) when it runs at
    /// most this many times (0: never unroll) …
    public var maxUnrolledIterations: Int
    /// … and its copies, nested unrolled loops included, come to at most this many
    /// instructions.
    public var maxUnrolledInstructions: Int
    /// Off: no loop is unrolled, whatever the limits above, and the loops a compile with
    /// them might have unrolled are counted (`CompileResult.loopsLeftForUnrolling`) — the
    /// server's quick tier (docs/server.md, "Two compile tiers").
    public var unrollsLoops = true
    /// Decide each loop's form by trying jump-based control on a snapshot of the lowering
    /// state and rolling back (`FunctionLowerer.speculativeLoop`) instead of by
    /// `LoopUniformityAnalysis`. On only to check the analysis against it.
    public var speculatesUniformLoops = false
    /// Statements and expressions `LoopUniformityAnalysis` may visit for one entry point
    /// (loops nested in loops are visited once per enclosing loop and per round of its
    /// fixed point). Past it the remaining loops are lowered with masks — always correct,
    /// slower to run — so a source built to make the analysis slow compiles in bounded time.
    public var maxUniformitySteps = 100_000
    /// Decide whether a loop's trip count is within `maxUnrolledIterations` by evaluating
    /// its counter (`FunctionLowerer.evaluatedTripCount`) instead of lowering
    /// its condition and step on a snapshot of the lowering state: the same answer, without
    /// copying the state. Off only to check that claim.
    public var evaluatesTripCounts = true
    /// Let reads of a copy of a register read the register itself where it still holds the
    /// same bits, and drop the copy (`CopyPropagator`). Off only to check that it changes
    /// neither the pictures nor what the pixel debugger shows.
    public var propagatesCopies = true
    /// Compute a value once per basic block: a recomputation from the same registers
    /// becomes a copy of the first result (`ValueNumbering`). Off only to check that it
    /// changes neither the pictures nor what the pixel debugger shows.
    public var numbersValues = true
    /// Compute a loop's invariant values once, before the loop (`LoopInvariantHoisting`).
    /// Off only to check that it changes neither the pictures nor the debugger's values.
    public var hoistsInvariants = true
    /// Where the front end's work on a unit's leading `#include "…"` header is kept for the
    /// next compile that starts with the same header (`HeaderCache`): the process's cache,
    /// or nil to do it every time — only to check that the cache changes nothing, or to time
    /// compiles without it.
    public var headerCache: HeaderCache? = .shared

    public init(languageLimits: LanguageLimits = .default, libraryLimits: LibraryLimits = .default, optimize: Bool = true,
                maxInlinedCalls: Int = 1 << 16, includeSearchPaths: [String] = [],
                maxUnrolledIterations: Int = 16, maxUnrolledInstructions: Int = 2048) {
        self.includeSearchPaths = includeSearchPaths
        self.maxUnrolledIterations = maxUnrolledIterations
        self.maxUnrolledInstructions = maxUnrolledInstructions
        self.languageLimits = languageLimits
        self.libraryLimits = libraryLimits
        self.optimize = optimize
        self.maxInlinedCalls = maxInlinedCalls
    }
}

/// What a compile request produced.
public struct CompileResult: Sendable {
    /// The library, or nil when any error was reported.
    public var library: Library?
    /// Errors, warnings and notes of every translation unit, in order.
    public var diagnostics: [Diagnostic]
    /// The files that were compiled (diagnostic locations index them).
    public var files: [SourceFile]
    /// Loops `LoopUniformityAnalysis` promised jump-based control or uniform homes that lowering
    /// found otherwise (lowered masked instead). Expected to be 0: a miss is an analysis bug
    /// that costs speed, never correctness.
    public var uniformityMisses = 0
    /// With `CompileOptions.unrollsLoops` off: the loops a compile with unrolling might have
    /// unrolled (a condition, no early exit, and no trip count known to be over
    /// `maxUnrolledIterations`). 0 means this result — library or diagnostics — is the one a
    /// compile with unrolling makes, bit for bit: there every loop gives up at the same
    /// tests, before lowering anything, so a quick compile (the server's first tier) can
    /// stand for the full one. Always 0 when unrolling is on.
    public var loopsLeftForUnrolling = 0

    public init(library: Library?, diagnostics: [Diagnostic], files: [SourceFile]) {
        self.library = library
        self.diagnostics = diagnostics
        self.files = files
    }
}

/// The compiler's façade: source files in, one `Library` (or diagnostics) out.
public enum Compiler {
    /// Checks every translation unit (each file not ending in `.h`; a lone file whatever its
    /// name), lowers every entry point, and merges them into one library with provenance.
    public static func compile(_ files: [SourceFile], options: CompileOptions = .init()) -> CompileResult {
        var diagnostics: [Diagnostic] = []
        let units = files.count == 1 ? [0] : files.indices.filter { !files[$0].name.hasSuffix(".h") }
        var assembler = LibraryAssembler(limits: options.libraryLimits, optimize: options.optimize,
                                          propagatesCopies: options.propagatesCopies, numbersValues: options.numbersValues,
                                          hoistsInvariants: options.hoistsInvariants)
        var names: [String: SourceRange] = [:]
        var failed = false
        var uniformityMisses = 0
        var loopsLeftForUnrolling = 0
        for main in units {
            let (checked, found) = Frontend.check(files: files, mainFile: main, limits: options.languageLimits,
                                                  searchPaths: options.includeSearchPaths,
                                                  headerCache: options.headerCache)
            diagnostics += found
            guard let program = checked, !found.contains(where: { $0.severity == .error }) else {
                failed = true
                continue
            }
            let discards = StatementScanner.discardingFunctions(program)
            for entry in program.entries {
                let function = program.functions[entry.function]
                if let previous = names[function.name] {
                    diagnostics.append(.error("duplicate entry point '\(function.name)'", at: function.range,
                                              notes: [.init(message: "previous definition is here", range: previous)]))
                    failed = true
                    continue
                }
                names[function.name] = function.range
                let lowerer = FunctionLowerer(program: program, entry: entry, constants: assembler.constants,
                                              maxRegisters: min(options.libraryLimits.maxRegisters, Int(UInt16.max)),
                                              functionDiscards: discards, constantIndex: assembler.constantIndexForNextFunction())
                lowerer.maxInlinedCalls = options.maxInlinedCalls
                lowerer.maxInstructions = options.libraryLimits.maxInstructions
                lowerer.maxUnrolledIterations = options.maxUnrolledIterations
                lowerer.maxUnrolledInstructions = options.maxUnrolledInstructions
                lowerer.unrollsLoops = options.unrollsLoops
                lowerer.speculatesUniformLoops = options.speculatesUniformLoops
                lowerer.uniformityShared = LoopUniformityAnalysis.Shared(steps: options.maxUniformitySteps)
                lowerer.evaluatesTripCounts = options.evaluatesTripCounts
                do {
                    let lowered = try lowerer.lowerEntry()
                    uniformityMisses += lowerer.uniformityMisses
                    loopsLeftForUnrolling += lowerer.loopsLeftForUnrolling
                    if let problem = assembler.append(lowered) {
                        diagnostics.append(problem)
                        failed = true
                    }
                } catch LoweringError.diagnostic(let diagnostic) {
                    diagnostics.append(diagnostic)
                    failed = true
                } catch {
                    diagnostics.append(.error("internal compiler error: \(error)", at: function.range))
                    failed = true
                }
            }
        }
        if assembler.functions.count > options.libraryLimits.maxFunctions {
            diagnostics.append(.error("\(assembler.functions.count) entry points, more than the limit of \(options.libraryLimits.maxFunctions) (LibraryLimits.maxFunctions)",
                                      at: SourceRange(at: SourceLocation(file: 0, offset: 0, line: 1, column: 1))))
            failed = true
        }
        guard !failed else {
            var result = CompileResult(library: nil, diagnostics: diagnostics, files: files)
            result.loopsLeftForUnrolling = loopsLeftForUnrolling
            return result
        }
        let library = Library(
            compilerVersion: CompilerVersion.string,
            sources: files.indices.map { index in
                // Included files are usually the same bytes as last compile's: their digests are kept.
                let digest = units.contains(index) ? nil
                    : options.headerCache?.digest(of: files[index].bytes, computing: SHA256Digest.hash)
                return SourceRecord(name: files[index].name, sha256: digest ?? SHA256Digest.hash(files[index].bytes))
            },
            functions: assembler.functions, constants: assembler.constants, code: assembler.code,
            debugLocations: assembler.debugLocations, debugInfo: assembler.debugInfo)
        var result = CompileResult(library: library, diagnostics: diagnostics, files: files)
        result.uniformityMisses = uniformityMisses
        result.loopsLeftForUnrolling = loopsLeftForUnrolling
        return result
    }
}
