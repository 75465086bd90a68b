import Foundation
import KilnBytecode
import KilnCompiler
import KilnRender
import KilnTestSupport
import Testing

/// An `if` arm that every lane leaves (`if (escaped) break;`) adds no lane to the join, so
/// the mask after the `if` is the other arm's: no write-back of an empty mask, no `or`,
/// and an arm left with no code loses its `jnone` too (`FunctionLowerer.branch`,
/// `DeadCodeEliminator.removeJumpsToNext`). The pictures must be what the same loops give
/// written without `break`.
@Suite struct LeavingArmTests {
    static let escape = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 escape(float2 position, half4 color, float time) {
            float2 z = position * 0.02 - 1.0, c = float2(-0.7, 0.3 + 0.01 * time);
            int i = 0;
            for (; i < 40; i++) {
                z = float2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
                if (dot(z, z) > 4.0) break;
                if (z.x > 1.5) { z *= 0.5; break; }
            }
            return half4(half(float(i) / 40.0), half(fract(z.x)), half(fract(z.y)), 1);
        }
        """
    /// The same loop with the exits as a flag: every lane runs all 40 iterations.
    static let flagged = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 escape(float2 position, half4 color, float time) {
            float2 z = position * 0.02 - 1.0, c = float2(-0.7, 0.3 + 0.01 * time);
            int i = 0;
            bool done = false;
            for (int k = 0; k < 40; k++) {
                if (!done) {
                    z = float2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
                    if (dot(z, z) > 4.0) { done = true; }
                    else if (z.x > 1.5) { z *= 0.5; done = true; }
                    else { i++; }
                }
            }
            return half4(half(float(i) / 40.0), half(fract(z.x)), half(fract(z.y)), 1);
        }
        """

    static func request(_ library: Library) -> RenderRequest {
        RenderRequest(library: library, functionName: "escape", width: 100, height: 90,
                      content: BuiltinContent.make("rainbow", width: 100, height: 90), time: 2, threads: 2)
    }

    @Test func exitsRenderWhatAFlagRenders() throws {
        let frame = try Renderer.render(Self.request(try compile(Self.escape, name: "escape.metal")))
        let flagged = try Renderer.render(Self.request(try compile(Self.flagged, name: "flagged.metal")))
        #expect(!frame.isConstant)
        #expect(frame.bytes == flagged.bytes, "\(ImageDifference(frame, flagged).maxAbs) levels apart")
    }

    /// The loop keeps one `jnone` (its head's test), the arm with code (`z *= 0.5`) its own;
    /// the bare `break` none, and no mask is or-ed together.
    @Test func anArmThatLeavesCostsNoJoin() throws {
        let library = try compile(Self.escape, name: "escape.metal")
        let function = try #require(library.functions.first)
        let body = Array(library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)])
        let back = try #require(body.lastIndex { $0.opcode == .jany })
        let head = Int(body[back].imm) - Int(function.body.lowerBound)
        let loop = body[head...back]
        #expect(loop.filter { $0.opcode == .or }.isEmpty)
        #expect(loop.filter { $0.opcode == .jnone }.count == 2)
    }
}
