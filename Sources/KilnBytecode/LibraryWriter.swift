/// Encodes a `Library` into the binary format of `docs/library-format.md`.
///
/// The encoding is canonical: sections in a fixed order, strings interned in first-use
/// order, no optional padding. So `encode(decode(bytes)) == bytes` for every library this
/// writer produced, which the round-trip tests rely on.
public enum LibraryWriter {
    /// The section order the writer uses (then `DVAR` when the library has debug info).
    static let sectionOrder: [LibraryFormat.Section] = [.strings, .functions, .constants, .code, .debug, .provenance]

    /// Encodes `library`. Never fails: every field of an in-memory library has an encoding
    /// (whether it *verifies* is `Verifier`'s business).
    public static func encode(_ library: Library) -> [UInt8] {
        var strings = StringTable()
        // Sections that reference strings are built first so the table is complete.
        let provenance = provenanceSection(library, &strings)
        let functions = functionSection(library, &strings)
        let variables = library.debugInfo.isEmpty ? nil : debugInfoSection(library.debugInfo, &strings)
        var sections: [LibraryFormat.Section: [UInt8]] = [
            .strings: strings.encoded(),
            .functions: functions,
            .constants: constantSection(library),
            .code: codeSection(library),
            .debug: debugSection(library),
            .provenance: provenance,
        ]
        let order = variables == nil ? sectionOrder : sectionOrder + [.variables]
        if let variables { sections[.variables] = variables }

        var out = ByteWriter()
        out.append(LibraryFormat.magic)
        out.u16(LibraryFormat.majorVersion)
        out.u16(LibraryFormat.minorVersion)
        out.u32(0)  // flags: none defined in 1.0
        out.u32(UInt32(order.count))
        let tableStart = out.bytes.count
        for section in order {
            out.u32(section.rawValue)
            out.u32(0)  // offset, patched below
            out.u32(0)  // length, patched below
        }
        for (index, section) in order.enumerated() {
            out.pad(to: LibraryFormat.sectionAlignment)
            let body = sections.removeValue(forKey: section) ?? []
            let entry = tableStart + index * LibraryFormat.sectionEntryByteCount
            out.patchU32(UInt32(out.bytes.count), at: entry + 4)
            out.patchU32(UInt32(body.count), at: entry + 8)
            out.append(body)
        }
        return out.bytes
    }

    /// Interns strings; the section stores them in first-use order.
    struct StringTable {
        var indexes: [String: UInt32] = [:]
        var ordered: [String] = []

        mutating func index(_ string: String) -> UInt32 {
            if let index = indexes[string] { return index }
            let index = UInt32(ordered.count)
            indexes[string] = index
            ordered.append(string)
            return index
        }

        func encoded() -> [UInt8] {
            var out = ByteWriter()
            out.u32(UInt32(ordered.count))
            for string in ordered {
                let utf8 = Array(string.utf8)
                out.u32(UInt32(utf8.count))
                out.append(utf8)
            }
            return out.bytes
        }
    }

    static func provenanceSection(_ library: Library, _ strings: inout StringTable) -> [UInt8] {
        var out = ByteWriter()
        out.u32(strings.index(library.compilerVersion))
        out.u32(UInt32(library.sources.count))
        for source in library.sources {
            out.u32(strings.index(source.name))
            out.u8(UInt8(truncatingIfNeeded: source.sha256.count))
            out.append(Array(source.sha256.prefix(255)))
        }
        return out.bytes
    }

    static func functionSection(_ library: Library, _ strings: inout StringTable) -> [UInt8] {
        var out = ByteWriter()
        out.u32(UInt32(library.functions.count))
        for function in library.functions {
            out.u32(strings.index(function.name))
            out.u8(function.kind.rawValue)
            out.u32(strings.index(function.returnTypeName))
            out.u16(function.registerCount)
            out.u16(function.uniformRegisterCount)
            out.u32(function.uniformWordCount)
            out.u32(function.bufferCount)
            out.u32(function.textureCount)
            out.u32(function.prologue.lowerBound)
            out.u32(function.prologue.upperBound)
            out.u32(function.body.lowerBound)
            out.u32(function.body.upperBound)
            out.u32(function.discardRegister.map { UInt32($0) } ?? LibraryFormat.noDiscardRegister)
            out.u16(function.file)
            out.u32(function.line)
            out.u16(function.column)
            out.u32(UInt32(function.parameters.count))
            for parameter in function.parameters { writeParameter(parameter, &out, &strings) }
            out.u32(UInt32(function.inputs.count))
            for slot in function.inputs { writeLaneSlot(slot, &out, &strings) }
            out.u32(UInt32(function.outputs.count))
            for slot in function.outputs { writeLaneSlot(slot, &out, &strings) }
        }
        return out.bytes
    }

