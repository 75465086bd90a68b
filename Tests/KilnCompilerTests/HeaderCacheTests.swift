import Foundation
import KilnBytecode
import Synchronization
import KilnCompiler
@testable import KilnLanguage
import KilnTestSupport
import Testing

/// The header cache changes nothing but the time: a compile that resumes after a cached
/// leading header gives the library and the diagnostics of a compile without the cache —
/// over every shader of the corpus split into a header and a main file at its declarations,
/// and over the cases that must not, or must not wrongly, use an entry.
@Suite struct HeaderCacheTests {
    struct Outcome: Equatable {
        var library: Library?
        var diagnostics: [Diagnostic]
    }

    static func compile(_ files: [SourceFile], cache: HeaderCache?, limits: LanguageLimits = .default) -> Outcome {
        var options = CompileOptions(languageLimits: limits)
        options.headerCache = cache
        let result = Compiler.compile(files, options: options)
        return Outcome(library: result.library, diagnostics: result.diagnostics)
    }

    static func files(main: String, header: String, headerName: String = "split.h") -> [SourceFile] {
        [SourceFile(name: "main.metal", text: main), SourceFile(name: headerName, text: header)]
    }

    /// Compiles `files` without a cache, then twice with a fresh one (recording, then
    /// resuming); the three must agree. Returns the cache's hits.
    static func expectSameWithCache(_ files: [SourceFile], limits: LanguageLimits = .default,
                                    _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Int {
        let reference = compile(files, cache: nil, limits: limits)
        let cache = HeaderCache()
        let recorded = compile(files, cache: cache, limits: limits)
        let resumed = compile(files, cache: cache, limits: limits)
        let sameRecorded = recorded == reference, sameResumed = resumed == reference
        #expect(sameRecorded, "\(what): recording compile differs", sourceLocation: sourceLocation)
        #expect(sameResumed, "\(what): resuming compile differs: \(resumed.diagnostics.map(\.message)) vs \(reference.diagnostics.map(\.message))",
                sourceLocation: sourceLocation)
        return cache.hits
    }

