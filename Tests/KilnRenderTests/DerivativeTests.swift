import Foundation
import KilnBytecode
import KilnRender
import KilnTestSupport
import KilnVM
import Testing

/// `dfdx`/`dfdy`/`fwidth` (fine and coarse) with GPU semantics: 2×2 quads aligned to even
/// pixels, helper lanes past an odd edge. References are computed independently with numpy
/// (`tools/derivative_refs.py`) at odd and even sizes, for a shape effect, an SDF
/// anti-aliased with `fwidth_coarse`, and a full-screen fragment pass.
@Suite struct DerivativeTests {
    struct Case: Sendable, CustomStringConvertible {
        var id: String
        var file: String
        var function: String
        var width: Int
        var height: Int
        var arguments: [String: [Float]]
        var maxAbs: Int
        var percentOverOne: Double
        var description: String { id }
    }

    static let folder = RepositoryFiles.url("Tests/Derivatives")

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("cases.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = json["cases"] as? [[String: Any]] else { return [] }
        return entries.compactMap { entry in
            guard let id = entry["id"] as? String, let file = entry["file"] as? String,
                  let function = entry["function"] as? String, let size = entry["size"] as? [Int], size.count == 2,
                  let tolerance = entry["tolerance"] as? [String: Any] else { return nil }
            let arguments = (entry["args"] as? [String: [Double]] ?? [:]).mapValues { $0.map { Float($0) } }
            return Case(id: id, file: file, function: function, width: size[0], height: size[1], arguments: arguments,
                        maxAbs: tolerance["max_abs"] as? Int ?? 0, percentOverOne: tolerance["pct_over_1"] as? Double ?? 0)
        }
    }()

    @Test func theCasesAreThere() {
        #expect(Self.cases.count == 3)
        // Odd sizes, so helper lanes at the right column and bottom row are exercised.
        #expect(Self.cases.contains { $0.width % 2 == 1 && $0.height % 2 == 1 })
    }

    @Test(arguments: cases) func rendersLikeTheReference(_ testCase: Case) throws {
        let source = try String(contentsOf: Self.folder.appendingPathComponent(testCase.file), encoding: .utf8)
        let library = try compile(source, name: (testCase.file as NSString).lastPathComponent)
        let request = RenderRequest(library: library, functionName: testCase.function, width: testCase.width,
                                    height: testCase.height, arguments: testCase.arguments)
        let actual = try Renderer.render(request)
        let expected = try loadPNG(Self.folder.appendingPathComponent("refs/\(testCase.id).png"))
        let difference = ImageDifference(actual, expected)
        if difference.maxAbs > testCase.maxAbs || difference.percentOverOne > testCase.percentOverOne {
            let folder = writeArtifacts("derivatives/\(testCase.id)", [
                "actual.png": actual, "expected.png": expected, "diff.png": ImageDifference.heatMap(actual, expected),
            ])
            Issue.record("\(testCase.id): max difference \(difference.maxAbs) levels, \(String(format: "%.2f", difference.percentOverOne))% over 1; images in \(folder)")
        }
    }

    /// Any thread count and band height give the same bytes (quads never straddle bands).
    @Test func bandsAndThreadsDoNotChangeDerivatives() throws {
        let testCase = try #require(Self.cases.first { $0.id == "grad" })
        let source = try String(contentsOf: Self.folder.appendingPathComponent(testCase.file), encoding: .utf8)
        let library = try compile(source)
        var images: [RGBAImage] = []
        for (threads, rows) in [(1, 8), (2, 3), (2, 1)] {
            var request = RenderRequest(library: library, functionName: testCase.function, width: 37, height: 21)
            request.threads = threads
            request.rowsPerBand = rows
            images.append(try Renderer.render(request))
        }
        #expect(images.allSatisfy { $0 == images[0] })
    }

    /// A derivative of a value every pixel shares is zero, and the VM is never asked for it.
    @Test func derivativesOfUniformValuesAreZero() throws {
        let library = try compile("""
            [[ stitchable ]] half4 f(float2 p, float time) {
                float k = time * 3.0;
                return half4(dfdx(k) + 0.5, fwidth(k) + 0.25, dfdy(p.x), 1);
            }
            """)
        let function = try #require(library.function(named: "f"))
        let code = library.code[Int(function.prologue.lowerBound)..<Int(function.body.upperBound)]
        #expect(!code.contains { $0.opcode == .dfdx })
        let image = try Renderer.render(RenderRequest(library: library, functionName: "f", width: 4, height: 4,
                                                      arguments: ["time": [2]]))
        #expect(Array(image.bytes[0..<4]) == [128, 64, 0, 255])
    }

    /// Triangle fragments are shaded in 2×2 quads with helper lanes: a varying that is
    /// linear on the screen (uv = pixel position / size, w = 1) has the same derivative at
    /// every covered pixel, the triangle's edges included, where a quad's other pixels lie
    /// outside the triangle and only helper lanes give the difference.
    @Test func triangleFragmentsDifferentiateInQuads() throws {
        let (width, height) = (37, 29)
        let library = try compile("""
            struct V { float4 position [[position]]; float2 uv; };
            vertex V vs(uint id [[vertex_id]]) {
                // Clip-space corners of a triangle; uv is the screen position over the size.
                float2 corners[3] = { float2(-0.9, -0.8), float2(0.85, -0.6), float2(-0.2, 0.9) };
                float2 c = corners[id];
                V v;
                v.position = float4(c, 0, 1);
                v.uv = float2(c.x * 0.5 + 0.5, 0.5 - c.y * 0.5);
                return v;
            }
            fragment half4 fs(V in [[stage_in]]) {
                return half4(dfdx(in.uv.x) * \(width).0 * 0.4, dfdy(in.uv.y) * \(height).0 * 0.4,
                             fwidth(in.uv.x) * \(width).0 * 0.4 + dfdy(in.uv.x), 1);
            }
            """)
        let image = try Renderer.render(RenderRequest(library: library, functionName: "vs", width: width, height: height))
        var covered = 0
        for y in 0..<height {
            for x in 0..<width where image.alpha(x, y) != 0 {
                covered += 1
                #expect(image.pixel(x, y) == [102, 102, 102, 255], "pixel (\(x), \(y))")
            }
        }
        #expect(covered > width * height / 4)
    }
}
