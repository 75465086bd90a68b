import Foundation
import Testing
@testable import KilnBytecode

/// docs/isa.md and Opcode.swift must not drift: every opcode has a row with its number,
/// mnemonic, shape and the same operands and semantics as its `///` line.
@Suite("docs/isa.md matches Opcode.swift")
struct IsaDocumentTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func read(_ path: String) throws -> String {
        try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The `///` line above each `case` of `enum Opcode`, by case name.
    func opcodeDocComments() throws -> [String: String] {
        let source = try read("Sources/KilnBytecode/Opcode.swift")
        let enumBody = source.components(separatedBy: "public enum OperandShape")[0]
        var docs: [String: String] = [:]
        var pending: String?
        for rawLine in enumBody.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("/// `") {
                pending = String(line.dropFirst(4))
            } else if line.hasPrefix("case "), let doc = pending {
                let name = line.dropFirst(5).split(separator: " ")[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                docs[name] = doc
                pending = nil
            }
        }
        return docs
    }

    func shapeName(_ shape: OperandShape) -> String {
        switch shape {
        case .none: return "none"
        case .destConstant: return "destConstant"
        case .destArgument: return "destArgument"
        case .unary: return "unary"
        case .binary: return "binary"
        case .ternary: return "ternary"
        case .loadRegisterArray: return "loadRegisterArray"
        case .storeRegisterArray: return "storeRegisterArray"
        case .loadConstantArray: return "loadConstantArray"
        case .loadBuffer: return "loadBuffer"
        case .texture: return "texture"
        case .textureSize: return "textureSize"
        case .textureWrite: return "textureWrite"
        case .jump: return "jump"
        case .conditionalJump: return "conditionalJump"
        }
    }

    @Test("every opcode has a consistent row in docs/isa.md")
    func everyOpcodeDocumented() throws {
        let document = try read("docs/isa.md")
        let docs = try opcodeDocComments()
        #expect(docs.count == Opcode.allCases.count, "parsed \(docs.count) doc comments")
        for opcode in Opcode.allCases {
            let prefix = "| \(opcode.rawValue) | `\(opcode.mnemonic)` |"
            let rows = document.split(separator: "\n").filter { $0.hasPrefix(prefix) }
            #expect(rows.count == 1, "docs/isa.md needs exactly one row for \(opcode.mnemonic)")
            guard let row = rows.first, let doc = docs[opcode.mnemonic] else { continue }
            let cells = row.replacingOccurrences(of: "\\|", with: "\u{1}")
                .split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\u{1}", with: "|") }
            #expect(cells.count == 5, "row for \(opcode.mnemonic): \(cells)")
            guard cells.count == 5 else { continue }
            #expect(cells[3] == shapeName(opcode.shape), "shape of \(opcode.mnemonic)")
            #expect("\(cells[2]): \(cells[4])" == doc, "operands and semantics of \(opcode.mnemonic)")
        }
    }
}
