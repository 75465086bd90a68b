import Foundation
import KilnBytecode
import KilnCompiler
import KilnRender
import KilnTestSupport
import Testing

/// A loop's invariant computations run once, before the loop (`LoopInvariantHoisting`,
/// `CompileOptions.hoistsInvariants`). That changes neither a picture nor what the pixel
/// debugger shows, and it must take the invariants shader art writes inside its loops.
@Suite struct LoopInvariantHoistingTests {
    static let files = ["shaders/blur.metal", "shaders/art_rings.metal", "shaders/art_starfield.metal", "shaders/art_torus.metal",
                        "shaders/art_voronoi.metal", "shaders/art_julia.metal", "bench/raymarch.metal",
                        "bench/sdf2d.metal", "bench/fbm.metal", "bench/swirl.metal"]

    static func libraries(source text: String, name: String) throws -> (hoisted: Library, plain: Library) {
        var options = CompileOptions()
        options.hoistsInvariants = false
        return (try compile(text, name: name), try compile(text, name: name, options: options))
    }

    /// Instructions the batch of pixel (x, y) executed, and the report without counts.
    static func trace(_ library: Library, _ x: Int, _ y: Int) throws -> (executed: Int, report: NSObject) {
        let report = try PixelDebugger.debug(CopyPropagationTests.request(library), x: x, y: y)
        return (report.executed, try CopyPropagationTests.withoutCounts(report))
    }

    static func expectSameResults(_ hoisted: Library, _ plain: Library, _ what: String) throws {
        let frame = try Renderer.render(CopyPropagationTests.request(hoisted))
        #expect(!frame.isConstant, "\(what)")
        #expect(frame.bytes == (try Renderer.render(CopyPropagationTests.request(plain))).bytes, "\(what)")
        for (x, y) in [(5, 7), (40, 33)] {
            let (executed, report) = try trace(hoisted, x, y)
            let (plainExecuted, plainReport) = try trace(plain, x, y)
            #expect(executed <= plainExecuted, "\(what) at (\(x), \(y))")
            #expect(report == plainReport, "\(what) at (\(x), \(y))")
        }
    }

    @Test(arguments: files) func picturesAndDebuggerAreUnchanged(_ file: String) throws {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent(file), encoding: .utf8)
        let (hoisted, plain) = try Self.libraries(source: text, name: (file as NSString).lastPathComponent)
        try Self.expectSameResults(hoisted, plain, file)
    }

    /// The palette tutorial's loop: `exp(-length(uv0))` depends on the pixel, not on the
    /// loop, and was computed on every one of the twenty iterations.
    @Test func theTutorialLoopComputesItsInvariantOnce() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 rings(float2 position, half4 color, float2 size, float time) {
            float2 uv = (position * 2.0 - size) / size.y;
            float2 uv0 = uv;
            float3 finalColor = float3(0.0);
            for (int i = 0; i < 20; i++) {
                uv = fract(uv * 1.5) - 0.5;
                float d = length(uv) * exp(-length(uv0));
                d = sin(d * 8.0 + time) / 8.0;
                finalColor += abs(d) * float3(1, 0.5, 0.2);
            }
            return half4(half3(finalColor), 1.0);
        }
        """
        let (hoisted, plain) = try Self.libraries(source: source, name: "rings.metal")
        try Self.expectSameResults(hoisted, plain, "rings")
        // length(uv0) and exp of its negation: five instructions, nineteen iterations fewer.
        let (executed, _) = try Self.trace(hoisted, 5, 7)
        let (plainExecuted, _) = try Self.trace(plain, 5, 7)
        #expect(executed <= plainExecuted - 5 * 19, "\(executed) executed, \(plainExecuted) without hoisting")
    }

    /// What must stay in the loop: a value the loop changes (directly, through a variable an
    /// `if` arm assigns, through a dynamically indexed array it stores into), a value read
    /// before its write on a later pass of an outer loop, a write of a variable that holds
    /// another value when the loop runs no pass, and anything in a loop entered by a jump
    /// (`continue`, `break` out of nested loops, a `while` whose condition varies).
    @Test func valuesTheLoopChangesStay() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 stays(float2 position, SwiftUI::Layer layer, float time) {
            float x = position.x * 0.01, y = position.y * 0.02;
            float arr[4] = {x, y, x * y, 0.5};
            float s = 0.0;
            for (int i = 0; i < int(position.x) % 7 + 17; i++) {
                s += sqrt(x * x + y * y) + arr[i & 3] * 0.5;          // invariant, then a stored array
                if (s > 3.0 + x) { y = y * 0.5 + 0.01; }              // y changes in an arm
                arr[(i + 1) & 3] = s * 0.25 + x;
                if (fract(s) > 0.9) continue;
                for (int j = 0; j < 19; j++) {
                    s += exp(-x) * 0.01 + y * 0.001;                  // invariant in both, then in the inner one
                    if (s > 40.0 + y) break;
                }
            }
            float t = 0.0, u = position.y * 0.1;
            while (t < 5.0 + x) { t += 0.3 + sin(u) * 0.1; u += 0.01; }
            half4 p = layer.sample(position * 0.7);
            float py = position.y;
            for (int k = 0; k < int(position.x) % 3; k++) { position.y = position.x * 2.0; }   // may run no pass
            return half4(fract(s), fract(t + arr[int(py) & 3]), fract(y + position.y * 0.01), float(p.x) * 0.5 + 0.25);
        }
        """
        let (hoisted, plain) = try Self.libraries(source: source, name: "stays.metal")
        try Self.expectSameResults(hoisted, plain, "stays")
    }
}
