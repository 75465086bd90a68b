import Foundation
import KilnBytecode
import KilnCompiler
import KilnRender
import KilnTestSupport
import Testing

/// Reads of a copy read the original where it still holds the same bits, and the copy goes
/// (`CopyPropagator`, `CompileOptions.propagatesCopies`). That must change neither a
/// picture nor what the pixel debugger shows — it renames the debugger's bindings of a
/// helper's parameters from the copy to the argument — and it must remove the copies of
/// art_julia's escape loop.
@Suite struct CopyPropagationTests {
    static let files = ["shaders/art_julia.metal", "shaders/art_torus.metal", "shaders/art_voronoi.metal",
                        "bench/raymarch.metal", "bench/swirl.metal"]

    static func libraries(_ file: String) throws -> (propagated: Library, kept: Library) {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent(file), encoding: .utf8)
        var options = CompileOptions()
        options.propagatesCopies = false
        let name = (file as NSString).lastPathComponent
        return (try compile(text, name: name), try compile(text, name: name, options: options))
    }

    static func request(_ library: Library) -> RenderRequest {
        RenderRequest(library: library, functionName: library.functions[0].name, width: 48, height: 40,
                      content: BuiltinContent.make("rainbow", width: 48, height: 40), time: 1.3, threads: 2)
    }

    /// The report as JSON without the instruction counts (fewer instructions is the point).
    static func withoutCounts(_ report: PixelDebugReport) throws -> NSObject {
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                return object.filter { $0.key != "executed" && $0.key != "instructions" }.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report))
        return strip(json) as! NSObject
    }

    @Test(arguments: files) func picturesAndDebuggerAreUnchanged(_ file: String) throws {
        let (propagated, kept) = try Self.libraries(file)
        let frame = try Renderer.render(Self.request(propagated)), keptFrame = try Renderer.render(Self.request(kept))
        #expect(frame.bytes == keptFrame.bytes, "\(file)")
        for (x, y) in [(5, 7), (24, 20), (40, 33), (17, 29)] {
            let report = try PixelDebugger.debug(Self.request(propagated), x: x, y: y)
            let keptReport = try PixelDebugger.debug(Self.request(kept), x: x, y: y)
            #expect(report.executed <= keptReport.executed)
            #expect(try Self.withoutCounts(report) == Self.withoutCounts(keptReport), "\(file) at (\(x), \(y))")
        }
    }

    /// Copies read after their original changes must stay copies: a swap, the old value
    /// kept across an update, a parameter the helper overwrites, a copy read by a masked write.
    @Test func copiesReadAfterTheOriginalChangesStay() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        static float2 bounce(float2 p) { float2 q = p; p = p * 1.7 + 0.2; return q - p * 0.3; }
        [[ stitchable ]] half4 tricky(float2 position, half4 color, float time) {
            float a = position.x * 0.01, b = position.y * 0.02, acc = 0;
            float2 z = position * 0.005;
            for (int i = 0; i < int(time * 9.0); i++) {
                float t = a; a = b; b = t + 0.01;            // swap: t is read after a is written
                float2 old = z; z = z * 1.1 + 0.05; acc += old.x - z.y;
                z = bounce(z);
                if (acc > 0.5) { float keep = b; b = a * 0.9; a = keep; }
            }
            return half4(fract(a), fract(b), fract(acc + z.x), 1);
        }
        """
        var options = CompileOptions()
        options.propagatesCopies = false
        let propagated = try compile(source, name: "tricky.metal"), kept = try compile(source, name: "tricky.metal", options: options)
        let frame = try Renderer.render(Self.request(propagated))
        #expect(!frame.isConstant)
        #expect(frame.bytes == (try Renderer.render(Self.request(kept))).bytes)
        for (x, y) in [(3, 4), (30, 21), (44, 38)] {
            let report = try PixelDebugger.debug(Self.request(propagated), x: x, y: y)
            #expect(try Self.withoutCounts(report) == Self.withoutCounts(try PixelDebugger.debug(Self.request(kept), x: x, y: y)))
        }
    }

    /// `z = complexSquare(z) + c` copied both components of `z` for the helper's parameter
    /// and `i++` copied the counter: three moves an iteration, read only before `z` and `i`
    /// are written.
    @Test func juliasLoopLosesItsCopies() throws {
        let (propagated, kept) = try Self.libraries("shaders/art_julia.metal")
        func moves(_ library: Library) -> Int {
            let body = library.functions[0].body
            return library.code[Int(body.lowerBound)..<Int(body.upperBound)].filter { $0.opcode == .mov }.count
        }
        #expect(moves(propagated) <= moves(kept) - 3, "\(moves(propagated)) moves, \(moves(kept)) without propagation")
    }
}
