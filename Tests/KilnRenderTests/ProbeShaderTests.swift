import Foundation
import KilnBytecode
import KilnRender
import Testing

/// The probe shaders of `bench/probes` (one costly construct each, docs/benchmarks.md
/// "Probes") compile and draw, and each pair that spells the same arithmetic two ways
/// draws the same picture: `fmod` against `x − y·floor(x/y)` (positive operands, so only
/// the last bit of a remainder may differ), signed against unsigned division (operands
/// that are never negative).
@Suite struct ProbeShaderTests {
    static func render(_ file: String, time: Float = 0.7) throws -> RGBAImage {
        let url = Paths.repository.appendingPathComponent("bench/probes/\(file)")
        let library = try compile(try String(contentsOf: url, encoding: .utf8), name: file)
        let function = try #require(library.functions.first)
        return try Renderer.render(RenderRequest(library: library, functionName: function.name, width: 48, height: 40,
                                                 content: BuiltinContent.make("rainbow", width: 48, height: 40), time: time))
    }

    @Test(arguments: ["fmod.metal", "floormod.metal", "idiv.metal", "udiv.metal", "switch.metal", "blur49.metal",
                          "table.metal", "array.metal", "ftoi.metal", "pcg.metal",
                          "fwidth.metal", "round.metal"])
    func probeDraws(_ file: String) throws {
        #expect(!(try Self.render(file)).isConstant)
    }

    @Test func twoSpellingsDrawTheSamePicture() throws {
        let difference = ImageDifference(try Self.render("fmod.metal"), try Self.render("floormod.metal"))
        #expect(difference.maxAbs <= 1, "fmod and floor-based remainders differ by \(difference.maxAbs) levels")
        #expect(try Self.render("idiv.metal").bytes == Self.render("udiv.metal").bytes)
    }
}
