/// Prints a library as text: header, constant pool, and per function its signature,
/// register layout and the prologue and body listings, with source lines interleaved.
///
/// The output is stable (no addresses, no dictionary order), so golden tests can pin it.
/// A listing line reads `  0012  fmul    r5, r3, r4`: instruction index, mnemonic,
/// operands formatted by one helper per `OperandShape`.
public enum Disassembler {
    /// Disassembles `library`. `sourceTexts` holds the text of each file of
    /// `library.sources` (same indexes); when given, each group of instructions is
    /// preceded by its source line (`; wave.metal:7  p.y += amplitude * sin(p.x);`).
    public static func disassemble(_ library: Library, sourceTexts: [String]? = nil) -> String {
        var printer = Printer(library: library, sourceLines: sourceTexts.map { $0.map(splitLines) })
        printer.printLibrary()
        return printer.output
    }

    /// The same, with the label the shared brief uses (`sources:` as file texts).
    public static func disassemble(_ library: Library, sources: [String]?) -> String {
        disassemble(library, sourceTexts: sources)
    }

    /// Splits a source text into lines (`\n`, `\r\n` or `\r` end a line).
    static func splitLines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
    }

    /// Formats a float the way `%g` would, but exactly: integral values without a
    /// fraction (`4`, `-1`), everything else in Swift's shortest round-trip form.
    public static func format(_ value: Float) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 1e7 {
            return value == 0 && value.sign == .minus ? "-0" : String(Int(value))
        }
        return "\(value)"
    }

    /// A constant word as the reader most likely means it: small integers as integers
    /// (their float reading would be a denormal), everything else as a float.
    public static func format(word: UInt32) -> String {
        let integer = Int32(bitPattern: word)
        if (-65536...65536).contains(integer) { return String(integer) }
        return format(Float(bitPattern: word))
    }

    struct Printer {
        let library: Library
        let sourceLines: [[Substring]]?
        var output = ""
        /// Width of instruction indexes (at least four digits).
        let indexWidth: Int

        init(library: Library, sourceLines: [[Substring]]?) {
            self.library = library
            self.sourceLines = sourceLines
            self.indexWidth = max(4, String(max(0, library.code.count - 1)).count)
        }

        mutating func line(_ text: String = "") {
            output += text
            output += "\n"
        }

        mutating func printLibrary() {
            line("; kiln library, format \(LibraryFormat.majorVersion).\(LibraryFormat.minorVersion)")
            line("; compiler: \(library.compilerVersion)")
            for (index, source) in library.sources.enumerated() {
                let hex = source.sha256.map { byte in
                    let digits = String(byte, radix: 16)
                    return digits.count == 1 ? "0" + digits : digits
                }.joined()
                line("; source \(index): \(source.name) sha256 \(hex)")
            }
            line("; functions \(library.functions.count), instructions \(library.code.count), constants \(library.constants.count)")
            if !library.constants.isEmpty {
                line()
                line("constants:")
                let width = String(library.constants.count - 1).count
                for (index, word) in library.constants.enumerated() {
                    let number = String(index)
                    let padding = String(repeating: " ", count: width - number.count)
                    line("  k\(number)\(padding)  0x\(hex(word, digits: 8))  ; \(format(word: word))")
                }
            }
            for function in library.functions {
                line()
                printFunction(function)
            }
        }

        func hex(_ value: UInt32, digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }

        func label(_ target: UInt32) -> String {
            let text = String(target)
            return "@" + String(repeating: "0", count: max(0, indexWidth - text.count)) + text
        }

        func fileName(_ file: UInt16) -> String {
            Int(file) < library.sources.count ? library.sources[Int(file)].name : "file\(file)"
        }

        // MARK: function headers

        mutating func printFunction(_ function: Function) {
            let parameters = function.parameters.map { describe($0, in: function) }.joined(separator: ", ")
            line("\(function.kind.name) \(function.name)(\(parameters)) -> \(function.returnTypeName)")
            line("  ; declared at \(fileName(function.file)):\(function.line):\(function.column)")
            line("  ; registers \(function.registerCount), uniform registers \(function.uniformRegisterCount), uniform words \(function.uniformWordCount), buffers \(function.bufferCount), textures \(function.textureCount)")
            for slot in function.inputs { line("  ; input  \(describe(slot))") }
            for slot in function.outputs { line("  ; output \(describe(slot))") }
            if let register = function.discardRegister { line("  ; discard r\(register)") }
            line("prologue:")
            printListing(function, function.prologue, uniform: nil)
            let uniformity = UniformityAnalysis(library: library, function: function)
            let share = uniformity.uniform.isEmpty ? 0 : 100 * uniformity.uniformCount / uniformity.uniform.count
            line("body:  ; \(uniformity.uniform.count) instructions, \(uniformity.uniformCount) uniform (\(share)%, marked u)")
            printListing(function, function.body, uniform: uniformity.uniform)
        }

        func registers(_ first: Int, count: Int) -> String {
            count == 1 ? "r\(first)" : "r\(first)..r\(first + count - 1)"
        }

        func describe(_ slot: LaneSlot) -> String {
            var text = "\(slot.type.name) \(slot.name) \(registers(Int(slot.register), count: slot.type.componentCount))"
            if !slot.attribute.isEmpty { text += " [[\(slot.attribute)]]" }
            if slot.flat { text += " flat" }
            return text
        }

        func describe(_ parameter: Parameter, in function: Function) -> String {
            var text = "\(parameter.typeName) \(parameter.name) [\(describe(parameter.binding, parameter.valueType))]"
            if let annotation = parameter.annotation {
                text += " @arg"
                if annotation.minimum != nil || annotation.maximum != nil {
                    text += " \(annotation.minimum.map(format) ?? "")...\(annotation.maximum.map(format) ?? "")"
                }
                if !annotation.defaultValue.isEmpty {
                    text += " = " + annotation.defaultValue.map(format).joined(separator: ", ")
                }
                if !annotation.help.isEmpty { text += " \"\(annotation.help)\"" }
            }
            return text
        }

        func describe(_ binding: Binding, _ type: ValueType?) -> String {
            switch binding {
            case .position: return "position"
            case .color: return "color"
            case .layer: return "layer tex0"
            case .uniform(let word):
                let count = type?.componentCount ?? 1
                return count == 1 ? "u\(word)" : "u\(word)..u\(Int(word) + count - 1)"
            case .buffer(let slot, let countWord):
                return countWord.map { "buf\(slot), count u\($0)" } ?? "buf\(slot)"
            case .texture(let slot): return "tex\(slot)"
            case .sampler: return "sampler"
            case .stageIn: return "stage_in"
            case .vertexID: return "vertex_id"
            case .instanceID: return "instance_id"
            case .outputTexture(let slot): return "output tex\(slot)"
            case .threadPosition: return "thread position"
            }
        }

        /// The parameter whose uniform words include `word`, as `name` or `name[i]`.
        func argumentName(_ word: UInt32, in function: Function) -> String? {
            for parameter in function.parameters {
                guard case .uniform(let first) = parameter.binding else { continue }
                let count = UInt32(clamping: parameter.valueType?.componentCount ?? 1)
                if word >= first, word - first < count {
                    return count == 1 ? parameter.name : "\(parameter.name)[\(word - first)]"
                }
            }
            for parameter in function.parameters {
                if case .buffer(_, let countWord?) = parameter.binding, countWord == word { return "count of \(parameter.name)" }
            }
            return nil
        }

        // MARK: listings

        /// `uniform` marks instructions whose result is the same in every lane (body only: the
        /// prologue is all uniform) with a `u` between the index and the mnemonic.
        mutating func printListing(_ function: Function, _ range: Range<UInt32>, uniform: [Bool]?) {
            var lastLocation: (file: UInt16, line: UInt32)?
            // An entry covers instructions up to the next entry, so a function without
            // entries of its own would show the last line of the function before it; only
            // entries that start inside this function are printed.
            let functionStart = min(function.prologue.lowerBound, function.body.lowerBound)
            // Clamped to the code so that even an unverified library prints without trapping.
            let end = min(Int(range.upperBound), library.code.count)
            for index in min(Int(range.lowerBound), end)..<end {
                if let location = library.location(ofInstruction: index), location.firstInstruction >= functionStart,
                   lastLocation.map({ $0.file != location.file || $0.line != location.line }) ?? true {
                    lastLocation = (location.file, location.line)
                    var comment = "  ; \(fileName(location.file)):\(location.line)"
                    if let lines = sourceLines, Int(location.file) < lines.count {
                        let fileLines = lines[Int(location.file)]
                        let lineIndex = Int(location.line) - 1
                        if fileLines.indices.contains(lineIndex) {
                            let text = fileLines[lineIndex].trimmingWhitespace()
                            if !text.isEmpty { comment += "  " + text }
                        }
                    }
                    line(comment)
                }
                let instruction = library.code[index]
                let mnemonic = instruction.opcode.mnemonic
                let padded = mnemonic + String(repeating: " ", count: max(1, 8 - mnemonic.count))
                let indexText = String(index)
                let number = String(repeating: "0", count: max(0, indexWidth - indexText.count)) + indexText
                let operands = self.operands(instruction, in: function)
                let relative = index - Int(range.lowerBound)
                let mark = uniform.map { $0.indices.contains(relative) && $0[relative] } == true ? "u" : " "
                line(("  \(number) \(mark) \(padded)\(operands)").trimmingTrailingSpaces())
            }
        }

        /// One formatting helper per operand shape.
        func operands(_ i: Instruction, in function: Function) -> String {
            switch i.opcode.shape {
            case .none:
                return ""
            case .destConstant:
                let value = Int(i.imm) < library.constants.count ? " ; \(format(word: library.constants[Int(i.imm)]))" : ""
                return "r\(i.a), k\(i.imm)\(value)"
            case .destArgument:
                let name = argumentName(i.imm, in: function).map { " ; \($0)" } ?? ""
                return "r\(i.a), u\(i.imm)\(name)"
            case .unary:
                return "r\(i.a), r\(i.b)"
            case .binary:
                return "r\(i.a), r\(i.b), r\(i.c)"
            case .ternary:
                return "r\(i.a), r\(i.b), r\(i.c), r\(i.d)"
            case .loadRegisterArray:
                return "r\(i.a), \(registers(Int(i.b), count: Int(i.imm)))[r\(i.c)]"
            case .storeRegisterArray:
                return "\(registers(Int(i.a), count: Int(i.imm)))[r\(i.c)], r\(i.b), if r\(i.d)"
            case .loadConstantArray:
                let last = Int(i.imm) + Int(i.d) - 1
                let pool = i.d == 1 ? "k\(i.imm)" : "k\(i.imm)..k\(last)"
                return "r\(i.a), \(pool)[r\(i.b)]"
            case .loadBuffer:
                return "r\(i.a), buf\(i.imm)[r\(i.b)]"
            case .texture:
                let base = "\(registers(Int(i.a), count: 4)), tex\(i.imm), r\(i.b), r\(i.c)"
                return i.opcode == .sample ? base + ", \(describe(SampleMode(rawValue: i.mode)))" : base
            case .textureSize:
                return "\(registers(Int(i.a), count: 2)), tex\(i.imm)"
            case .textureWrite:
                return "tex\(i.imm), r\(i.b), r\(i.c), \(registers(Int(i.a), count: 4)), if r\(i.d)"
            case .jump:
                return label(i.imm)
            case .conditionalJump:
                return "r\(i.a), \(label(i.imm))"
            }
        }

        func describe(_ mode: SampleMode) -> String {
            let address: String
            switch mode.address {
            case .zero: address = "zero"
            case .clampToEdge: address = "clamp_to_edge"
            case .repeat: address = "repeat"
            case .mirroredRepeat: address = "mirrored_repeat"
            }
            return "\(mode.normalized ? "normalized" : "pixels") \(mode.linear ? "linear" : "nearest") \(address)"
        }
    }
}
