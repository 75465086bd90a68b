import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing

/// Inputs `make fuzz-long` (KilnFuzz) found, each pinned down where it failed. The fuzz
/// target's property: whatever compiles survives the verifier (LibraryReader.decode).
@Suite struct FuzzFindingTests {
    /// Compiles `source` and returns its errors; a library it makes must decode.
    func errors(_ source: String) throws -> [String] {
        let result = Compiler.compile([SourceFile(name: "finding.metal", text: source)])
        if let library = result.library {
            _ = try LibraryReader.decode(LibraryWriter.encode(library))
        }
        return result.diagnostics.filter { $0.severity == .error }.map(\.message)
    }

    static let vertexWith = { (parameter: String) in """
        #include <metal_stdlib>
        using namespace metal;
        struct Vertex { float4 position; };
        vertex float4 v(uint id [[vertex_id]], \(parameter)) { return vertices[id].position; }
        """ }

    /// 2026-11-26, after ~660,000 inputs: the triangle example with its buffer parameter
    /// spelled `thread Vertex *vertices`. The checker let a `thread` pointer stand for a
    /// bound buffer; the pointer pointed at no elements and indexing it made an `ldk` of
    /// zero elements, which the verifier refuses ("constant array length 0").
    @Test(arguments: ["thread Vertex *vertices [[buffer(0)]]", "thread Vertex *vertices"])
    func aThreadPointerIsNoBuffer(_ parameter: String) throws {
        let found = try errors(Self.vertexWith(parameter))
        #expect(found.count == 1 && found[0].contains("'constant'") && found[0].contains("'device'"), "\(found)")
    }

    @Test func constantAndDevicePointersStillAre() throws {
        #expect(try errors(Self.vertexWith("constant Vertex *vertices [[buffer(0)]]")).isEmpty)
        #expect(try errors(Self.vertexWith("device const Vertex *vertices")).isEmpty)
    }
}
