import Foundation
import KilnBytecode
import KilnRender
import KilnTestSupport
import Testing

/// The cost heatmap counts, per pixel, the instructions its lane executed while active.
/// Worked out by hand from the disassembly (`kiln disasm`) of small shaders; the same on
/// every run and for any thread count.
@Suite struct CostHeatmapTests {
    static func heatmap(_ source: String, _ function: String, width: Int = 16, height: Int = 8, threads: Int = 1,
                        time: Float = 0) throws -> CostHeatmap {
        let library = try compile(source, name: "cost.metal")
        return try Renderer.heatmap(RenderRequest(library: library, functionName: function, width: width, height: height,
                                                  time: time, threads: threads))
    }

    static let loop = """
        [[ stitchable ]] half4 counted(float2 position) {
            float s = 0.0;
            int n = int(position.x) & 3;
            for (int i = 0; i < n; i++) {
                s += 0.25;
            }
            return half4(s, 0.0, 0.0, 1.0);
        }
        """

    /// Line 3: ftoi, and (2). Line 4 before the loop: three moves and the first test
    /// (ilt, and, jnone) (6). Each iteration the lane is in: the body's fadd, sel (2), the
    /// step's jany (1: `i` is the `for`'s own counter, so `i++` is one uniform `iadd` run
    /// once per batch, not a lane's cost — `maskedLoop`) and the next test (3) (6). Line 7:
    /// four moves and ret (5). So 13 + 6n — and a lane that left the loop is not charged for
    /// the iterations its neighbours still run.
    @Test func aMaskedLoopCostsWhatEachLaneRan() throws {
        let map = try Self.heatmap(Self.loop, "counted")
        for y in 0..<8 {
            for x in 0..<16 {
                #expect(map.counts[y * 16 + x] == UInt32(13 + 6 * (x % 4)), "pixel (\(x), \(y))")
            }
        }
        // Per line, over the 128 pixels (Σn = 24 per row of 16).
        let lines = Dictionary(uniqueKeysWithValues: map.lines.map { ($0.line, $0.lanes) })
        #expect(lines == [3: 2 * 128, 4: 6 * 128 + 4 * 8 * 24, 5: 2 * 8 * 24, 7: 5 * 128])
        #expect(map.total == 2816 && map.maximum == 31 && map.unknownMasks == 0)
        #expect(try Self.heatmap(Self.loop, "counted", threads: 2).counts == map.counts)
    }

    /// After an inlined helper returns, the rest of the caller's statement (the `+` of
    /// `bump(x) + y`) is the caller's line, not the helper's `return`: lines come from each
    /// instruction's source location (body: fmul on line 2, fadd on line 5, three moves and
    /// `ret` on line 6). Before, the fadd went to line 2, where the last statement event was.
    @Test func workAfterAnInlinedCallIsTheCallersLine() throws {
        let source = """
            float bump(float x) {
                return x * x;
            }
            [[ stitchable ]] half4 called(float2 position) {
                float v = bump(position.x) + position.y;
                return half4(v, 0.0, 0.0, 1.0);
            }
            """
        let map = try Self.heatmap(source, "called")
        let lines = Dictionary(uniqueKeysWithValues: map.lines.map { ($0.line, $0.lanes) })
        #expect(lines == [2: 128, 5: 128, 6: 4 * 128])
        let shares: [Double] = map.shares().map(\.share)
        let expected: [Double] = [1.0 / 6, 1.0 / 6, 4.0 / 6]
        #expect(shares == expected)
    }

    static let branch = """
        [[ stitchable ]] half4 branchy(float2 position) {
            float v = position.x;
            if (position.x < 4.0) {
                v = v * 2.0 + 1.0;
            }
            return half4(v, 0.0, 0.0, 1.0);
        }
        """

    /// Columns 0-3 take the branch, 4-7 share their batch without taking it, 8-15 are a
    /// batch where no lane takes it (the arm is jumped over): the lanes that do not take it
    /// cost the same whether or not their neighbours do.
    @Test func lanesOutsideABranchAreNotCharged() throws {
        let map = try Self.heatmap(Self.branch, "branchy")
        let taken = map.counts[0], skipped = map.counts[5], alone = map.counts[12]
        #expect(skipped == alone)
        let arm = try #require(map.lines.first { $0.line == 4 })
        #expect(arm.lanes == Int(taken - skipped) * 4 * 8)
        #expect(taken > skipped)
        for y in 0..<8 {
            for x in 0..<16 { #expect(map.counts[y * 16 + x] == (x < 4 ? taken : skipped)) }
        }
    }

    /// Shader art's uniform work (the sphere tracer's per-shape constants) is counted once
    /// per batch, apart from the lanes' work, the same for every pixel of a batch.
    @Test func uniformWorkIsCountedOncePerBatch() throws {
        let source = try String(contentsOf: Paths.repository.appendingPathComponent("bench/raymarch.metal"), encoding: .utf8)
        let library = try compile(source, name: "raymarch.metal", options: .loopsKept)
        let request = RenderRequest(library: library, functionName: "raymarch", width: 24, height: 16,
                                    content: BuiltinContent.make("photo", width: 24, height: 16), time: 1, threads: 2)
        let map = try Renderer.heatmap(request)
        #expect(map.uniform.contains { $0 > 0 })
        for y in 0..<16 {
            for x in 0..<24 { #expect(map.uniform[y * 24 + x] == map.uniform[(y / 8 * 8) * 24 + x / 8 * 8]) }
        }
        #expect(map.lines.contains { $0.uniform > 0 })
        #expect(map.unknownMasks == 0)
        let again = try Renderer.heatmap(request)
        #expect(again.counts == map.counts && again.lines == map.lines)
    }

    @Test func theImageIsAColourScale() throws {
        let map = try Self.heatmap(Self.loop, "counted")
        let image = map.image()
        #expect(image.width == 16 && image.height == 8)
        // The cheapest pixel is darkest, the dearest white.
        let cheapest = Array(image.bytes[0..<4]), dearest = Array(image.bytes[12..<16])
        #expect(dearest == [255, 255, 255, 255])
        let expected = CostHeatmap.colour(Double(map.counts[0]) / Double(map.maximum))   // 13 of 31
        #expect(cheapest == [expected.0, expected.1, expected.2, 255])
        #expect(Int(cheapest[0]) + Int(cheapest[1]) + Int(cheapest[2]) < 3 * 128)
        #expect(CostHeatmap.colour(0) == (0, 0, 0))
    }

    @Test func triangleDrawsAreRefusedClearly() throws {
        let library = try compile("""
            struct V { float4 p [[position]]; };
            vertex V v(uint id [[vertex_id]]) { V o; o.p = float4(0, 0, 0, 1); return o; }
            fragment half4 f(V in [[stage_in]]) { return half4(1); }
            """, name: "tri.metal")
        #expect(throws: RenderError.self) {
            _ = try Renderer.heatmap(RenderRequest(library: library, functionName: "v", width: 8, height: 8))
        }
    }
}
