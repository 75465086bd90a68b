import Foundation
import KilnCompiler

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
            JSONValue.writeString(value as! String, into: &text)
        } else if type == Bool.self {
            text += (value as! Bool) ? "true" : "false"
        } else if type == Int.self {
            text += String(value as! Int)
        } else if type == Double.self {
            let double = value as! Double
            guard double.isFinite else { return false }
            text += JSONValue.trimmed(double.description)
        } else if type == Float.self {
            let float = value as! Float
            guard float.isFinite else { return false }
            text += JSONValue.trimmed(float.description)
        } else if type == NSNull.self {
            text += "null"
        } else if let dictionary = value as? [String: Any] {
            text += "{"
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                JSONValue.writeString(key, into: &text)
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
}
