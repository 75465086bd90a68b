import Testing
@testable import KilnCLI
import KilnCompileTool

@Suite("argument values and sizes")
struct ArgumentParsingTests {
    @Test("numbers, vectors, arrays and colors")
    func values() throws {
        let values = try ArgumentValues.parse(["amount=1.5", "tint=0.2,0.4,1,1", "weights=1, 2, 3",
                                               "glow=#ff8000", "ink=#00000080"])
        #expect(values["amount"] == [1.5])
        #expect(values["tint"] == [0.2, 0.4, 1, 1])
        #expect(values["weights"] == [1, 2, 3])
        #expect(values["glow"] == [1, Float(0x80) / 255, 0, 1])
        #expect(values["ink"] == [0, 0, 0, Float(0x80) / 255])
    }

    @Test("bad values are clear errors", arguments: ["amount", "=3", "a=", "a=x", "a=1,,2", "c=#12345", "a=nan"])
    func badValues(option: String) {
        #expect(throws: CommandFailure.self) { try ArgumentValues.parse([option]) }
    }

    @Test("an argument given twice is an error")
    func duplicate() {
        #expect(throws: CommandFailure("--arg a is given more than once")) {
            try ArgumentValues.parse(["a=1", "a=2"])
        }
    }

    @Test("sizes")
    func sizes() throws {
        #expect(try ImageSize(parsing: "512x256") == ImageSize(width: 512, height: 256))
        #expect(throws: CommandFailure.self) { try ImageSize(parsing: "512") }
        #expect(throws: CommandFailure.self) { try ImageSize(parsing: "0x10") }
        #expect(throws: CommandFailure.self) { try ImageSize(parsing: "100000x100000") }
    }
}
