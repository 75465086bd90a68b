/// Decodes the binary format of `docs/library-format.md` into a verified `Library`.
///
/// The reader never trusts the bytes: every read is bounds-checked, every count is
/// checked against the bytes that remain before anything is allocated, sections must lie
/// inside the file without overlapping, and the result always goes through `Verifier`, so
/// a `Library` from here can run without checks.
public enum LibraryReader {
    /// Decodes and verifies `bytes`. Unknown sections are skipped; a different major
    /// version is an error naming both versions.
    public static func decode(_ bytes: [UInt8], limits: LibraryLimits = .default) throws(LibraryError) -> Library {
        guard bytes.count <= limits.maxLibraryBytes else {
            throw LibraryError(message: "library is \(bytes.count) bytes, more than the limit of \(limits.maxLibraryBytes) (LibraryLimits.maxLibraryBytes)", offset: 0)
        }
        let sections = try readSectionTable(bytes)
        func reader(_ section: LibraryFormat.Section) -> ByteReader {
            // readSectionTable guarantees every known section is present.
            let range = sections[section] ?? 0..<0
            return ByteReader(bytes: bytes, start: range.lowerBound, end: range.upperBound, context: "section \(section.name)")
        }

        var strings = reader(.strings)
        let table = try readStrings(&strings)
        var offsets = LibraryOffsets()

        var provenance = reader(.provenance)
        offsets.provenance = provenance.position
        let compilerVersion = try table.string(&provenance, "compiler version")
        let sourceCount = try provenance.count("source", minimumElementBytes: 5)
        var sources: [SourceRecord] = []
        sources.reserveCapacity(sourceCount)
        for _ in 0..<sourceCount {
            offsets.sources.append(provenance.position)
            let name = try table.string(&provenance, "source name")
            let digestLength = Int(try provenance.u8("SHA-256 length"))
            let digest = Array(try provenance.bytes(digestLength, "SHA-256"))
            sources.append(SourceRecord(name: name, sha256: digest))
        }
        try provenance.expectEnd()

        var functionReader = reader(.functions)
        let functionCount = try functionReader.count("function", minimumElementBytes: functionRecordMinimumBytes)
        guard functionCount <= limits.maxFunctions else {
            throw functionReader.error("\(functionCount) functions, more than the limit of \(limits.maxFunctions)")
        }
        var functions: [Function] = []
        functions.reserveCapacity(functionCount)
        for _ in 0..<functionCount {
            offsets.functions.append(functionReader.position)
            functions.append(try readFunction(&functionReader, table, limits))
        }
        try functionReader.expectEnd()

        var constantReader = reader(.constants)
        let constantCount = try constantReader.count("constant", minimumElementBytes: 4)
        guard constantCount <= limits.maxConstants else {
            throw constantReader.error("\(constantCount) constants, more than the limit of \(limits.maxConstants)")
        }
        var constants: [UInt32] = []
        constants.reserveCapacity(constantCount)
        for _ in 0..<constantCount { constants.append(try constantReader.u32("constant")) }
        try constantReader.expectEnd()

        var codeReader = reader(.code)
        let instructionCount = try codeReader.count("instruction", minimumElementBytes: Instruction.byteCount)
        guard instructionCount <= limits.maxInstructions else {
            throw codeReader.error("\(instructionCount) instructions, more than the limit of \(limits.maxInstructions)")
        }
        offsets.code = codeReader.position
        var code: [Instruction] = []
        code.reserveCapacity(instructionCount)
        for index in 0..<instructionCount {
            let at = codeReader.position
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(Instruction.DecodeError) in try Instruction.decode(raw, at: at) }
            }
            switch result {
            case .success(let instruction):
                code.append(instruction)
            case .failure(let error):
                let reason: String
                switch error {
                case .unknownOpcode(let value): reason = "unknown opcode \(value)"
                case .nonzeroPadding: reason = "reserved bytes 10–11 are not zero"
                case .truncated: reason = "truncated"
                }
                throw codeReader.error("instruction \(index): \(reason)", at: at)
            }
            _ = try codeReader.bytes(Instruction.byteCount, "instruction")
        }
        try codeReader.expectEnd()

        var debugReader = reader(.debug)
        let locationCount = try debugReader.count("debug location", minimumElementBytes: 12)
        offsets.debug = debugReader.position
        var debugLocations: [DebugLocation] = []
        debugLocations.reserveCapacity(locationCount)
        for _ in 0..<locationCount {
            let first = try debugReader.u32("debug instruction")
            let file = try debugReader.u16("debug file")
            let line = try debugReader.u32("debug line")
            let column = try debugReader.u16("debug column")
            debugLocations.append(DebugLocation(firstInstruction: first, file: file, line: line, column: column))
        }
        try debugReader.expectEnd()

        var debugInfo = DebugInfo()
        if sections[.variables] != nil {
            var variablesReader = reader(.variables)
            debugInfo = try readDebugInfo(&variablesReader, table)
        }
        let library = Library(compilerVersion: compilerVersion, sources: sources, functions: functions,
                              constants: constants, code: code, debugLocations: debugLocations, debugInfo: debugInfo)
        try Verifier.verify(library, limits: limits, offsets: offsets)
        return library
    }

    /// Reads the header and section table; returns the byte range of each known section.
    static func readSectionTable(_ bytes: [UInt8]) throws(LibraryError) -> [LibraryFormat.Section: Range<Int>] {
        var header = ByteReader(bytes: bytes, start: 0, end: bytes.count, context: "header")
        let magic = try header.bytes(LibraryFormat.magic.count, "magic")
        guard magic.elementsEqual(LibraryFormat.magic) else {
            throw LibraryError(message: "not a Kiln library (bad magic)", offset: 0)
        }
        let major = try header.u16("major version")
        let minor = try header.u16("minor version")
        guard major == LibraryFormat.majorVersion else {
            throw LibraryError(message: "library format version \(major).\(minor) is not supported; this reader reads version \(LibraryFormat.majorVersion).x (\(LibraryFormat.majorVersion).\(LibraryFormat.minorVersion))", offset: 8)
        }
        let flagsOffset = header.position
        let flags = try header.u32("flags")
        guard flags == 0 else {
            throw LibraryError(message: "unknown header flags 0x\(String(flags, radix: 16))", offset: flagsOffset)
        }
        let sectionCount = try header.count("section", minimumElementBytes: LibraryFormat.sectionEntryByteCount)
        let tableEnd = header.position + sectionCount * LibraryFormat.sectionEntryByteCount

        var found: [LibraryFormat.Section: Range<Int>] = [:]
        var all: [(range: Range<Int>, entry: Int, name: String)] = []
        for _ in 0..<sectionCount {
            let entry = header.position
            let id = try header.u32("section id")
            let offset = Int(try header.u32("section offset"))
            let length = Int(try header.u32("section length"))
            let name = LibraryFormat.fourCharacterName(id)
            // Offsets and lengths are u32 widened to Int, so the sum cannot overflow.
            guard offset >= tableEnd, offset + length <= bytes.count else {
                throw LibraryError(message: "section \(name) (bytes \(offset)..<\(offset + length)) lies outside the file's \(tableEnd)..<\(bytes.count)", offset: entry)
            }
            guard offset % LibraryFormat.sectionAlignment == 0 else {
                throw LibraryError(message: "section \(name) at offset \(offset) is not \(LibraryFormat.sectionAlignment)-byte aligned", offset: entry)
            }
            if let section = LibraryFormat.Section(rawValue: id) {
                guard found[section] == nil else {
                    throw LibraryError(message: "section \(name) appears twice", offset: entry)
                }
                found[section] = offset..<offset + length
            }
            all.append((offset..<offset + length, entry, name))
        }
        // Sorted by start (then table order), a section overlaps another exactly when it
        // starts before its predecessor ends. Empty sections overlap nothing.
        all.removeAll { $0.range.isEmpty }
        all.sort { ($0.range.lowerBound, $0.entry) < ($1.range.lowerBound, $1.entry) }
        for (previous, next) in zip(all, all.dropFirst()) where next.range.lowerBound < previous.range.upperBound {
            throw LibraryError(message: "sections \(previous.name) (bytes \(previous.range.lowerBound)..<\(previous.range.upperBound)) and \(next.name) (bytes \(next.range.lowerBound)..<\(next.range.upperBound)) overlap", offset: next.entry)
        }
        for section in LibraryFormat.Section.allCases where section.isRequired && found[section] == nil {
            throw LibraryError(message: "required section \(section.name) is missing", offset: LibraryFormat.headerByteCount)
        }
        return found
    }

    /// The decoded string table.
    struct StringTable {
        var strings: [String] = []

        /// Reads a u32 string index and resolves it.
        func string(_ reader: inout ByteReader, _ what: String) throws(LibraryError) -> String {
            let at = reader.position
            let index = Int(try reader.u32(what))
            guard index < strings.count else {
                throw reader.error("\(what): string index \(index) out of range (\(strings.count) strings)", at: at)
            }
            return strings[index]
        }
    }

    static func readStrings(_ reader: inout ByteReader) throws(LibraryError) -> StringTable {
        let count = try reader.count("string", minimumElementBytes: 4)
        var table = StringTable()
        table.strings.reserveCapacity(count)
        for index in 0..<count {
            let at = reader.position
            let length = Int(try reader.u32("string length"))
            let utf8 = try reader.bytes(length, "string \(index)")
            // Decoding repairs invalid sequences with U+FFFD, so the bytes survive the
            // round trip exactly when they were valid UTF-8 (portable to every platform
            // the package targets, unlike `String(validating:)`).
            let string = String(decoding: utf8, as: UTF8.self)
            guard string.utf8.elementsEqual(utf8) else {
                throw reader.error("string \(index) is not valid UTF-8", at: at)
            }
            table.strings.append(string)
        }
        try reader.expectEnd()
        return table
    }

    /// Smallest possible function record (all lists empty), for the count check.
    static let functionRecordMinimumBytes = 4 + 1 + 4 + 2 + 2 + 4 * 3 + 4 * 4 + 4 + 2 + 4 + 2 + 4 * 3

    static func readFunction(_ reader: inout ByteReader, _ table: StringTable, _ limits: LibraryLimits) throws(LibraryError) -> Function {
        let name = try table.string(&reader, "function name")
        let kindOffset = reader.position
        let kindValue = try reader.u8("function kind")
        guard let kind = FunctionKind(rawValue: kindValue) else {
            throw reader.error("function '\(name)': unknown function kind \(kindValue)", at: kindOffset)
        }
        let returnTypeName = try table.string(&reader, "return type")
        let registerCount = try reader.u16("register count")
        let uniformRegisterCount = try reader.u16("uniform register count")
        let uniformWordCount = try reader.u32("uniform word count")
        let bufferCount = try reader.u32("buffer count")
        let textureCount = try reader.u32("texture count")
        let rangeOffset = reader.position
        let prologueStart = try reader.u32("prologue start")
        let prologueEnd = try reader.u32("prologue end")
        let bodyStart = try reader.u32("body start")
        let bodyEnd = try reader.u32("body end")
        guard prologueStart <= prologueEnd, bodyStart <= bodyEnd else {
            throw reader.error("function '\(name)': a code range ends before it starts", at: rangeOffset)
        }
        let discardOffset = reader.position
        let discardValue = try reader.u32("discard register")
        var discardRegister: UInt16?
        if discardValue != LibraryFormat.noDiscardRegister {
            guard let register = UInt16(exactly: discardValue) else {
                throw reader.error("function '\(name)': discard register \(discardValue) out of range", at: discardOffset)
            }
            discardRegister = register
        }
        let file = try reader.u16("declaration file")
        let line = try reader.u32("declaration line")
        let column = try reader.u16("declaration column")

        let listOffset = reader.position
        let parameterCount = try reader.count("parameter", minimumElementBytes: 11)
        guard parameterCount <= limits.maxParameters else {
            throw reader.error("function '\(name)': \(parameterCount) parameters, more than the limit of \(limits.maxParameters)", at: listOffset)
        }
        var parameters: [Parameter] = []
        parameters.reserveCapacity(parameterCount)
        for _ in 0..<parameterCount { parameters.append(try readParameter(&reader, table)) }
        let inputOffset = reader.position
        let inputCount = try reader.count("input", minimumElementBytes: laneSlotBytes)
        guard inputCount <= limits.maxLaneSlots else {
            throw reader.error("function '\(name)': \(inputCount) inputs, more than the limit of \(limits.maxLaneSlots)", at: inputOffset)
        }
        var inputs: [LaneSlot] = []
        inputs.reserveCapacity(inputCount)
        for _ in 0..<inputCount { inputs.append(try readLaneSlot(&reader, table)) }
        let outputOffset = reader.position
        let outputCount = try reader.count("output", minimumElementBytes: laneSlotBytes)
        guard outputCount <= limits.maxLaneSlots else {
            throw reader.error("function '\(name)': \(outputCount) outputs, more than the limit of \(limits.maxLaneSlots)", at: outputOffset)
        }
        var outputs: [LaneSlot] = []
        outputs.reserveCapacity(outputCount)
        for _ in 0..<outputCount { outputs.append(try readLaneSlot(&reader, table)) }

        return Function(name: name, kind: kind, parameters: parameters, returnTypeName: returnTypeName,
                        registerCount: registerCount, uniformRegisterCount: uniformRegisterCount,
                        uniformWordCount: uniformWordCount, bufferCount: bufferCount, textureCount: textureCount,
                        prologue: prologueStart..<prologueEnd, body: bodyStart..<bodyEnd,
                        inputs: inputs, outputs: outputs, discardRegister: discardRegister,
                        file: file, line: line, column: column)
    }

    static func readValueType(_ reader: inout ByteReader) throws(LibraryError) -> ValueType {
        let at = reader.position
        let scalarValue = try reader.u8("scalar type")
        guard let scalar = ScalarType(rawValue: scalarValue) else {
            throw reader.error("unknown scalar type \(scalarValue)", at: at)
        }
        let rows = try reader.u8("rows")
        let columns = try reader.u8("columns")
        let arrayLength = try reader.u32("array length")
        return ValueType(scalar, rows: rows, columns: columns, arrayLength: arrayLength)
    }

    static func readParameter(_ reader: inout ByteReader, _ table: StringTable) throws(LibraryError) -> Parameter {
        let name = try table.string(&reader, "parameter name")
        let typeName = try table.string(&reader, "parameter type")
        let valueType = try reader.bool("value type present") ? try readValueType(&reader) : nil
        let binding = try readBinding(&reader)
        var annotation: ArgumentAnnotation?
        if try reader.bool("annotation present") {
            let flagsOffset = reader.position
            let flags = try reader.u8("annotation flags")
            guard flags & ~3 == 0 else {
                throw reader.error("parameter '\(name)': unknown annotation flags \(flags)", at: flagsOffset)
            }
            let minimum = flags & 1 != 0 ? try reader.f32("annotation minimum") : nil
            let maximum = flags & 2 != 0 ? try reader.f32("annotation maximum") : nil
            let defaultCount = try reader.count("annotation default", minimumElementBytes: 4)
            var defaults: [Float] = []
            defaults.reserveCapacity(defaultCount)
            for _ in 0..<defaultCount { defaults.append(try reader.f32("annotation default")) }
            let help = try table.string(&reader, "annotation help")
            annotation = ArgumentAnnotation(minimum: minimum, maximum: maximum, defaultValue: defaults, help: help)
        }
        return Parameter(name: name, typeName: typeName, valueType: valueType, binding: binding, annotation: annotation)
    }

    static func readBinding(_ reader: inout ByteReader) throws(LibraryError) -> Binding {
        let at = reader.position
        let tagValue = try reader.u8("binding")
        guard let tag = LibraryWriter.BindingTag(rawValue: tagValue) else {
            throw reader.error("unknown binding tag \(tagValue)", at: at)
        }
        switch tag {
        case .position: return .position
        case .color: return .color
        case .layer: return .layer
        case .uniform: return .uniform(word: try reader.u32("uniform word"))
        case .buffer:
            let slot = try reader.u32("buffer slot")
            let countWord = try reader.bool("count word present") ? try reader.u32("count word") : nil
            return .buffer(slot: slot, countWord: countWord)
        case .texture: return .texture(slot: try reader.u32("texture slot"))
        case .sampler: return .sampler
        case .stageIn: return .stageIn
        case .vertexID: return .vertexID
        case .instanceID: return .instanceID
        case .outputTexture: return .outputTexture(slot: try reader.u32("texture slot"))
        case .threadPosition: return .threadPosition
        }
    }

    /// Bytes of an encoded lane slot.
    static let laneSlotBytes = 4 + 4 + 7 + 2 + 1

    static func readLaneSlot(_ reader: inout ByteReader, _ table: StringTable) throws(LibraryError) -> LaneSlot {
        let name = try table.string(&reader, "slot name")
        let attribute = try table.string(&reader, "slot attribute")
        let type = try readValueType(&reader)
        let register = try reader.u16("slot register")
        let flat = try reader.bool("slot flat")
        return LaneSlot(name: name, attribute: attribute, type: type, register: register, flat: flat)
    }
}

/// Where parts of a decoded library lay in its bytes, so verification errors can carry
/// byte offsets.
struct LibraryOffsets {
    var functions: [Int] = []
    var code = 0
    var debug = 0
    var provenance = 0
    var sources: [Int] = []

    func instruction(_ index: Int) -> Int { code + index * Instruction.byteCount }
    func debugLocation(_ index: Int) -> Int { debug + index * 12 }
}
