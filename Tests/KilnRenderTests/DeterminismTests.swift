import Foundation
import KilnRender
import KilnVM
import Testing

/// A frame's bytes do not depend on how it is split among threads: batches always start
/// at x = 0 of a row, each worker has its own executor, and every pixel is written once.
@Suite struct DeterminismTests {
    /// Escape-time iteration: neighbouring lanes leave the loop at very different counts, so
    /// the batches diverge heavily.
    static let divergent = """
    #include <metal_stdlib>
    using namespace metal;
    /// @arg zoom 0.5...4 = 1.3 "scale"
    [[ stitchable ]] half4 escape(float2 position, float2 size, float zoom) {
        float2 c = (position / size - float2(0.7, 0.5)) * 3.0 / zoom;
        float2 z = float2(0);
        int i = 0;
        for (; i < 200; i++) {
            if (dot(z, z) > 4.0) {
                break;
            }
            z = float2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        }
        float t = float(i) / 200.0;
        return half4(t, sqrt(t), fract(t * 7.0), 1.0);
    }
    """

    static let fragment = """
    #include <metal_stdlib>
    using namespace metal;
    struct Varyings {
        float4 position [[position]];
        float2 uv;
    };
    fragment float4 swirlPass(Varyings in [[stage_in]], texture2d<float> image [[texture(0)]],
                              constant float &t [[buffer(0)]]) {
        constexpr sampler s(filter::linear, address::clamp_to_edge);
        float2 p = in.uv - 0.5;
        float angle = t * (0.5 - length(p)) * 6.0;
        float2 q = float2(p.x * cos(angle) - p.y * sin(angle), p.x * sin(angle) + p.y * cos(angle));
        if (length(p) > 0.48) {
            discard_fragment();
        }
        return image.sample(s, q + 0.5) * 0.9;
    }
    """

    struct Variant: CustomTestStringConvertible {
        var threads: Int
        var rowsPerBand: Int
        var testDescription: String { "\(threads) threads, \(rowsPerBand) rows per band" }
    }

    static let variants = [Variant(threads: 2, rowsPerBand: 8), Variant(threads: 4, rowsPerBand: 8),
                           Variant(threads: 1, rowsPerBand: 3), Variant(threads: 2, rowsPerBand: 1),
                           Variant(threads: 4, rowsPerBand: 3)]

    @Test(arguments: variants)
    func aDivergentLoopGivesTheSameBytes(_ variant: Variant) throws {
        // 100 wide: whole tiles and a partial one at the right edge of every band.
        let reference = try Draw.render(Self.divergent, "escape", width: 100, height: 61, threads: 1, rowsPerBand: 8)
        let varies = !reference.isConstant
        #expect(varies)
        let other = try Draw.render(Self.divergent, "escape", width: 100, height: 61,
                                    threads: variant.threads, rowsPerBand: variant.rowsPerBand)
        let same = other.bytes == reference.bytes
        #expect(same, "\(ImageDifference(other, reference).maxAbs) levels apart at most")
    }

    @Test(arguments: variants)
    func aFragmentPassGivesTheSameBytes(_ variant: Variant) throws {
        let content = BuiltinContent.make("checker", width: 96, height: 80)
        let reference = try Draw.render(Self.fragment, "swirlPass", width: 96, height: 80, content: content,
                                        arguments: ["t": [1.7]], threads: 1, rowsPerBand: 8)
        let varies = !reference.isConstant
        #expect(varies)
        let other = try Draw.render(Self.fragment, "swirlPass", width: 96, height: 80, content: content,
                                    arguments: ["t": [1.7]], threads: variant.threads, rowsPerBand: variant.rowsPerBand)
        let same = other.bytes == reference.bytes
        #expect(same, "\(ImageDifference(other, reference).maxAbs) levels apart at most")
    }

    @Test func aPreparedDrawRendersTheSameFrameTwice() throws {
        let library = try compile(Self.divergent)
        let draw = try Renderer.prepare(RenderRequest(library: library, functionName: "escape", width: 70, height: 40,
                                                      threads: 2, rowsPerBand: 2))
        let first = try draw.render(), second = try draw.render()
        let same = first.bytes == second.bytes
        #expect(same)
    }

    @Test func theSchedulerVisitsEveryRowOnce() {
        for (height, threads, band) in [(1, 4, 8), (61, 2, 8), (61, 4, 3), (100, 3, 1), (7, 1, 100)] {
            let counts = RowCounter(height)
            TileScheduler.run(height: height, threads: threads, rowsPerBand: band) { worker, rows in
                #expect(worker >= 0 && worker < threads)
                counts.add(rows)
            }
            #expect(counts.values == [Int](repeating: 1, count: height), "height \(height), \(threads) threads, band \(band)")
        }
    }
}

/// Counts the visits of each row from several threads.
final class RowCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int]
    init(_ height: Int) { counts = [Int](repeating: 0, count: height) }
    func add(_ rows: Range<Int>) { lock.withLock { for row in rows { counts[row] += 1 } } }
    var values: [Int] { lock.withLock { counts } }
}
