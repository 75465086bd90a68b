import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnTestSupport
import Testing

/// The server's quick compile tier (docs/server.md, "Two compile tiers") compiles an edit
/// without unrolling and, when `CompileResult.loopsLeftForUnrolling` is 0, answers with that
/// library as the edit's own. That is only right if such a library is the one a compile
/// with unrolling makes, bit for bit — checked over the whole corpus — and the count must
/// not be 0 where unrolling changes the library.
@Suite struct QuickCompileTests {
    static let quick: CompileOptions = {
        var options = CompileOptions()
        options.unrollsLoops = false
        return options
    }()

    @Test(arguments: ShaderCorpusTests.corpus) func aQuickLibraryWithNothingLeftToUnrollIsTheFullOne(_ path: String) throws {
        let files = [SourceFile(name: (path as NSString).lastPathComponent, text: RepositoryFiles.text(path))]
        let full = Compiler.compile(files)
        let quick = Compiler.compile(files, options: Self.quick)
        #expect(full.loopsLeftForUnrolling == 0)
        let (fullLibrary, quickLibrary) = (try #require(full.library), try #require(quick.library))
        let same = fullLibrary == quickLibrary      // a Bool: the libraries themselves print as pages
        #expect(same || quick.loopsLeftForUnrolling > 0, "\(path): nothing left to unroll, yet the libraries differ")
    }

    /// A typo stops the front end before any loop is lowered: the quick compile's
    /// diagnostics are the full compile's, so the server answers with them at once.
    @Test func aFailingEditIsFinalWhenNoLoopWasLeft() throws {
        let source = RepositoryFiles.text("bench/raymarch.metal").replacingOccurrences(of: "return d;", with: "return dd;")
        let files = [SourceFile(name: "raymarch.metal", text: source)]
        let (full, quick) = (Compiler.compile(files), Compiler.compile(files, options: Self.quick))
        #expect(full.library == nil && quick.library == nil)
        #expect(quick.loopsLeftForUnrolling == 0)
        #expect(quick.diagnostics.map(\.message) == full.diagnostics.map(\.message))
        #expect(!quick.diagnostics.isEmpty)
    }

    @Test func loopsAreCountedOnlyWhereUnrollingWouldTry() throws {
        func left(_ body: String) -> Int {
            let source = """
            [[ stitchable ]] half4 f(float2 position, float time) {
                float acc = position.x;
                \(body)
                return half4(acc);
            }
            """
            return Compiler.compile([SourceFile(name: "f.metal", text: source)], options: Self.quick).loopsLeftForUnrolling
        }
        #expect(left("acc = sin(acc);") == 0)
        #expect(left("for (int i = 0; i < 4; i++) acc += float(i);") == 1)
        // A body that can leave early is never unrolled.
        #expect(left("for (int i = 0; i < 4; i++) { if (acc > 1.0) break; acc += 0.5; }") == 0)
        #expect(left("for (int i = 0; i < 4; i++) for (int j = 0; j < 2; j++) acc += 0.25;") >= 1)
        // 32 trips, over `maxUnrolledIterations`: the full compile keeps it a loop too.
        #expect(left("for (int i = 0; i < 32; i++) acc += 0.25;") == 0)
        #expect(left("for (int i = 0; i < 16; i++) acc += 0.25;") == 1)
        // A bound not known now: unrolling would try.
        #expect(left("for (int i = 0; i < int(time); i++) acc += 0.25;") == 1)
    }
}
