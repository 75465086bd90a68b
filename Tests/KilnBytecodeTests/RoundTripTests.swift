import Testing
@testable import KilnBytecode

@Suite("Library format round trips")
struct RoundTripTests {
    @Test("hand-built libraries verify", arguments: TestLibraries.all.map(\.0))
    func librariesVerify(name: String) throws {
        let library = try #require(TestLibraries.all.first { $0.0 == name }).1
        try Verifier.verify(library)
    }

    @Test("encode → decode gives the same library, and re-encoding the same bytes", arguments: TestLibraries.all.map(\.0))
    func roundTrip(name: String) throws {
        let library = try #require(TestLibraries.all.first { $0.0 == name }).1
        let bytes = LibraryWriter.encode(library)
        let decoded = try LibraryReader.decode(bytes)
        #expect(decoded == library)
        #expect(LibraryWriter.encode(decoded) == bytes)
    }

    @Test("header: magic, version 3.0, no flags, six 4-byte-aligned sections in order")
    func headerLayout() {
        let surgery = ByteSurgery(TestLibraries.combined)
        #expect(Array(surgery.bytes[0..<8]) == Array("KILNLIB".utf8) + [0])
        #expect(surgery.bytes[8] == 3 && surgery.bytes[9] == 0 && surgery.bytes[10] == 0 && surgery.bytes[11] == 0)
        #expect(surgery.u32(at: 12) == 0)
        #expect(surgery.sectionCount == 6)
        let names = (0..<6).map { LibraryFormat.fourCharacterName(surgery.u32(at: 20 + 12 * $0)) }
        #expect(names == ["STRS", "FUNC", "CNST", "CODE", "DBUG", "PROV"])
        for section in LibraryFormat.Section.allCases where section.isRequired {
            #expect(surgery.start(section) % 4 == 0)
        }
        // The code section holds the instructions exactly as Instruction.encode writes them.
        let library = TestLibraries.combined
        var expected: [UInt8] = []
        for instruction in library.code { instruction.encode(into: &expected) }
        let codeStart = surgery.start(.code) + 4
        #expect(Array(surgery.bytes[codeStart..<codeStart + expected.count]) == expected)
    }

    @Test("strings are interned once, in UTF-8")
    func stringsInterned() throws {
        let surgery = ByteSurgery(TestLibraries.glow)
        let start = surgery.start(.strings)
        let count = Int(surgery.u32(at: start))
        var position = start + 4
        var strings: [String] = []
        for _ in 0..<count {
            let length = Int(surgery.u32(at: position))
            strings.append(String(decoding: surgery.bytes[position + 4..<position + 4 + length], as: UTF8.self))
            position += 4 + length
        }
        #expect(Set(strings).count == strings.count)
        #expect(strings.contains("Radius of the glow — in pixels ✨"))
        #expect(strings.filter { $0 == "position" }.count == 1)
    }

    @Test("unknown sections are skipped")
    func unknownSectionSkipped() throws {
        var surgery = ByteSurgery(TestLibraries.wave)
        surgery.addSection(id: 0x5458_4E45, content: Array("future data".utf8))  // "ENXT"
        let decoded = try LibraryReader.decode(surgery.bytes)
        #expect(decoded == TestLibraries.wave)
    }

    @Test("a newer minor version is read")
    func newerMinorVersion() throws {
        var surgery = ByteSurgery(TestLibraries.wave)
        surgery.setU16(7, at: 10)
        #expect(try LibraryReader.decode(surgery.bytes) == TestLibraries.wave)
    }

    @Test("a different major version is an error naming both versions")
    func majorVersionMismatch() {
        var surgery = ByteSurgery(TestLibraries.wave)
        surgery.setU16(2, at: 8)
        surgery.setU16(0, at: 10)
        let error = #expect(throws: LibraryError.self) { try LibraryReader.decode(surgery.bytes) }
        #expect(error?.message == "library format version 2.0 is not supported; this reader reads version 3.x (3.0)")
        #expect(error?.offset == 8)
    }
}

extension RoundTripTests {
    @Test("function record fields sit at the offsets docs/library-format.md draws")
    func functionRecordOffsets() {
        let surgery = ByteSurgery(TestLibraries.wave)
        let record = surgery.start(.functions) + 4
        func u16(_ at: Int) -> UInt16 { UInt16(surgery.bytes[record + at]) | UInt16(surgery.bytes[record + at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { surgery.u32(at: record + at) }
        #expect(surgery.bytes[record + 4] == FunctionKind.distortion.rawValue)
        #expect(u16(9) == 9 && u16(11) == 3)
        #expect(u32(13) == 2 && u32(17) == 0 && u32(21) == 0)
        #expect(u32(25) == 0 && u32(29) == 4 && u32(33) == 4 && u32(37) == 13)
        #expect(u32(41) == 0xFFFF_FFFF)
        #expect(u16(45) == 0 && u32(47) == 5 && u16(51) == 18)
        #expect(u32(53) == 3)  // parameters
    }
}
