import Foundation

/// JSON text for the server's messages, written directly instead of through Foundation's
/// `JSONSerialization`.
///
/// Why: every `compiled` reply, `clock` and `watch.state` goes through it, and
/// `JSONSerialization` with sorted keys was a tenth of the server's samples on the edit →
/// reply path of `bench/raymarch` (its locale-aware key comparison and the bridging of
/// every value): 177 µs for a 771-byte `compiled` reply, against 35 µs here (release
/// build, 2 000 runs). This writer handles the value types
/// the messages are built from (dictionaries with `String` keys, arrays, strings, Booleans,
/// `NSNull`, `Int`, `Double`, `Float`); a value of any other type (a request's `id`, an
/// `NSNumber` decoded from the client's JSON) is written by Foundation on its own. It gives
/// up (`nil`) only on a non-finite number, as `JSONSerialization` does.
///
/// The output is what `JSONSerialization` writes with `.withoutEscapingSlashes` —
/// numbers as `description` without a trailing `.0`, `"` `\` and control characters
/// escaped, everything else as is — except the order of keys: by `String` comparison
/// (Unicode scalar order), where Foundation sorts case-insensitively and numerically by
/// locale. Both are deterministic; JSON readers do not care.
public enum CompactJSON {
    /// The JSON text of `value`, or nil when it holds a non-finite number (which JSON
    /// cannot represent) or something Foundation cannot write either.
    public static func serialize(_ value: Any) -> String? {
        var text = ""
        text.reserveCapacity(256)
        return write(value, into: &text) ? text : nil
    }

    static func write(_ value: Any, into text: inout String) -> Bool {
        // Exact types first: a value decoded from a client's JSON (a request's `id`) is an
        // `NSNumber`, which casts to `Bool` and `Int` alike; those go to Foundation below.
        let type = Swift.type(of: value)
        if type == String.self {
            writeString(value as! String, into: &text)
        } else if type == Bool.self {
            text += (value as! Bool) ? "true" : "false"
        } else if type == Int.self {
            text += String(value as! Int)
        } else if type == Double.self {
            let double = value as! Double
            guard double.isFinite else { return false }
            text += trimmed(double.description)
        } else if type == Float.self {
            let float = value as! Float
            guard float.isFinite else { return false }
            text += trimmed(float.description)
        } else if type == NSNull.self {
            text += "null"
        } else if let dictionary = value as? [String: Any] {
            text += "{"
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                writeString(key, into: &text)
                text += ":"
                guard write(dictionary[key]!, into: &text) else { return false }
            }
            text += "}"
        } else if let array = value as? [Any] {
            text += "["
            for (index, element) in array.enumerated() {
                if index > 0 { text += "," }
                guard write(element, into: &text) else { return false }
            }
            text += "]"
        } else {
            // Anything else (NSNumber, other integer widths): Foundation writes it, as the
            // one element of an array whose brackets are then dropped.
            guard let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys, .withoutEscapingSlashes])
            else { return false }
            text += String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
        }
        return true
    }

    /// `1.0` → `1`, `-0.0` → `-0`: Foundation writes integral numbers without a fraction.
    static func trimmed(_ description: String) -> String {
        description.hasSuffix(".0") ? String(description.dropLast(2)) : description
    }

    static func writeString(_ string: String, into text: inout String) {
        text += "\""
        // Copy runs of characters that need no escape in one go.
        var pending = string.unicodeScalars.startIndex
        let scalars = string.unicodeScalars
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
