/// Assembles a `Library` by hand: for tests of the bytecode, the VM and the renderer
/// that need a library without running the compiler.
///
/// Each `addFunction` appends the prologue and body to the code array; jump targets in
/// the given instructions are *relative to the start of their own range* and are
/// relocated to the absolute indexes the ISA uses. Debug locations are given relative to
/// the body (or prologue) as well. The result is not verified: call `Verifier.verify`
/// (tests of the verifier build broken libraries on purpose).
public struct LibraryBuilder {
    public var library: Library

    public init(compilerVersion: String = "kiln test", sources: [SourceRecord] = []) {
        library = Library(compilerVersion: compilerVersion, sources: sources, functions: [],
                          constants: [], code: [], debugLocations: [])
    }

    /// The index of `word` in the constant pool, appending it if it is not there yet.
    public mutating func constant(_ word: UInt32) -> UInt32 {
        if let index = library.constants.firstIndex(of: word) { return UInt32(index) }
        library.constants.append(word)
        return UInt32(library.constants.count - 1)
    }

    /// The index of a float constant (its bit pattern).
    public mutating func constant(_ value: Float) -> UInt32 { constant(value.bitPattern) }

    /// Appends `words` as one contiguous run (for `ldk`) and returns its first index.
    public mutating func constantArray(_ words: [UInt32]) -> UInt32 {
        library.constants.append(contentsOf: words)
        return UInt32(library.constants.count - words.count)
    }

    /// A source line for instructions of a function added with `addFunction`.
    public struct Line {
        /// Index of the first instruction covered, relative to the start of its range.
        public var instruction: Int
        public var inPrologue: Bool
        public var file: UInt16
        public var line: UInt32
        public var column: UInt16

        public init(_ instruction: Int, inPrologue: Bool = false, file: UInt16 = 0, line: UInt32, column: UInt16 = 1) {
            self.instruction = instruction
            self.inPrologue = inPrologue
            self.file = file
            self.line = line
            self.column = column
        }
    }

    /// Appends `function` with the given code; its `prologue` and `body` ranges are set
    /// here (whatever they were is ignored). Returns the function as added.
    @discardableResult
    public mutating func addFunction(_ function: Function, prologue: [Instruction], body: [Instruction],
                                     lines: [Line] = []) -> Function {
        var function = function
        function.prologue = append(prologue)
        function.body = append(body)
        for line in lines {
            let base = line.inPrologue ? function.prologue.lowerBound : function.body.lowerBound
            library.debugLocations.append(DebugLocation(firstInstruction: base + UInt32(line.instruction),
                                                        file: line.file, line: line.line, column: line.column))
        }
        library.debugLocations.sort { $0.firstInstruction < $1.firstInstruction }
        library.functions.append(function)
        return function
    }

    /// Appends a code range, relocating jump targets from range-relative to absolute.
    mutating func append(_ instructions: [Instruction]) -> Range<UInt32> {
        let start = UInt32(library.code.count)
        for var instruction in instructions {
            switch instruction.opcode.shape {
            case .jump, .conditionalJump: instruction.imm &+= start
            default: break
            }
            library.code.append(instruction)
        }
        return start..<UInt32(library.code.count)
    }

    /// A function shell with everything zero or empty, to fill in before `addFunction`.
    public static func function(_ name: String, kind: FunctionKind, returnTypeName: String = "float2",
                                registerCount: UInt16, uniformRegisterCount: UInt16 = 0,
                                uniformWordCount: UInt32 = 0, bufferCount: UInt32 = 0, textureCount: UInt32 = 0,
                                parameters: [Parameter] = [], inputs: [LaneSlot] = [], outputs: [LaneSlot] = [],
                                discardRegister: UInt16? = nil, file: UInt16 = 0, line: UInt32 = 1,
                                column: UInt16 = 1) -> Function {
        Function(name: name, kind: kind, parameters: parameters, returnTypeName: returnTypeName,
                 registerCount: registerCount, uniformRegisterCount: uniformRegisterCount,
                 uniformWordCount: uniformWordCount, bufferCount: bufferCount, textureCount: textureCount,
                 prologue: 0..<0, body: 0..<0, inputs: inputs, outputs: outputs,
                 discardRegister: discardRegister, file: file, line: line, column: column)
    }
}
