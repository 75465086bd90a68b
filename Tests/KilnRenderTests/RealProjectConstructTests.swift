import Foundation
import KilnBytecode
import KilnRender
import KilnVM
import Testing

/// Constructs real projects use that are about binding and sampling rather than
/// arithmetic: a fragment function taking its `[[stage_in]]` as one float vector, and
/// samplers built in code (`sampler(filter::linear)`, `metal::sampler(…)`).
@Suite struct RealProjectConstructTests {
    /// `fragment half4 f(float4 p [[stage_in]])` in a full-screen pass: `p` is the position.
    @Test func aVectorStageInIsThePosition() throws {
        let library = try compile("""
            #include <metal_stdlib>
            using namespace metal;
            fragment half4 f(float4 p [[stage_in]]) { return half4(p.x / 64.0, p.y / 32.0, p.w, 1); }
            """)
        let image = try Renderer.render(RenderRequest(library: library, functionName: "f", width: 64, height: 32))
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.bytes[(y * 64 + x) * 4 ..< (y * 64 + x) * 4 + 4]) }
        #expect(pixel(0, 0) == [quantize(0.5 / 64), quantize(0.5 / 32), 255, 255])
        #expect(pixel(63, 31) == [quantize(63.5 / 64), quantize(31.5 / 32), 255, 255])
    }

    /// Samplers constructed in code sample exactly like the equivalent constexpr sampler.
    @Test func samplersBuiltInCodeMatchConstexprSamplers() throws {
        let content = BuiltinContent.make("checker", width: 16, height: 16)
        func render(_ declaration: String) throws -> RGBAImage {
            let library = try compile("""
                #include <metal_stdlib>
                using namespace metal;
                struct V { float4 position [[position]]; float2 uv; };
                fragment half4 f(V in [[stage_in]], texture2d<half> tex [[texture(0)]]) {
                    \(declaration)
                    return tex.sample(s, in.uv * 1.37 - 0.1);
                }
                """)
            return try Renderer.render(RenderRequest(library: library, functionName: "f", width: 16, height: 16, content: content))
        }
        let reference = try render("constexpr sampler s(filter::linear, address::repeat);")
        #expect(try render("sampler s = sampler(filter::linear, address::repeat);") == reference)
        #expect(try render("metal::sampler s = metal::sampler(metal::filter::linear, metal::address::repeat);") == reference)
        #expect(try render("sampler s(address::repeat, filter::linear);") == reference)
        // A different state really gives a different picture (the check above can fail).
        #expect(try render("sampler s = sampler(filter::nearest, address::clamp_to_edge);") != reference)
    }
}