    static func writeValueType(_ type: ValueType, _ out: inout ByteWriter) {
        out.u8(type.scalar.rawValue)
        out.u8(type.rows)
        out.u8(type.columns)
        out.u32(type.arrayLength)
    }

    static func writeParameter(_ parameter: Parameter, _ out: inout ByteWriter, _ strings: inout StringTable) {
        out.u32(strings.index(parameter.name))
        out.u32(strings.index(parameter.typeName))
        out.bool(parameter.valueType != nil)
        if let type = parameter.valueType { writeValueType(type, &out) }
        writeBinding(parameter.binding, &out)
        out.bool(parameter.annotation != nil)
        if let annotation = parameter.annotation {
            out.u8((annotation.minimum != nil ? 1 : 0) | (annotation.maximum != nil ? 2 : 0))
            if let minimum = annotation.minimum { out.f32(minimum) }
            if let maximum = annotation.maximum { out.f32(maximum) }
            out.u32(UInt32(annotation.defaultValue.count))
            for value in annotation.defaultValue { out.f32(value) }
            out.u32(strings.index(annotation.help))
        }
    }

    /// Binding tags, in the order of `Binding`'s cases (see the doc's table).
    enum BindingTag: UInt8 {
        case position = 0, color, layer, uniform, buffer, texture, sampler, stageIn, vertexID, instanceID
        case outputTexture, threadPosition
    }

    static func writeBinding(_ binding: Binding, _ out: inout ByteWriter) {
        switch binding {
        case .position: out.u8(BindingTag.position.rawValue)
        case .color: out.u8(BindingTag.color.rawValue)
        case .layer: out.u8(BindingTag.layer.rawValue)
        case .uniform(let word):
            out.u8(BindingTag.uniform.rawValue)
            out.u32(word)
        case .buffer(let slot, let countWord):
            out.u8(BindingTag.buffer.rawValue)
            out.u32(slot)
            out.bool(countWord != nil)
            if let countWord { out.u32(countWord) }
        case .texture(let slot):
            out.u8(BindingTag.texture.rawValue)
            out.u32(slot)
        case .sampler: out.u8(BindingTag.sampler.rawValue)
        case .stageIn: out.u8(BindingTag.stageIn.rawValue)
        case .vertexID: out.u8(BindingTag.vertexID.rawValue)
        case .instanceID: out.u8(BindingTag.instanceID.rawValue)
        case .outputTexture(let slot):
            out.u8(BindingTag.outputTexture.rawValue)
            out.u32(slot)
        case .threadPosition: out.u8(BindingTag.threadPosition.rawValue)
        }
    }

    static func writeLaneSlot(_ slot: LaneSlot, _ out: inout ByteWriter, _ strings: inout StringTable) {
        out.u32(strings.index(slot.name))
        out.u32(strings.index(slot.attribute))
        writeValueType(slot.type, &out)
        out.u16(slot.register)
        out.bool(slot.flat)
    }

    static func constantSection(_ library: Library) -> [UInt8] {
        var out = ByteWriter()
        out.u32(UInt32(library.constants.count))
        for word in library.constants { out.u32(word) }
        return out.bytes
    }

    static func codeSection(_ library: Library) -> [UInt8] {
        var out = ByteWriter()
        out.u32(UInt32(library.code.count))
        out.bytes.reserveCapacity(4 + library.code.count * Instruction.byteCount)
        for instruction in library.code { instruction.encode(into: &out.bytes) }
        return out.bytes
    }

    static func debugSection(_ library: Library) -> [UInt8] {
        var out = ByteWriter()
        out.u32(UInt32(library.debugLocations.count))
        for location in library.debugLocations {
            out.u32(location.firstInstruction)
            out.u16(location.file)
            out.u32(location.line)
            out.u16(location.column)
        }
        return out.bytes
    }
}
