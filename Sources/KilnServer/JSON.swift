import Foundation

/// Argument values in JSON messages (decoded by `ClientRequest.decode`).
enum JSON {
    /// Whether a decoded JSON value is `true`/`false`. Not `value is Bool`: on Linux any
    /// NSNumber holding 0 or 1 casts to Bool, so `[1, 1]` would read as booleans.
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// Numbers from a JSON value: `1.5`, `[1, 2]`, or `"0.2,0.4,1,1"` / `"#rrggbbaa"`.
    static func floats(_ value: Any?) -> [Float]? {
        switch value {
        case let number as NSNumber: return [number.floatValue]
        case let array as [Any]:
            let numbers = array.compactMap { ($0 as? NSNumber)?.floatValue }
            return numbers.count == array.count ? numbers : nil
        case let text as String: return ArgumentText.parse(text)
        default: return nil
        }
    }
}

/// Argument values written as text (query strings, JSON strings): `1.5`, `0.2,0.4,1,1`,
/// `#rrggbb` / `#rrggbbaa` (colors, 0…1 components).
enum ArgumentText {
    static func parse(_ text: String) -> [Float]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("#") {
            let hex = Array(trimmed.dropFirst())
            guard hex.count == 6 || hex.count == 8 else { return nil }
            var components: [Float] = []
            for index in stride(from: 0, to: hex.count, by: 2) {
                guard let byte = UInt8(String(hex[index...index + 1]), radix: 16) else { return nil }
                components.append(Float(byte) / 255)
            }
            if components.count == 3 { components.append(1) }
            return components
        }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { Float($0.trimmingCharacters(in: .whitespaces)) }
        return values.count == parts.count && !values.isEmpty && values.allSatisfy({ $0.isFinite }) ? values : nil
    }
}
