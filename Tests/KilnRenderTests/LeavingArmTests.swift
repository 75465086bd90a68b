import Foundation
import KilnBytecode
import KilnCompiler
import KilnRender
import KilnTestSupport
import Testing

/// Masked loops with less per-iteration control. An `if` arm that every lane leaves (`if (escaped) break;`) adds no lane to the join, so
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

    /// A `for` counter that only the step assigns stays uniform in a masked loop: the march
    /// of bench/raymarch compares and increments `i` once per batch (both instructions
    /// uniform) and writes it without a `sel`. A counter the body assigns, or one read after
    /// the loop (art_julia's `i`, declared before its `for`), stays per lane.
    @Test func aForCounterOfAMaskedLoopStaysUniform() throws {
        func loop(_ file: String) throws -> (instructions: ArraySlice<Instruction>, uniform: ArraySlice<Bool>) {
            let text = try String(contentsOf: Paths.repository.appendingPathComponent(file), encoding: .utf8)
            let library = try compile(text, name: (file as NSString).lastPathComponent)
            let function = try #require(library.functions.first)
            let body = Array(library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)])
            let uniform = UniformityAnalysis(library: library, function: function).uniform
            let back = try #require(body.firstIndex { $0.opcode == .jany })
            let head = Int(body[back].imm) - Int(function.body.lowerBound)
            return (body[head...back], uniform[head...back])
        }
        let march = try loop("bench/raymarch.metal")
        for (instruction, uniform) in zip(march.instructions, march.uniform) where [.ilt, .iadd].contains(instruction.opcode) {
            #expect(uniform, "\(instruction.opcode) of the counter")
        }
        #expect(march.instructions.filter { $0.opcode == .iadd }.count == 1)
        let julia = try loop("shaders/art_julia.metal")
        let increments = zip(julia.instructions, julia.uniform).filter { $0.0.opcode == .iadd }
        #expect(increments.count == 1 && increments.allSatisfy { !$0.1 })
    }

    /// The same picture as keeping the counter per lane: a loop inside a divergent `if`,
    /// with `continue` and `break`, its counter read in the body, against the loop written
    /// with its counter declared outside (which keeps it per lane).
    @Test func aUniformCounterRendersWhatAPerLaneOneRenders() throws {
        func source(_ counter: String, _ loop: String) -> String {
            """
            #include <metal_stdlib>
            using namespace metal;
            [[ stitchable ]] half4 escape(float2 position, half4 color, float time) {
                float acc = 0.0, x = position.x * 0.013, y = position.y * 0.021;
                \(counter)
                if (fract(x * 3.0) > 0.3) {
                    for (\(loop); i < 30; i += 2) {
                        if (fract(float(i) * 0.37 + y) > 0.8) continue;
                        acc += sin(x * float(i) + time) * 0.1;
                        if (acc > 0.6 + 0.3 * y) break;
                    }
                }
                return half4(half(fract(acc)), half(fract(acc * 7.0)), half(x), 1);
            }
            """
        }
        let scoped = try compile(source("", "int i = 0"), name: "scoped.metal")
        let outside = try compile(source("int i = 0;", "i = 0"), name: "outside.metal")
        let frame = try Renderer.render(Self.request(scoped)), other = try Renderer.render(Self.request(outside))
        #expect(!frame.isConstant)
        #expect(frame.bytes == other.bytes, "\(ImageDifference(frame, other).maxAbs) levels apart")
        for (x, y) in [(12, 30), (61, 44), (90, 80)] {
            let report = try PixelDebugger.debug(Self.request(scoped), x: x, y: y)
            let offset = (y * frame.width + x) * 4
            #expect(report.pixel == Array(frame.bytes[offset..<offset + 4]))
        }
    }
}
