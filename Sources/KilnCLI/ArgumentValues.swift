import KilnCompileTool
/// Parses `--arg name=value` options into component lists by argument name.
///
/// Accepted values:
/// - a number: `1.5`, `-2`, `1e-3` → one component (float, half, int, uint arguments);
/// - numbers separated by commas: `0.2,0.4,1,1` → a vector, a color, or the elements of a
///   `device const float *` array argument (whose `int` count is then filled in);
/// - a hex color: `#rrggbb` or `#rrggbbaa` → four components in 0…1 (alpha 1 if omitted),
///   taken as given (not premultiplied by the command line).
enum ArgumentValues {
    /// Most components one `--arg` may carry (a float array of this many elements).
    static let maxComponents = 1 << 16

    /// Parses every `name=value` option; a name given twice is an error.
    static func parse(_ options: [String]) throws -> [String: [Float]] {
        var values: [String: [Float]] = [:]
        for option in options {
            guard let equals = option.firstIndex(of: "=") else {
                throw CommandFailure("invalid --arg '\(option)': expected NAME=VALUE, e.g. amplitude=4")
            }
            let name = String(option[..<equals]).trimmingSpaces
            let text = String(option[option.index(after: equals)...]).trimmingSpaces
            guard !name.isEmpty else {
                throw CommandFailure("invalid --arg '\(option)': the argument name is missing")
            }
            guard values[name] == nil else {
                throw CommandFailure("--arg \(name) is given more than once")
            }
            values[name] = try parseValue(text, name: name)
        }
        return values
    }

    /// Parses one value (see the type's documentation for the forms).
    static func parseValue(_ text: String, name: String) throws -> [Float] {
        guard !text.isEmpty else { throw CommandFailure("--arg \(name): the value is missing") }
        if text.hasPrefix("#") {
            guard let color = hexColor(text.dropFirst()) else {
                throw CommandFailure("--arg \(name): invalid color '\(text)': expected #rrggbb or #rrggbbaa")
            }
            return color
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= maxComponents else {
            throw CommandFailure("--arg \(name): too many values (limit \(maxComponents))")
        }
        return try parts.map { part in
            let trimmed = String(part).trimmingSpaces
            guard let value = Float(trimmed), value.isFinite else {
                throw CommandFailure("--arg \(name): '\(trimmed)' is not a number")
            }
            return value
        }
    }

    /// `rrggbb` or `rrggbbaa` as four components in 0…1.
    static func hexColor(_ digits: Substring) -> [Float]? {
        guard digits.count == 6 || digits.count == 8 else { return nil }
        var components: [Float] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            components.append(Float(byte) / 255)
            index = next
        }
        if components.count == 3 { components.append(1) }
        return components
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
