/// The `DVAR` section (format 1.1): `DebugInfo` in bytes. Layout in
/// `docs/library-format.md`; the reader treats it as hostile like every other section
/// (counts checked against the bytes left, tags validated) and `Verifier` checks its indexes.
enum DebugInfoSection {
    /// "No value": a component optimised away, or a statement without a mask.
    static let none: UInt32 = 0xFFFF_FFFF

    enum EventTag: UInt8 {
        case statement = 0, bind, loopStart, iteration, loopEnd
    }

    /// Smallest encodings, for checking counts before reserving.
    static let activationBytes = 12, variableBytes = 20, componentBytes = 5, valueBytes = 4, eventBytes = 10
}

extension LibraryWriter {
    static func debugInfoSection(_ info: DebugInfo, _ strings: inout StringTable) -> [UInt8] {
        var out = ByteWriter()
        out.u32(UInt32(info.activations.count))
        for activation in info.activations {
            out.u32(strings.index(activation.function))
            out.u16(activation.depth)
            out.u16(activation.file)
            out.u32(activation.line)
        }
        out.u32(UInt32(info.variables.count))
        for variable in info.variables {
            out.u32(strings.index(variable.name))
            out.u32(strings.index(variable.typeName))
            out.u32(variable.activation)
            out.u32(variable.line)
            out.u32(UInt32(variable.components.count))
            for component in variable.components {
                out.u32(strings.index(component.label))
                out.u8(component.scalar.rawValue)
            }
        }
        out.u32(UInt32(info.values.count))
        for value in info.values {
            out.u16(value.register)
            out.u16(UInt16(clamping: value.definitions.count))
            for definition in value.definitions.prefix(Int(UInt16.max)) { out.u32(definition) }
        }
        out.u32(UInt32(info.events.count))
        for event in info.events {
            out.u32(event.instruction)
            switch event.kind {
            case .statement(let activation, let file, let line, let column, let mask):
                out.u8(DebugInfoSection.EventTag.statement.rawValue)
                out.u8(event.fallthroughOnly ? 1 : 0)
                out.u32(activation)
                out.u16(file)
                out.u32(line)
                out.u16(column)
                out.u32(mask ?? DebugInfoSection.none)
            case .bind(let variable, let components):
                out.u8(DebugInfoSection.EventTag.bind.rawValue)
                out.u8(event.fallthroughOnly ? 1 : 0)
                out.u32(variable)
                out.u32(UInt32(components.count))
                for component in components { out.u32(component ?? DebugInfoSection.none) }
            case .loopStart(let loop):
                out.u8(DebugInfoSection.EventTag.loopStart.rawValue)
                out.u8(event.fallthroughOnly ? 1 : 0)
                out.u32(loop)
            case .iteration(let loop, let mask):
                out.u8(DebugInfoSection.EventTag.iteration.rawValue)
                out.u8(event.fallthroughOnly ? 1 : 0)
                out.u32(loop)
                out.u32(mask ?? DebugInfoSection.none)
            case .loopEnd(let loop):
                out.u8(DebugInfoSection.EventTag.loopEnd.rawValue)
                out.u8(event.fallthroughOnly ? 1 : 0)
                out.u32(loop)
            }
        }
        return out.bytes
    }
}

