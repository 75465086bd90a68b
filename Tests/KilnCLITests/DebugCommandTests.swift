import Foundation
import KilnRender
import Testing
@testable import KilnCLI

@Suite("kiln debug")
struct DebugCommandTests {
    /// The ripple at pixel (100, 60): the text names the statements and values a person can
    /// check (toPixel = position − origin = (36.5, −3.5)), and ends in the rendered pixel.
    @Test func textShowsStatementsValuesAndThePixel() throws {
        let folder = try TestSupport.temporaryDirectory()
        let png = folder.appendingPathComponent("ripple.png").path
        let shader = TestSupport.path("shaders/ripple.metal")
        let common = ["--size", "256x256", "--content", "checker", "--arg", "origin=64,64", "--time", "0.4"]
        let rendered = Kiln.run(arguments: ["render", shader] + common + ["--premultiplied", "-o", png])
        #expect(rendered.exitCode == 0, "\(rendered.errorOutput)")
        let image = try PNG.decode([UInt8](try #require(FileManager.default.contents(atPath: png))))
        let offset = (60 * 256 + 100) * 4
        let expected = image.bytes[offset..<offset + 4].map(String.init).joined(separator: ", ")

        let outcome = Kiln.run(arguments: ["debug", shader, "--pixel", "100,60"] + common)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        #expect(outcome.output.contains("pixel RGBA8 (premultiplied) = (\(expected))"))
        #expect(outcome.output.contains("float2 toPixel = position - origin;"))
        #expect(outcome.output.contains("toPixel = x=36.5 y=-3.5"))
        #expect(outcome.output.contains("dist = 36.667423"))
    }

    @Test func jsonIsTheReport() throws {
        let outcome = Kiln.run(arguments: ["debug", TestSupport.path("shaders/ripple.metal"), "--pixel", "10,20",
                                           "--size", "64x64", "--json"])
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        #expect(object["function"] as? String == "ripple")
        #expect((object["pixel"] as? [Int])?.count == 4)
        let steps = try #require(object["steps"] as? [[String: Any]])
        #expect(steps.count >= 5)
        #expect((object["variables"] as? [[String: Any]])?.contains { $0["name"] as? String == "dist" } == true)
    }

    @Test func badPixelsAreClearErrors() {
        let shader = TestSupport.path("shaders/ripple.metal")
        let outside = Kiln.run(arguments: ["debug", shader, "--pixel", "64,0", "--size", "64x64"])
        #expect(outside.exitCode == 1)
        #expect(outside.errorOutput.contains("outside the 64×64 frame"))
        let malformed = Kiln.run(arguments: ["debug", shader, "--pixel", "12", "--size", "64x64"])
        #expect(malformed.exitCode == 64)
    }
}