    /// Line indexes where a top-level declaration starts after a complete one: places to cut
    /// a shader into a header (the lines above) and a main file (the lines from there).
    static func cuts(_ lines: [Substring]) -> [Int] {
        var cuts: [Int] = []
        var previous = ""
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("//") { continue }
            let startsDeclaration = line.first.map { $0.isLetter || $0 == "[" } ?? false
            if startsDeclaration, previous.hasSuffix("}") || previous.hasSuffix(";") || previous.hasPrefix("#") {
                cuts.append(index)
            }
            previous = trimmed
        }
        return cuts
    }

    static let corpus = ShaderCorpusTests.corpus + RepositoryFiles.metalFiles(in: "shaders")

    @Test(arguments: corpus) func everyCutOfTheCorpusCompilesTheSame(_ path: String) throws {
        let lines = RepositoryFiles.text(path).split(separator: "\n", omittingEmptySubsequences: false)
        let cuts = Self.cuts(lines)
        // At most three cuts a file, spread over it: the first, the middle and the last.
        let chosen = Set([cuts.first, cuts.isEmpty ? nil : cuts[cuts.count / 2], cuts.last].compactMap { $0 })
        var hits = 0, anyDiagnostic = false
        for cut in chosen.sorted() {
            let header = lines[..<cut].joined(separator: "\n") + "\n"
            let main = "#include \"split.h\"\n" + lines[cut...].joined(separator: "\n")
            hits += Self.expectSameWithCache(Self.files(main: main, header: header), "\(path) cut at line \(cut + 1)")
            anyDiagnostic = anyDiagnostic || !Self.compile(Self.files(main: main, header: header), cache: nil).diagnostics.isEmpty
            // The entry serves another main file after the same header.
            let edited = Self.files(main: main + "\nconstant float kAddedByAnEdit = 2.5;\n", header: header)
            let cache = HeaderCache()
            _ = Self.compile(Self.files(main: main, header: header), cache: cache)
            let resumed = Self.compile(edited, cache: cache)
            let same = resumed == Self.compile(edited, cache: nil)
            #expect(same, "\(path) cut at line \(cut + 1), edited main")
        }
        // Not vacuous: some cut was reused (a cut that does not compile cleanly may not be).
        #expect(chosen.isEmpty || hits > 0 || anyDiagnostic, "\(path): no cut was ever reused")
    }

    /// The example shaders that include `common.h`, as they are.
    @Test func theExamplesThatIncludeCommonCompileTheSame() throws {
        let common = SourceFile(name: "common.h", text: RepositoryFiles.text("shaders/common.h"))
        for name in ["gradient", "grain", "rotate", "rounded_rect", "tone"] {
            let main = SourceFile(name: "\(name).metal", text: RepositoryFiles.text("shaders/\(name).metal"))
            let hits = Self.expectSameWithCache([main, common], name)
            #expect(hits == 1, "\(name)")
        }
    }

    static let header = """
    #include <metal_stdlib>
    using namespace metal;
    #ifndef SPLIT_H
    #define SPLIT_H
    #define LONG_SCALE_CONSTANT 0.12345678901234567
    struct Tint { float3 color; float amount; };
    static float shade(float x) { return x * LONG_SCALE_CONSTANT; }
    static float twice(float x) { return shade(x) * 2.0; }
    float later(float x);
    #endif
    """

    static func main(_ body: String) -> String {
        """
        #include "split.h"
        \(body)
        [[ stitchable ]] half4 effect(float2 position, half4 color) {
            Tint t = { float3(1, 0.5, 0.25), 0.5 };
            float v = twice(position.x) + shade(LONG_SCALE_CONSTANT);
            return half4(half3(t.color * v * t.amount), 1) * color.a;
        }
        """
    }

    @Test func mainFilesThatAddToTheHeadersNamesCompileTheSame() {
        let mains = [
            "",
            "static float shade(int x) { return float(x); }",                 // an overload, declared later
            "static float shade(float x) { return x; }",                      // a redefinition: an error
            "struct Tint { int n; };",                                        // a redefinition: an error
            "float later(float x) { return x + 1.0; }",                       // defines the header's prototype
            "#include \"split.h\"",                                           // included again, guarded
            "#define LONG_SCALE_CONSTANT 2.0",                                // redefined: a warning
            "constant float k = LONG_SCALE_CONSTANT;",
            "static float broken( { return 0; }",                             // a syntax error
        ]
        for body in mains {
            let hits = Self.expectSameWithCache(Self.files(main: Self.main(body), header: Self.header), body)
            #expect(hits == 1, "\(body)")
        }
    }

    /// While a file is being typed it often does not parse: a resumed compile reports the
    /// syntax errors itself, and they are the uncached compile's.
    @Test func syntaxErrorsAfterACachedHeaderAreTheUncachedOnes() {
        let mains = [
            "#include \"split.h\"\n[[ stitchable ]] half4 e(float2 p, half4 c) { return c }",
            "#include \"split.h\"\n{",
            "#include \"split.h\"\nstatic float f(float x) { return (x; }\nstatic float g(float y) { return y +; }",
            "#include \"split.h\"\nTint",
            "#include \"split.h\"\n" + String(repeating: "static float f( ;\n", count: 60),   // past maxErrors
        ]
        for main in mains {
            let hits = Self.expectSameWithCache(Self.files(main: main, header: Self.header), main)
            #expect(hits == 1, "\(main)")
        }
    }

    @Test func onlyALeadingHeaderIsKept() {
        let cases: [(main: String, kept: Bool)] = [
            (Self.main(""), true),
            ("// a comment and a system header first\n#include <metal_stdlib>\n" + Self.main(""), true),
            ("#define FIRST 1\n" + Self.main(""), false),                      // a macro before it
            ("#if 1\n#include \"split.h\"\n#endif\n" + Self.main(""), false),  // inside #if
            ("constant float before = 1;\n" + Self.main(""), false),           // a token before it
        ]
        for (main, kept) in cases {
            let files = Self.files(main: main, header: Self.header)
            _ = Self.expectSameWithCache(files, main)
            let cache = HeaderCache()
            _ = Self.compile(files, cache: cache)
            #expect((cache.count == 1) == kept, "\(main)")
        }
    }

    @Test func aHeaderWithADiagnosticIsNotKept() {
        for header in [Self.header + "\nstatic float unused(float x) { }\n",    // a warning: no return
                       Self.header + "\n#warning \"look\"\n",
                       Self.header + "\nstatic float bad(float x) { return y; }\n"] {
            let files = Self.files(main: Self.main(""), header: header)
            _ = Self.expectSameWithCache(files, header)
            let cache = HeaderCache()
            _ = Self.compile(files, cache: cache)
            #expect(cache.count == 0)
        }
    }

    @Test func anEditedHeaderIsNotTakenForTheOldOne() {
        let cache = HeaderCache()
        let old = Self.files(main: Self.main(""), header: Self.header)
        let edited = Self.files(main: Self.main(""), header: Self.header.replacingOccurrences(of: "* 2.0", with: "* 3.0"))
        let a = Self.compile(old, cache: cache)
        let b = Self.compile(edited, cache: cache)
        #expect(a == Self.compile(old, cache: nil))
        #expect(b == Self.compile(edited, cache: nil))
        #expect(a.library != b.library)
        #expect(cache.hits == 0 && cache.count == 2)
        // A header of another name, or another main file name, is another entry too.
        _ = Self.compile(Self.files(main: Self.main("").replacingOccurrences(of: "split.h", with: "other.h"),
                                    header: Self.header, headerName: "other.h"), cache: cache)
        #expect(cache.hits == 0 && cache.count == 3)
    }

    /// A key leaves the main file's text out, so a header whose state depends on it — the
    /// main file itself, or a header that includes the main file — is never kept.
    @Test func aHeaderThatReadsTheMainFileIsNotKept() {
        let guarded = "#ifndef MAIN_ONCE\n#define MAIN_ONCE\n" + Self.main("") + "\n#endif\n"
        let selfIncluding = Self.files(main: "#include \"main.metal\"\n" + guarded, header: Self.header)
        let includingMain = Self.files(main: Self.main("").replacingOccurrences(of: "#include \"split.h\"", with: "#include \"back.h\""),
                                       header: "#include \"main.metal\"\n", headerName: "back.h")
        for files in [selfIncluding, includingMain] {
            _ = Self.expectSameWithCache(files, files[0].text)
            let cache = HeaderCache()
            _ = Self.compile(files, cache: cache)
            #expect(cache.count == 0)
        }
    }

    /// A server's requests bring the same header in new arrays each time: still the entry.
    @Test func theSameHeaderInNewArraysIsFound() {
        let cache = HeaderCache()
        for _ in 0..<3 {
            let files = [SourceFile(name: "main.metal", text: String(Self.main("").reversed().reversed())),
                         SourceFile(name: "split.h", text: String(Self.header.reversed().reversed()))]
            _ = Self.compile(files, cache: cache)
        }
        #expect(cache.hits == 2)
        for count in [0, 1, 7, 8, 9, 15, 16, 17, 100] {
            let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            #expect(HeaderCache.Key.sameBytes(a, Array(a)))
            for index in 0..<count {
                var b = a
                b[index] ^= 1
                #expect(!HeaderCache.Key.sameBytes(a, b), "\(count) bytes, differing at \(index)")
            }
            #expect(!HeaderCache.Key.sameBytes(a, a + [0]))
        }
    }

    /// A server compiles on several threads at once, all with the process's cache: entries
    /// are shared, recorded and replaced concurrently, and every compile still gives the
    /// result it gives alone.
    @Test func concurrentCompilesShareEntries() {
        let cache = HeaderCache()
        let mains = (0..<4).map { Self.files(main: Self.main("constant float kVariant = \($0);"), header: Self.header) }
        let references = mains.map { Self.compile($0, cache: nil) }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let which = index % mains.count
            if Self.compile(mains[which], cache: cache) != references[which] { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.withLock { $0 } == 0)
        #expect(cache.count == 1 && cache.hits > 0)
    }

    /// The header's tokens count against `maxTokens` though a resumed compile skips them.
    @Test func skippedTokensStillCountAgainstTheTokenLimit() throws {
        let files = Self.files(main: Self.main(""), header: Self.header)
        let cache = HeaderCache()
        let tokens = Preprocessor.preprocess(files: files, mainFile: 0).tokens.count
        for maxTokens in [tokens - 1, tokens, tokens + 1, tokens + 40] {
            var limits = LanguageLimits.default
            limits.maxTokens = maxTokens
            let reference = Self.compile(files, cache: nil, limits: limits)
            // Limits are part of the key: record with these limits, then resume with them.
            let recorded = Self.compile(files, cache: cache, limits: limits)
            let resumed = Self.compile(files, cache: cache, limits: limits)
            #expect(recorded == reference && resumed == reference, "maxTokens \(maxTokens)")
        }
    }

    @Test func theCacheIsBounded() {
        let cache = HeaderCache()
        for index in 0..<(HeaderCache.maxEntries + 3) {
            let header = Self.header + "\nconstant float kVersion\(index) = \(index);\n"
            _ = Self.compile(Self.files(main: Self.main(""), header: header), cache: cache)
        }
        #expect(cache.count == HeaderCache.maxEntries)
        // A request whose other files exceed `maxSourceBytes` is not kept.
        let big = Self.header + "\n" + String(repeating: "// padding\n", count: HeaderCache.maxSourceBytes / 11 + 1)
        let before = cache.count
        cache.removeAll()
        _ = Self.compile(Self.files(main: Self.main(""), header: big), cache: cache)
        #expect(before == HeaderCache.maxEntries && cache.count == 0)
    }

    /// An included file's digest is computed once for its bytes, whatever array brings them,
    /// computed again for other bytes, and the digests kept are bounded like the entries.
    @Test func includedFilesDigestsAreKeptAndBounded() {
        let cache = HeaderCache()
        var computed = 0
        func digest(_ text: String) -> [UInt8] {
            cache.digest(of: Array(text.utf8)) { bytes in
                computed += 1
                return SHA256Digest.hash(bytes)
            }
        }
        #expect(digest(Self.header) == SHA256Digest.hash(Array(Self.header.utf8)))
        #expect(digest(Self.header) == SHA256Digest.hash(Array(Self.header.utf8)) && computed == 1)
        #expect(digest(Self.header + " ") == SHA256Digest.hash(Array((Self.header + " ").utf8)) && computed == 2)
        for index in 0..<HeaderCache.maxEntries { _ = digest("// \(index)") }
        #expect(computed == 2 + HeaderCache.maxEntries)
        _ = digest(Self.header)   // pushed out by the newer ones
        #expect(computed == 3 + HeaderCache.maxEntries)
        // A compile's provenance takes the kept digest: the library is the uncached one's.
        let files = Self.files(main: Self.main(""), header: Self.header)
        #expect(Self.compile(files, cache: cache) == Self.compile(files, cache: nil))
        #expect(Self.compile(files, cache: cache).library?.sources.map(\.sha256) == files.map { SHA256Digest.hash($0.bytes) })
    }

    /// A snapshot holds every stored property of the checker but the request's and the
    /// per-function ones: a property added to `Checker` must be added to `Snapshot`.
    @Test func aSnapshotHoldsTheWholeChecker() {
        let checker = Checker(files: [], limits: .default)
        let properties = Set(Mirror(reflecting: checker).children.compactMap(\.label))
        let snapshot = Set(Mirror(reflecting: checker.snapshot()).children.compactMap(\.label))
        #expect(properties == snapshot.union(Checker.Snapshot.notCaptured))
    }
}