extension LibraryReader {
    static func readDebugInfo(_ reader: inout ByteReader, _ table: StringTable) throws(LibraryError) -> DebugInfo {
        var info = DebugInfo()
        let activationCount = try reader.count("debug activation", minimumElementBytes: DebugInfoSection.activationBytes)
        info.activations.reserveCapacity(activationCount)
        for _ in 0..<activationCount {
            let function = try table.string(&reader, "activation function")
            let depth = try reader.u16("activation depth")
            let file = try reader.u16("activation file")
            let line = try reader.u32("activation line")
            info.activations.append(DebugActivation(function: function, depth: depth, file: file, line: line))
        }
        let variableCount = try reader.count("debug variable", minimumElementBytes: DebugInfoSection.variableBytes)
        info.variables.reserveCapacity(variableCount)
        for _ in 0..<variableCount {
            let name = try table.string(&reader, "variable name")
            let typeName = try table.string(&reader, "variable type")
            let activation = try reader.u32("variable activation")
            let line = try reader.u32("variable line")
            let componentCount = try reader.count("variable component", minimumElementBytes: DebugInfoSection.componentBytes)
            var components: [DebugVariable.Component] = []
            components.reserveCapacity(componentCount)
            for _ in 0..<componentCount {
                let label = try table.string(&reader, "component label")
                let at = reader.position
                guard let scalar = ScalarType(rawValue: try reader.u8("component scalar")) else {
                    throw reader.error("variable '\(name)': unknown scalar type", at: at)
                }
                components.append(.init(label: label, scalar: scalar))
            }
            info.variables.append(DebugVariable(name: name, typeName: typeName, activation: activation, line: line,
                                                components: components))
        }
        let valueCount = try reader.count("debug value", minimumElementBytes: DebugInfoSection.valueBytes)
        info.values.reserveCapacity(valueCount)
        for _ in 0..<valueCount {
            let register = try reader.u16("value register")
            let at = reader.position
            let definitionCount = Int(try reader.u16("value definition count"))
            guard definitionCount * 4 <= reader.remaining else {
                throw reader.error("value definition count \(definitionCount) exceeds the section", at: at)
            }
            var definitions: [UInt32] = []
            definitions.reserveCapacity(definitionCount)
            for _ in 0..<definitionCount { definitions.append(try reader.u32("value definition")) }
            info.values.append(DebugValue(register: register, definitions: definitions[...]))
        }
        let eventCount = try reader.count("debug event", minimumElementBytes: DebugInfoSection.eventBytes)
        info.events.reserveCapacity(eventCount)
        func optional(_ word: UInt32) -> UInt32? { word == DebugInfoSection.none ? nil : word }
        for _ in 0..<eventCount {
            let instruction = try reader.u32("event instruction")
            let at = reader.position
            let tag = try reader.u8("event kind")
            let flags = try reader.u8("event flags")
            guard flags <= 1 else { throw reader.error("unknown debug event flags \(flags)", at: at + 1) }
            let kind: DebugEvent.Kind
            switch DebugInfoSection.EventTag(rawValue: tag) {
            case .statement:
                let activation = try reader.u32("statement activation")
                let file = try reader.u16("statement file")
                let line = try reader.u32("statement line")
                let column = try reader.u16("statement column")
                let mask = try reader.u32("statement mask")
                kind = .statement(activation: activation, file: file, line: line, column: column, mask: optional(mask))
            case .bind:
                let variable = try reader.u32("bind variable")
                let count = try reader.count("bind component", minimumElementBytes: 4)
                var components: [UInt32?] = []
                components.reserveCapacity(count)
                for _ in 0..<count { components.append(optional(try reader.u32("bind value"))) }
                kind = .bind(variable: variable, components: components)
            case .loopStart:
                kind = .loopStart(loop: try reader.u32("loop"))
            case .iteration:
                let loop = try reader.u32("loop")
                kind = .iteration(loop: loop, mask: optional(try reader.u32("iteration mask")))
            case .loopEnd:
                kind = .loopEnd(loop: try reader.u32("loop"))
            case nil:
                throw reader.error("unknown debug event kind \(tag)", at: at)
            }
            info.events.append(DebugEvent(instruction: instruction, fallthroughOnly: flags == 1, kind: kind))
        }
        try reader.expectEnd()
        return info
    }
}

extension Verifier.Context {
    /// `DVAR` rules: every index names something that exists, events are sorted and inside
    /// the code. (Registers are checked against the function by the debugger that reads
    /// them: a value does not say which function it belongs to.)
    func verifyDebugInfo() throws(LibraryError) {
        let info = library.debugInfo
        func fail(_ message: String) -> LibraryError { LibraryError(message: "debug info: \(message)", offset: nil) }
        for (index, activation) in info.activations.enumerated() where Int(activation.file) >= max(1, library.sources.count) {
            throw fail("activation \(index): file \(activation.file) out of range")
        }
        for (index, variable) in info.variables.enumerated() where Int(variable.activation) >= info.activations.count {
            throw fail("variable \(index) '\(variable.name)': activation \(variable.activation) out of range")
        }
        for (index, value) in info.values.enumerated() {
            guard Int(value.register) < limits.maxRegisters else { throw fail("value \(index): register \(value.register) out of range") }
            for definition in value.definitions where Int(definition) >= library.code.count {
                throw fail("value \(index): definition \(definition) outside the code")
            }
        }
        func checkValue(_ value: UInt32?, _ event: Int) throws(LibraryError) {
            if let value, Int(value) >= info.values.count { throw fail("event \(event): value \(value) out of range") }
        }
        var previous: UInt32 = 0
        for (index, event) in info.events.enumerated() {
            guard Int(event.instruction) < library.code.count, event.instruction >= previous else {
                throw fail("event \(index): instruction \(event.instruction) out of order or outside the code")
            }
            previous = event.instruction
            switch event.kind {
            case .statement(let activation, _, _, _, let mask):
                guard Int(activation) < info.activations.count else { throw fail("event \(index): activation out of range") }
                try checkValue(mask, index)
            case .bind(let variable, let components):
                guard Int(variable) < info.variables.count,
                      components.count == info.variables[Int(variable)].components.count else {
                    throw fail("event \(index): variable \(variable) out of range or with the wrong component count")
                }
                for component in components { try checkValue(component, index) }
            case .loopStart, .loopEnd:
                break
            case .iteration(_, let mask):
                try checkValue(mask, index)
            }
        }
    }
}
