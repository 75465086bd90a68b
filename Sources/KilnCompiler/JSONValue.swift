/// A JSON document built and written without Foundation: the compile report
/// (`CompileReport`), which the `kiln` executable writes for `kiln compile --json` and which
/// links no Foundation (docs/benchmarks.md, "`kiln compile` in its own executable").
///
/// Written compactly, object keys sorted by `String` comparison (Unicode scalar order),
/// strings escaped as RFC 8259 requires (`"`, `\`, control characters) and nothing else,
/// numbers as Swift's shortest round-trip `description` without a trailing `.0` — what the
/// server's `CompactJSON` writes too, which uses the same string and number writers.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    /// A finite number (a non-finite one is written as `null`: JSON has none).
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// A JSON text another writer produced, nested as it is (the diagnostics'
    /// `DiagnosticRenderer.json`, which the language module writes itself).
    case text(String)

    /// The compact JSON text.
    public var serialized: String {
        var text = ""
        text.reserveCapacity(256)
        write(into: &text)
        return text
    }

    /// Appends the compact JSON text to `text`.
    public func write(into text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .number(let value): text += value.isFinite ? JSONValue.trimmed(value.description) : "null"
        case .string(let value): JSONValue.writeString(value, into: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                JSONValue.writeString(key, into: &text)
                text += ":"
                members[key]!.write(into: &text)
            }
            text += "}"
        case .text(let json):
            // Only the structure's line breaks go (inside strings they are escaped), so the
            // whole document stays on one line.
            text += json.utf8.contains(UInt8(ascii: "\n")) ? json.filter { $0 != "\n" } : json
        }
    }

    /// A Float as the shortest decimal that reads back to it (0.2, not 0.20000000298), or
    /// `null` when it is not finite.
    public static func float(_ value: Float) -> JSONValue {
        value.isFinite ? .number(Double(value.description) ?? Double(value)) : .null
    }

    /// `1.0` → `1`, `-0.0` → `-0`: integral numbers without a fraction, as Foundation's
    /// `JSONSerialization` writes them.
    public static func trimmed(_ description: String) -> String {
        description.hasSuffix(".0") ? String(description.dropLast(2)) : description
    }

    /// Appends `string` as a JSON string literal.
    public static func writeString(_ string: String, into text: inout String) {
        text += "\""
        // Copy runs of characters that need no escape in one go.
        let scalars = string.unicodeScalars
        var pending = scalars.startIndex
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String?
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case "\u{8}": escape = "\\b"
            case "\u{c}": escape = "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escape = nil
                }
            }
            if let escape {
                text.unicodeScalars.append(contentsOf: scalars[pending..<index])
                text += escape
                pending = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        text.unicodeScalars.append(contentsOf: scalars[pending..<scalars.endIndex])
        text += "\""
    }
}
