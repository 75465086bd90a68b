import Testing
@testable import KilnBytecode

/// The reader on hostile bytes: each test breaks one thing and expects the precise error.
@Suite("Library reader on bad bytes")
struct ReaderTests {
    func expectRejected(_ bytes: [UInt8], _ message: String, offset: Int? = nil, limits: LibraryLimits = .default,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: LibraryError.self, sourceLocation: sourceLocation) {
            try LibraryReader.decode(bytes, limits: limits)
        }
        #expect(error?.message == message, sourceLocation: sourceLocation)
        if let offset { #expect(error?.offset == offset, sourceLocation: sourceLocation) }
    }

    @Test func badMagic() {
        var surgery = ByteSurgery(TestLibraries.wave)
        surgery.bytes[3] = UInt8(ascii: "X")
        expectRejected(surgery.bytes, "not a Kiln library (bad magic)", offset: 0)
        expectRejected([], "header: truncated magic (needs 8 bytes, 0 left)", offset: 0)
    }

    @Test func unknownFlags() {
        var surgery = ByteSurgery(TestLibraries.wave)
        surgery.setU32(4, at: 12)
        expectRejected(surgery.bytes, "unknown header flags 0x4", offset: 12)
    }

    @Test func hugeSectionCount() {
        var surgery = ByteSurgery(TestLibraries.wave)
        surgery.setU32(0xFFFF_FFFF, at: 16)
        expectRejected(surgery.bytes, "header: section count 4294967295 needs at least 51539607540 bytes, \(surgery.bytes.count - 20) left", offset: 16)
    }

