import Foundation
import KilnBytecode
import KilnRender
import KilnVM
import Testing

/// `RenderRequest.sampleStride`: a coarse frame is exactly every k-th pixel of every k-th
/// row of the full frame — same positions, same content texels, arguments bound for the
/// full size — for every full-frame kind; triangle draws and kernels ignore it.
@Suite struct CoarseFrameTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var function: String
        var testDescription: String { function }
    }

    /// A color effect over content (tint), shader art (raymarch, no content read), a layer
    /// effect (box9 samples around the position), a distortion (wave), and shaders/ files
    /// for a fragment pass with uv and a shape.
    static let cases = [
        Case(file: "bench/tint.metal", function: "tint"), Case(file: "bench/raymarch.metal", function: "raymarch"),
        Case(file: "bench/box9.metal", function: "box9"), Case(file: "bench/wave.metal", function: "wave"),
        Case(file: "bench/sdf2d.metal", function: "sdf2d"),
    ]

    static func request(_ testCase: Case, stride: Int) throws -> RenderRequest {
        let url = Paths.repository.appendingPathComponent(testCase.file)
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: url.lastPathComponent)
        let (width, height) = (83, 47)
        var request = RenderRequest(library: library, functionName: testCase.function, width: width, height: height,
                                    content: BuiltinContent.make("photo", width: width, height: height),
                                    content2: BuiltinContent.make("checker", width: width, height: height), time: 1.5)
        request.sampleStride = stride
        return request
    }

    @Test(arguments: cases)
    func coarsePixelsAreTheFullFramesPixels(_ testCase: Case) throws {
        let full = try Renderer.render(try Self.request(testCase, stride: 1))
        #expect(!full.isConstant)
        for k in [2, 3, 4, 16] {
            let coarse = try Renderer.render(try Self.request(testCase, stride: k))
            #expect(coarse.width == (full.width + k - 1) / k && coarse.height == (full.height + k - 1) / k)
            var mismatches = 0
            for y in 0..<coarse.height {
                for x in 0..<coarse.width where coarse.pixel(x, y) != full.pixel(x * k, y * k) { mismatches += 1 }
            }
            #expect(mismatches == 0, "\(testCase.function) at stride \(k): \(mismatches) pixels differ from the full frame's")
        }
    }

    /// A fragment pass: its uv input follows the full frame too.
    @Test func aFragmentPassSubsamplesItsUV() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        struct V { float4 position [[position]]; float2 uv; };
        fragment float4 bands(V in [[stage_in]]) {
            return float4(fract(in.uv.x * 7.0), fract(in.uv.y * 5.0), in.position.x / 100.0, 1);
        }
        """
        let library = try compile(source)
        var request = RenderRequest(library: library, functionName: "bands", width: 50, height: 30)
        let full = try Renderer.render(request)
        request.sampleStride = 3
        let coarse = try Renderer.render(request)
        #expect((coarse.width, coarse.height) == (17, 10))
        for y in 0..<coarse.height {
            for x in 0..<coarse.width { #expect(coarse.pixel(x, y) == full.pixel(x * 3, y * 3), "(\(x), \(y))") }
        }
    }

    /// Kernels render their whole grid whatever the stride.
    @Test func kernelsIgnoreTheStride() throws {
        let url = Paths.repository.appendingPathComponent("shaders/plasma_kernel.metal")
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: "plasma_kernel.metal")
        let name = try #require(library.functions.first { $0.kind == .kernel }?.name)
        var request = RenderRequest(library: library, functionName: name, width: 40, height: 24, time: 1)
        let full = try Renderer.render(request)
        request.sampleStride = 4
        let coarse = try Renderer.render(request)
        #expect(coarse.bytes == full.bytes)
    }
}
