import Foundation

/// JSON text from Foundation objects, with stable key order.
public enum JSONText {
    public static func serialize(_ object: Any, pretty: Bool = false) -> String {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { options.insert(.prettyPrinted) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: options) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A Float as the shortest decimal that reads back to it (0.2, not 0.20000000298).
    public static func number(_ value: Float) -> Any {
        guard value.isFinite else { return NSNull() }
        return Double(value.description) ?? Double(value)
    }

    /// A Double rounded to `digits` decimals, for measurements.
    public static func rounded(_ value: Double, digits: Int = 3) -> Any {
        guard value.isFinite else { return NSNull() }
        let scale = pow(10.0, Double(digits))
        return (value * scale).rounded() / scale
    }
}