    @Test func sectionOutsideFileWithoutOverflow() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let entry = surgery.entry(.code)
        surgery.setU32(0xFFFF_FFF0, at: entry + 4)
        surgery.setU32(0x20, at: entry + 8)
        expectRejected(surgery.bytes, "section CODE (bytes 4294967280..<4294967312) lies outside the file's 92..<\(surgery.bytes.count)", offset: entry)
    }

    @Test func sectionInsideTheTable() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let entry = surgery.entry(.strings)
        surgery.setU32(20, at: entry + 4)
        expectRejected(surgery.bytes, "section STRS (bytes 20..<\(20 + Int(surgery.u32(at: entry + 8)))) lies outside the file's 92..<\(surgery.bytes.count)", offset: entry)
    }

    @Test func overlappingSections() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let functions = surgery.start(.functions)
        let functionsEnd = functions + Int(surgery.u32(at: surgery.entry(.functions) + 8))
        let entry = surgery.entry(.constants)
        let constantsLength = Int(surgery.u32(at: entry + 8))
        surgery.setU32(UInt32(functions + 4), at: entry + 4)
        expectRejected(surgery.bytes, "sections FUNC (bytes \(functions)..<\(functionsEnd)) and CNST (bytes \(functions + 4)..<\(functions + 4 + constantsLength)) overlap", offset: entry)
    }

    @Test func misalignedSection() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let entry = surgery.entry(.debug)
        surgery.setU32(surgery.u32(at: entry + 4) + 1, at: entry + 4)
        surgery.setU32(0, at: entry + 8)
        expectRejected(surgery.bytes, "section DBUG at offset \(surgery.u32(at: entry + 4)) is not 4-byte aligned", offset: entry)
    }

    @Test func duplicateAndMissingSections() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let debug = surgery.entry(.debug)
        surgery.setU32(LibraryFormat.Section.code.rawValue, at: debug)
        expectRejected(surgery.bytes, "section CODE appears twice", offset: debug)
        surgery.setU32(0x5A5A_5A5A, at: debug)
        expectRejected(surgery.bytes, "required section DBUG is missing")
    }

    @Test func hugeStringCountDoesNotAllocate() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let start = surgery.start(.strings)
        let length = Int(surgery.u32(at: surgery.entry(.strings) + 8))
        surgery.setU32(0x7FFF_FFFF, at: start)
        expectRejected(surgery.bytes, "section STRS: string count 2147483647 needs at least 8589934588 bytes, \(length - 4) left", offset: start)
    }

    @Test func hugeStringLength() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let start = surgery.start(.strings)
        surgery.setU32(0xFFFF_FFF0, at: start + 4)
        let length = Int(surgery.u32(at: surgery.entry(.strings) + 8))
        expectRejected(surgery.bytes, "section STRS: truncated string 0 (needs 4294967280 bytes, \(length - 8) left)", offset: start + 8)
    }

    @Test func invalidUTF8() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let start = surgery.start(.strings)
        surgery.bytes[start + 8] = 0xC3   // a lead byte followed by an ASCII byte
        expectRejected(surgery.bytes, "section STRS: string 0 is not valid UTF-8", offset: start + 4)
    }

    @Test func stringIndexOutOfRange() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let start = surgery.start(.functions)
        let count = surgery.u32(at: surgery.start(.strings))
        surgery.setU32(1000, at: start + 4)
        expectRejected(surgery.bytes, "section FUNC: function name: string index 1000 out of range (\(count) strings)", offset: start + 4)
    }

    @Test func hugeInstructionCount() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let start = surgery.start(.code)
        surgery.setU32(0x1000_0000, at: start)
        expectRejected(surgery.bytes, "section CODE: instruction count 268435456 needs at least 4294967296 bytes, 208 left", offset: start)
    }

    @Test func unknownOpcodeAndPadding() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let instruction5 = surgery.start(.code) + 4 + 5 * 16
        surgery.bytes[instruction5] = 0xEE
        expectRejected(surgery.bytes, "section CODE: instruction 5: unknown opcode 238", offset: instruction5)
        surgery = ByteSurgery(TestLibraries.wave)
        surgery.bytes[instruction5 + 11] = 1
        expectRejected(surgery.bytes, "section CODE: instruction 5: reserved bytes 10–11 are not zero", offset: instruction5)
    }

    @Test func unknownKindAndBinding() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let kind = surgery.start(.functions) + 8
        surgery.bytes[kind] = 7
        expectRejected(surgery.bytes, "section FUNC: function 'wave': unknown function kind 7", offset: kind)
    }

    @Test func invertedRange() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let prologue = surgery.start(.functions) + 4 + 4 + 1 + 4 + 2 + 2 + 12
        surgery.setU32(3, at: prologue)
        surgery.setU32(2, at: prologue + 4)
        expectRejected(surgery.bytes, "section FUNC: function 'wave': a code range ends before it starts", offset: prologue)
    }

    @Test func trailingBytesInASection() {
        var surgery = ByteSurgery(TestLibraries.wave)
        let entry = surgery.entry(.provenance)
        surgery.bytes += [0, 0, 0, 0]
        surgery.setU32(surgery.u32(at: entry + 8) + 4, at: entry + 8)
        expectRejected(surgery.bytes, "section PROV: 4 unexpected trailing bytes")
    }

    @Test func fileSizeLimit() {
        var limits = LibraryLimits()
        limits.maxLibraryBytes = 100
        let bytes = LibraryWriter.encode(TestLibraries.wave)
        expectRejected(bytes, "library is \(bytes.count) bytes, more than the limit of 100 (LibraryLimits.maxLibraryBytes)", offset: 0, limits: limits)
    }

    @Test func verifierErrorsCarryTheInstructionOffset() {
        var library = TestLibraries.wave
        library.code[8].c = 300
        var surgery = ByteSurgery(library)
        expectRejected(surgery.bytes, "function 'wave': instruction 8 (fadd): register 300 out of range (registerCount 9)",
                       offset: surgery.start(.code) + 4 + 8 * 16)
        surgery = ByteSurgery(TestLibraries.wave)
        surgery.setU16(0, at: surgery.start(.functions) + 4 + 4 + 1 + 4)  // registerCount 0
        expectRejected(surgery.bytes, "function 'wave': uniformRegisterCount 3 exceeds registerCount 0",
                       offset: surgery.start(.functions) + 4)
    }

    @Test("every truncation of an encoded library is an error", arguments: TestLibraries.all.map(\.0))
    func truncations(name: String) throws {
        let library = try #require(TestLibraries.all.first { $0.0 == name }).1
        let bytes = LibraryWriter.encode(library)
        for length in 0..<bytes.count {
            #expect(throws: LibraryError.self, "prefix of \(length) bytes") {
                try LibraryReader.decode(Array(bytes[0..<length]))
            }
        }
    }
}

extension ReaderTests {
    @Test func recordCountLimitsAreCheckedWhileReading() {
        let bytes = LibraryWriter.encode(TestLibraries.combined)
        let surgery = ByteSurgery(TestLibraries.combined)
        var limits = LibraryLimits()
        limits.maxFunctions = 4
        expectRejected(bytes, "section FUNC: 5 functions, more than the limit of 4", offset: surgery.start(.functions) + 4, limits: limits)
        limits = LibraryLimits()
        limits.maxParameters = 2
        expectRejected(bytes, "section FUNC: function 'wave': 3 parameters, more than the limit of 2", limits: limits)
    }
}
