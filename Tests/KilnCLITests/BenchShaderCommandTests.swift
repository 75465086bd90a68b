import Foundation
import Testing
@testable import KilnCLI

/// `kiln bench shader`: any shader's frame time and per-pixel cost, rendered into memory.
@Suite("kiln bench shader") struct BenchShaderCommandTests {
    @Test("JSON per function: frame time, pixels per second and what a pixel costs")
    func reportsEachFunction() throws {
        let outcome = TestSupport.kiln("bench", "shader", TestSupport.path("shaders/plasma_kernel.metal"),
                                       "--size", "32x16", "--seconds", "0.05", "--threads", "1", "--json")
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [[String: Any]])
        let plasma = try #require(records.first { $0["function"] as? String == "plasma" })
        #expect(plasma["kind"] as? String == "kernel")
        #expect(plasma["width"] as? Int == 32 && plasma["height"] as? Int == 16)
        #expect((plasma["frames"] as? Int ?? 0) >= 3)
        // The tests run the portable debug build; `make bench` runs the v4 or v3 one.
        #expect(plasma["build"] as? String == "portable")
        let milliseconds = try #require(plasma["ms_per_frame"] as? Double)
        #expect(milliseconds > 0)
        let fps = try #require(plasma["frames_per_s"] as? Double)
        #expect(abs(fps * milliseconds / 1000 - 1) < 0.02, "fps \(fps) is not 1000 / \(milliseconds) ms")
        // 32×16 is eight 8×8 threadgroups, whole batches of `laneCount` lanes: instructions
        // per pixel is a whole number of instructions per lane, times 512 / 512 = 1; the
        // weighted work is more (the kernel calls sin and cos).
        let perPixel = try #require(plasma["instructions_per_pixel"] as? Double)
        let work = try #require(plasma["work_per_pixel"] as? Double)
        #expect(perPixel > 10 && perPixel == perPixel.rounded())
        #expect(work > perPixel * 2)
    }

    @Test("an unknown function is named")
    func unknownFunction() {
        let outcome = TestSupport.kiln("bench", "shader", TestSupport.path("shaders/wave.metal"), "--function", "nope", "--seconds", "0.01")
        #expect(outcome.exitCode == 1)
        #expect(outcome.errorOutput.contains("no entry function 'nope'"), "\(outcome.errorOutput)")
    }
}
