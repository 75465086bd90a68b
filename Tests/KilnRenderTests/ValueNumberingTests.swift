import Foundation
import KilnBytecode
import KilnCompiler
import KilnRender
import KilnTestSupport
import Testing

/// A value computed twice in one block from the same registers is computed once
/// (`ValueNumbering`, `CompileOptions.numbersValues`). That changes neither a picture nor
/// what the pixel debugger shows, and it must take value noise's repeated hash terms.
@Suite struct ValueNumberingTests {
    static let files = ["bench/fbm.metal", "bench/raymarch.metal", "shaders/art_starfield.metal",
                        "shaders/art_kaleidoscope.metal", "shaders/art_ink.metal", "shaders/art_torus.metal"]

    static func libraries(source text: String, name: String) throws -> (numbered: Library, plain: Library) {
        var options = CompileOptions()
        options.numbersValues = false
        return (try compile(text, name: name), try compile(text, name: name, options: options))
    }

    static func libraries(_ file: String) throws -> (numbered: Library, plain: Library) {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent(file), encoding: .utf8)
        return try libraries(source: text, name: (file as NSString).lastPathComponent)
    }

    static func bodyCount(_ library: Library) -> Int { library.functions[0].body.count }

    @Test(arguments: files) func picturesAndDebuggerAreUnchanged(_ file: String) throws {
        let (numbered, plain) = try Self.libraries(file)
        #expect(Self.bodyCount(numbered) < Self.bodyCount(plain), "\(file): nothing was reused")
        let frame = try Renderer.render(CopyPropagationTests.request(numbered))
        #expect(frame.bytes == (try Renderer.render(CopyPropagationTests.request(plain))).bytes, "\(file)")
        for (x, y) in [(5, 7), (40, 33)] {
            let report = try PixelDebugger.debug(CopyPropagationTests.request(numbered), x: x, y: y)
            let plainReport = try PixelDebugger.debug(CopyPropagationTests.request(plain), x: x, y: y)
            #expect(report.executed <= plainReport.executed)
            #expect(try CopyPropagationTests.withoutCounts(report) == CopyPropagationTests.withoutCounts(plainReport),
                    "\(file) at (\(x), \(y))")
        }
    }

    /// Equal expressions that are not equal values: an operand reassigned in between, a
    /// variable an `if` arm changes (read after the join), a dynamically indexed array
    /// stored into between two reads of it, a loop's carried value, a sampled texel, and a
    /// product an arm computes that the code after the join computes again (the arm is
    /// jumped over in batches where no lane takes it).
    @Test func recomputationsOfChangedOperandsStay() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 again(float2 position, SwiftUI::Layer layer, float time) {
            float x = position.x * 0.01;
            float a = x * 3.0 + 1.0;
            x = x + time;
            float b = x * 3.0 + 1.0;                   // x changed: another value
            float arr[4] = {a, b, a * b, 0.5};
            int k = int(position.y) & 3;
            float before = arr[k] * 2.0 + arr[(k + 1) & 3];
            arr[(k + 1) & 3] = before + 1.0;           // a store into the array between equal reads
            float after = arr[k] * 2.0 + arr[(k + 1) & 3];
            if (position.x > 20.0) { x = x * 0.5 + a * 7.0; }   // jumped over where no lane takes it
            float c = x * 3.0 + 1.0 + a * 7.0;         // after the join: x may have changed, a * 7 not computed
            float s = 0.0, t = position.y * 0.03;
            for (int i = 0; i < int(position.x) % 5; i++) {       // a masked loop: t has one home
                s += t * 1.5; t = t + 0.25; s += t * 1.5;         // the same text, another t
            }
            half4 p = layer.sample(position * 0.7);
            half4 q = layer.sample(position * 0.7 + float2(b, 0));
            return half4(fract(a + s), fract(b + after), fract(before + c), float(p.x + q.y) * 0.5);
        }
        """
        let (numbered, plain) = try Self.libraries(source: source, name: "again.metal")
        let frame = try Renderer.render(CopyPropagationTests.request(numbered))
        #expect(!frame.isConstant)
        #expect(frame.bytes == (try Renderer.render(CopyPropagationTests.request(plain))).bytes)
    }

    /// Value noise hashes `i`, `i + (1, 0)`, `i + (0, 1)` and `i + (1, 1)`: `i.x + 1`,
    /// `i.y + 1` and their products with the hash's constants are each computed twice. fbm
    /// evaluates noise 18 times (three fbm calls, six octaves): four instructions each.
    @Test func noiseComputesEachHashTermOnce() throws {
        let (numbered, plain) = try Self.libraries("bench/fbm.metal")
        #expect(Self.bodyCount(numbered) <= Self.bodyCount(plain) - 4 * 18,
                "\(Self.bodyCount(numbered)) instructions, \(Self.bodyCount(plain)) without value numbering")
    }
}
