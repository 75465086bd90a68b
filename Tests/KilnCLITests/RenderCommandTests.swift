import Foundation
import KilnRender
import Testing
@testable import KilnCLI
@testable import KilnCompileTool

@Suite("kiln render")
struct RenderCommandTests {
    @Test("render writes a valid, non-constant PNG of the requested size")
    func renderWritesPNG() throws {
        let folder = try TestSupport.temporaryDirectory()
        let output = folder.appendingPathComponent("ripple.png").path
        let outcome = TestSupport.kiln("render", TestSupport.path("shaders/ripple.metal"), "--function", "ripple",
                                       "--size", "96x64", "--content", "checker",
                                       "--arg", "origin=48,32", "--arg", "time=0.3", "-o", output)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let png = try PNG.decode([UInt8](try #require(FileManager.default.contents(atPath: output))))
        #expect(png.width == 96 && png.height == 64)
        #expect(png.bytes.count == 96 * 64 * 4)
        #expect(!png.isConstant)
        #expect(Set(stride(from: 0, to: png.bytes.count, by: 4).map { png.bytes[$0] }).count > 4)
    }

    @Test("--heatmap writes the cost per pixel, --json the cost per line")
    func heatmap() throws {
        let folder = try TestSupport.temporaryDirectory()
        let shader = folder.appendingPathComponent("counted.metal")
        try """
            [[ stitchable ]] half4 counted(float2 position) {
                float s = 0.0;
                int n = int(position.x) & 3;
                for (int i = 0; i < n; i++) {
                    s += 0.25;
                }
                return half4(s, 0.0, 0.0, 1.0);
            }
            """.write(to: shader, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("heat.png").path
        let outcome = TestSupport.kiln("render", shader.path, "--size", "16x8", "--heatmap", "--json", "-o", output)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let png = try PNG.decode([UInt8](try #require(FileManager.default.contents(atPath: output))))
        #expect(png.width == 16 && png.height == 8)
        #expect(Array(png.bytes[12..<16]) == [255, 255, 255, 255])        // n = 3: the dearest pixel
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        #expect(object["total"] as? Int == 2816 && object["maximum"] as? Int == 31)   // 13 + 6n (CostHeatmapTests)
        let lines = try #require(object["lines"] as? [[String: Any]])
        #expect(lines.map { $0["line"] as? Int } == [3, 4, 5, 7])
        let refused = TestSupport.kiln("render", shader.path, "--json", "-o", output)
        #expect(refused.exitCode == 64)
    }

    @Test("every example renders without errors, into a folder")
    func renderAllExamples() throws {
        let folder = try TestSupport.temporaryDirectory()
        for shader in TestSupport.exampleShaders {
            let outcome = TestSupport.kiln("render", shader, "--size", "48x48", "-o", folder.path)
            #expect(outcome.exitCode == 0, "\(shader): \(outcome.errorOutput)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }
        #expect(written.count >= 14)
    }

    @Test("--frames writes numbered PNGs")
    func frames() throws {
        let folder = try TestSupport.temporaryDirectory()
        let outcome = TestSupport.kiln("render", TestSupport.path("shaders/melt.metal"), "--function", "screenMelt",
                                       "--size", "32x24", "--content", "rainbow", "--content2", "checker",
                                       "--frames", "3", "--fps", "4", "-o", folder.path)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["screenMelt-0000.png", "screenMelt-0001.png", "screenMelt-0002.png"])
        let first = try PNG.decode([UInt8](try #require(FileManager.default.contents(atPath: folder.appendingPathComponent(names[0]).path))))
        let last = try PNG.decode([UInt8](try #require(FileManager.default.contents(atPath: folder.appendingPathComponent(names[2]).path))))
        #expect(first != last)       // the melt moves
    }

    @Test("a huge --size is a clear error")
    func hugeSize() {
        let outcome = TestSupport.kiln("render", TestSupport.path("shaders/vignette.metal"), "--size", "100000x100000",
                                       "-o", "/tmp/never.png")
        #expect(outcome.exitCode == 1)
        #expect(outcome.errorOutput.contains("too large"))
    }

    @Test("argument mistakes name the argument", arguments: [
        (["--arg", "nope=1"], "no argument called 'nope'"),
        (["--arg", "intensity=1,2"], "takes 1 value"),
        (["--function", "missing"], "no entry function 'missing'"),
        (["--content", "plaid"], "unknown content 'plaid'"),
    ])
    func argumentErrors(extra: [String], message: String) {
        let outcome = Kiln.run(arguments: ["render", TestSupport.path("shaders/vignette.metal"), "--size", "8x8",
                                           "-o", "/tmp/kiln-never.png"] + extra)
        #expect(outcome.exitCode == 1)
        #expect(outcome.errorOutput.contains(message), "\(outcome.errorOutput)")
    }

    @Test("a PNG output with several functions asks for a folder")
    func severalFunctionsNeedFolder() {
        let outcome = TestSupport.kiln("render", TestSupport.path("shaders/tone.metal"), "--size", "8x8", "-o", "/tmp/kiln-never.png")
        #expect(outcome.exitCode == 1)
        #expect(outcome.errorOutput.contains("give a folder"))
    }

    @Test("the renderer follows the conformance semantics for a color effect")
    func colorEffectSemantics() throws {
        // sepia with amount 0 returns the source colour: the output is the content itself.
        let sources = try ShaderSources.load([TestSupport.path("shaders/tone.metal")]).files
        let library = try #require(ShaderBuild.compile(sources, printDiagnostics: false).library)
        let function = try #require(library.function(named: "sepia"))
        let renderer = FrameRenderer(threads: 2)
        let size = ImageSize(width: 70, height: 9)       // not a multiple of the lane count
        let contents = try renderer.loadContents("gradient", "checker", size: size)
        let draw = try renderer.prepare(library: library, function: function, size: size, contents: contents,
                                        arguments: ["amount": [0]], time: nil)
        let pixels = try renderer.render(draw).bytes
        let content = contents.first.pixels          // a copy of the texels, taken once
        for index in stride(from: 0, to: pixels.count, by: 37) {
            let expected = quantize(content[index])
            #expect(abs(Int(pixels[index]) - Int(expected)) <= 1)
        }
    }
}
