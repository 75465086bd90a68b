/// Parses Kiln's doc-comment extension that describes an entry's arguments for preview UIs:
///
///     /// @arg amplitude 0...20 = 4 "wave height in points"
///     /// @arg tint = 1, 0.5, 0, 1 "a color"
///     /// @arg glow = #ffcc00ff
///
/// Grammar of one line (every part after the name is optional, in this order):
///
///     '@arg' name [number '...' number] ['=' default] ['"' help '"']
///     default := number {',' number} | '#' hex{6 or 8}
///
/// A `#rrggbb[aa]` default becomes four components in 0…1.
enum ArgumentDocParser {
    struct Result {
        var docs: [ArgumentDoc] = []
        /// Messages about malformed `@arg` lines (reported as warnings).
        var problems: [String] = []
    }

    static func parse(_ lines: [String]) -> Result {
        var result = Result()
        for var line in lines {
            // Read in place: most documentation lines are prose, not `@arg`, and copying
            // each into an array of its own was a third of this parse.
            line.withUTF8 { text in
                var scanner = Scanner(text: text)
                scanner.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "*") }
                guard scanner.consume("@arg") else { return }
                switch parseLine(&scanner) {
                case .success(let doc): result.docs.append(doc)
                case .failure(let problem): result.problems.append(problem.message)
                }
            }
        }
        return result
    }

    struct Problem: Error { var message: String }

    /// The rest of an `@arg` line, after the `@arg`.
    private static func parseLine(_ scanner: inout Scanner) -> Swift.Result<ArgumentDoc, Problem> {
        scanner.skipSpaces()
        guard let name = scanner.identifier() else {
            return .failure(Problem(message: "malformed '@arg' line: expected an argument name"))
        }
        var minimum: Double?, maximum: Double?
        var defaultValue: [Double] = []
        var help = ""
        scanner.skipSpaces()
        if let low = scanner.number() {
            scanner.skipSpaces()
            func rangeProblem() -> Problem { Problem(message: "malformed '@arg \(name)': expected a range 'min...max'") }
            guard scanner.consume("...") else { return .failure(rangeProblem()) }
            scanner.skipSpaces()
            guard let high = scanner.number() else { return .failure(rangeProblem()) }
            minimum = low
            maximum = high
            scanner.skipSpaces()
        }
        if scanner.consume("=") {
            scanner.skipSpaces()
            if scanner.consume("#") {
                guard let color = scanner.hexColor() else {
                    return .failure(Problem(message: "malformed '@arg \(name)': expected a color '#rrggbb' or '#rrggbbaa'"))
                }
                defaultValue = color
            } else {
                repeat {
                    scanner.skipSpaces()
                    guard let value = scanner.number() else {
                        return .failure(Problem(message: "malformed '@arg \(name)': expected a default value after '='"))
                    }
                    defaultValue.append(value)
                    scanner.skipSpaces()
                } while scanner.consume(",")
            }
            scanner.skipSpaces()
        }
        if scanner.consume("\"") {
            guard let text = scanner.until(UInt8(ascii: "\"")) else {
                return .failure(Problem(message: "malformed '@arg \(name)': unterminated help string"))
            }
            help = text
            scanner.skipSpaces()
        }
        guard scanner.atEnd else {
            return .failure(Problem(message: "malformed '@arg \(name)': unexpected text '\(scanner.rest)'"))
        }
        if let low = minimum, let high = maximum, low > high {
            return .failure(Problem(message: "malformed '@arg \(name)': range \(low)...\(high) is empty"))
        }
        return .success(ArgumentDoc(name: name, minimum: minimum, maximum: maximum, defaultValue: defaultValue, help: help))
    }

    /// A byte cursor over one line.
    private struct Scanner {
        let text: UnsafeBufferPointer<UInt8>
        var position = 0

        var atEnd: Bool { position >= text.count }
        var rest: String { String(decoding: text[position...], as: UTF8.self) }

        mutating func skipSpaces() {
            skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        }

        mutating func skip(while matches: (UInt8) -> Bool) {
            while position < text.count, matches(text[position]) { position += 1 }
        }

        /// Byte by byte against a literal: no arrays made (the line's `@arg` and every
        /// separator go through here).
        mutating func consume(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard position + count <= text.count else { return false }
            for offset in 0..<count where text[position + offset] != literal.utf8Start[offset] { return false }
            position += count
            return true
        }

        mutating func identifier() -> String? {
            let start = position
            while position < text.count {
                let c = text[position]
                let isLetter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95
                let isDigit = c >= 48 && c <= 57
                guard isLetter || (isDigit && position > start) else { break }
                position += 1
            }
            return position > start ? String(decoding: text[start..<position], as: UTF8.self) : nil
        }

        /// A decimal number: optional sign, digits, optional fraction and exponent. Stops before `...`.
        mutating func number() -> Double? {
            let start = position
            if position < text.count, text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+") { position += 1 }
            var digits = 0
            func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
            while position < text.count, isDigit(text[position]) { position += 1; digits += 1 }
            // A '.' starts a fraction unless it begins the range operator '...'.
            if position < text.count, text[position] == UInt8(ascii: "."),
               !(position + 1 < text.count && text[position + 1] == UInt8(ascii: ".")) {
                position += 1
                while position < text.count, isDigit(text[position]) { position += 1; digits += 1 }
            }
            if digits > 0, position < text.count, text[position] == UInt8(ascii: "e") || text[position] == UInt8(ascii: "E") {
                var p = position + 1
                if p < text.count, text[p] == UInt8(ascii: "-") || text[p] == UInt8(ascii: "+") { p += 1 }
                if p < text.count, isDigit(text[p]) {
                    position = p
                    while position < text.count, isDigit(text[position]) { position += 1 }
                }
            }
            guard digits > 0 else {
                position = start
                return nil
            }
            // Most defaults and bounds (`0.5`, `20`, `-1`) are exact in one IEEE operation,
            // the literals' own fast path; `Double(String)` (strtod) for the rest cost
            // ~3 000 instructions a number, 1 % of compiling a shader with four `@arg` lines.
            let negative = text[start] == UInt8(ascii: "-")
            let bodyStart = text[start] == UInt8(ascii: "-") || text[start] == UInt8(ascii: "+") ? start + 1 : start
            let exact = NumericLiteral.exactDecimal(UnsafeBufferPointer(rebasing: text[bodyStart..<position]))
            if let exact { return negative ? -exact : exact }
            guard let value = Double(String(decoding: text[start..<position], as: UTF8.self)) else {
                position = start
                return nil
            }
            return value
        }

        mutating func hexColor() -> [Double]? {
            let start = position
            while position < text.count, hexValue(text[position]) != nil { position += 1 }
            let digits = text[start..<position].compactMap(hexValue)
            guard digits.count == 6 || digits.count == 8 else { return nil }
            var components: [Double] = []
            for i in stride(from: 0, to: digits.count, by: 2) {
                components.append(Double(digits[i] * 16 + digits[i + 1]) / 255)
            }
            if components.count == 3 { components.append(1) }
            return components
        }

        private func hexValue(_ c: UInt8) -> Int? {
            switch c {
            case 48...57: return Int(c) - 48
            case 97...102: return Int(c) - 87
            case 65...70: return Int(c) - 55
            default: return nil
            }
        }

        mutating func until(_ terminator: UInt8) -> String? {
            let start = position
            while position < text.count, text[position] != terminator { position += 1 }
            guard position < text.count else { return nil }
            let value = String(decoding: text[start..<position], as: UTF8.self)
            position += 1
            return value
        }
    }
}
