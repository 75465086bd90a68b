import Foundation
import KilnBytecode
import KilnRender
import KilnVM
import Testing

/// Draws that share a `PreparedFunctionCache` prepare each function once and render the
/// bytes a draw preparing its own gives; a cache never serves a library it was not made for.
@Suite struct PreparedFunctionCacheTests {
    static let source = """
    #include <metal_stdlib>
    using namespace metal;
    [[ stitchable ]] half4 rings(float2 position, float time) {
        float d = length(position - 8.0);
        float v = 0.5 + 0.5 * sin(d * 1.7 - time * 3.0);
        for (int i = 0; i < 3; i++) { v = fract(v * 1.9 + 0.1); }
        return half4(v, v * v, 1.0 - v, 1.0);
    }
    [[ stitchable ]] half4 flat(float2 position) { return half4(0.25, 0.5, 0.75, 1.0); }
    """

    @Test func framesOfOneLibraryShareOnePreparation() throws {
        let library = try compile(Self.source)
        let cache = PreparedFunctionCache(library: library)
        for time: Float in [0, 0.5, 1.25] {
            var alone = RenderRequest(library: library, functionName: "rings", width: 16, height: 16, time: time)
            var shared = alone
            shared.preparedFunctions = cache
            #expect(try Renderer.render(shared).bytes == Renderer.render(alone).bytes)
            alone.sampleStride = 4
            shared.sampleStride = 4
            #expect(try Renderer.render(shared).bytes == Renderer.render(alone).bytes)
        }
        #expect(cache.count == 1)
        // Each setting is its own preparation, and asking again returns the kept one.
        let first = cache.prepared(functionIndex: 0, uniformExecution: true, pairFusion: true)
        #expect(first === cache.prepared(functionIndex: 0, uniformExecution: true, pairFusion: true))
        #expect(first !== cache.prepared(functionIndex: 0, uniformExecution: false, pairFusion: true))
        #expect(cache.prepared(functionIndex: 1, uniformExecution: true, pairFusion: true).function.name == "flat")
        #expect(cache.count == 3)
    }

    @Test func aCacheOfAnotherLibraryIsNotUsed() throws {
        let library = try compile(Self.source)
        let other = try compile(Self.source.replacingOccurrences(of: "1.7", with: "2.3"))
        let cache = PreparedFunctionCache(library: other)
        var request = RenderRequest(library: library, functionName: "rings", width: 16, height: 16, time: 0.5)
        let alone = try Renderer.render(request)
        request.preparedFunctions = cache
        #expect(try Renderer.render(request).bytes == alone.bytes)
        #expect(cache.count == 0)
    }

    /// Workers of concurrent draws asking for the same function get one preparation.
    @Test func concurrentRequestsKeepOneEntry() throws {
        let library = try compile(Self.source)
        let cache = PreparedFunctionCache(library: library)
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var identities = Set<ObjectIdentifier>()
        }
        let seen = Seen()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let prepared = cache.prepared(functionIndex: 0, uniformExecution: true, pairFusion: true)
            seen.lock.withLock { _ = seen.identities.insert(ObjectIdentifier(prepared)) }
        }
        #expect(cache.count == 1)
        #expect(seen.identities.count == 1)
    }
}
