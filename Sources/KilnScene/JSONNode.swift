import Foundation

/// A value of a parsed JSON document together with its path, so every accessor can throw
/// an error that names where in the document the problem is.
struct JSONNode {
    /// A Foundation JSON value: `[String: Any]`, `[Any]`, `String`, `NSNumber`, `NSNull`.
    let value: Any
    /// `layers[2].paint.fill-color`; empty for the root.
    let path: String

    /// Parses `data` as a JSON document.
    static func parse(_ data: [UInt8]) throws(SceneError) -> JSONNode {
        do {
            return JSONNode(value: try JSONSerialization.jsonObject(with: Data(data), options: [.fragmentsAllowed]), path: "")
        } catch {
            throw SceneError(path: "", "not valid JSON: \(error.localizedDescription)")
        }
    }

    func error(_ message: String) -> SceneError { SceneError(path: path, message) }

    func key(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    /// The members of an object.
    func object() throws(SceneError) -> [String: Any] {
        guard let object = value as? [String: Any] else { throw error("expected an object, got \(kindName)") }
        return object
    }

    /// Member `name`, or nil when it is absent (or null).
    func optional(_ name: String) throws(SceneError) -> JSONNode? {
        let members = try object()
        guard let member = members[name], !(member is NSNull) else { return nil }
        return JSONNode(value: member, path: key(name))
    }

    /// Member `name`; an error naming it when it is absent.
    func required(_ name: String) throws(SceneError) -> JSONNode {
        guard let member = try optional(name) else { throw SceneError(path: key(name), "required") }
        return member
    }

    /// Rejects members not in `known` (a typo in a property name should not pass silently).
    func checkKeys(_ known: Set<String>) throws(SceneError) {
        for name in try object().keys.sorted() where !known.contains(name) {
            throw SceneError(path: key(name), "unknown property (expected one of: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// The members of an object as nodes, in key order (JSON objects are unordered).
    func members() throws(SceneError) -> [(String, JSONNode)] {
        let members = try object()
        return members.keys.sorted().compactMap { name in members[name].map { (name, JSONNode(value: $0, path: key(name))) } }
    }

    func array() throws(SceneError) -> [JSONNode] {
        guard let array = value as? [Any] else { throw error("expected an array, got \(kindName)") }
        return array.enumerated().map { JSONNode(value: $0.element, path: "\(path)[\($0.offset)]") }
    }

    func string() throws(SceneError) -> String {
        guard let text = value as? String else { throw error("expected a string, got \(kindName)") }
        return text
    }

    /// One of `choices`.
    func choice(_ choices: [String]) throws(SceneError) -> String {
        let text = try string()
        guard choices.contains(text) else {
            throw error("expected one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), got \"\(text)\"")
        }
        return text
    }

    var isBool: Bool {
        guard let number = value as? NSNumber else { return false }
        return Self.isBoolean(number)
    }

    /// JSONSerialization gives numbers and booleans both as NSNumber; a boolean reports
    /// the `c` (char) objCType on Darwin and Linux alike, and JSON has no 8-bit integers.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    func number() throws(SceneError) -> Double {
        guard let number = value as? NSNumber, !isBool else { throw error("expected a number, got \(kindName)") }
        let result = number.doubleValue
        guard result.isFinite else { throw error("expected a finite number") }
        return result
    }

    func number(in range: ClosedRange<Double>) throws(SceneError) -> Double {
        let result = try number()
        guard range.contains(result) else { throw error("expected a number in \(range.lowerBound)...\(range.upperBound), got \(result)") }
        return result
    }

    /// A whole number in `range`.
    func integer(in range: ClosedRange<Int>) throws(SceneError) -> Int {
        let result = try number()
        guard result.rounded() == result, result >= Double(range.lowerBound), result <= Double(range.upperBound) else {
            throw error("expected a whole number in \(range.lowerBound)...\(range.upperBound), got \(result)")
        }
        return Int(result)
    }

    func bool() throws(SceneError) -> Bool {
        guard let number = value as? NSNumber, isBool else { throw error("expected true or false, got \(kindName)") }
        return number.boolValue
    }

    /// A number or an array of numbers.
    func numbers() throws(SceneError) -> [Double] {
        if value is NSNumber { return [try number()] }
        var result: [Double] = []
        for element in try array() { result.append(try element.number()) }
        return result
    }

    /// A colour: `"#rgb"`, `"#rrggbb"`, `"#rrggbbaa"`, or `[r, g, b]` / `[r, g, b, a]` in 0…1.
    /// Straight (not premultiplied) alpha.
    func color() throws(SceneError) -> SceneColor {
        if let text = value as? String, text.hasPrefix("#") {
            let hex = Array(text.dropFirst())
            let digits = hex.compactMap { $0.hexDigitValue }
            guard digits.count == hex.count else { throw error("expected a colour, got \"\(text)\"") }
            switch digits.count {
            case 3: return SceneColor(Float(digits[0]) / 15, Float(digits[1]) / 15, Float(digits[2]) / 15, 1)
            case 6, 8:
                let bytes = stride(from: 0, to: digits.count, by: 2).map { Float(digits[$0] * 16 + digits[$0 + 1]) / 255 }
                return SceneColor(bytes[0], bytes[1], bytes[2], bytes.count == 4 ? bytes[3] : 1)
            default: throw error("expected a colour, got \"\(text)\"")
            }
        }
        if let array = value as? [Any], array.count == 3 || array.count == 4 {
            var components: [Float] = []
            for element in try self.array() { components.append(Float(try element.number(in: 0...1))) }
            return SceneColor(components[0], components[1], components[2], components.count == 4 ? components[3] : 1)
        }
        throw error("expected a colour (\"#rrggbb\", \"#rrggbbaa\" or [r, g, b, a] in 0...1), got \(kindName)")
    }

    /// Canonical text of this value (sorted keys): the fingerprint caches compare.
    var canonical: String {
        guard JSONSerialization.isValidJSONObject([value]),
              let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]) else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }

    /// This value as JSON text with sorted keys.
    var text: String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    var kindName: String {
        switch value {
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case is NSNull: return "null"
        case let number as NSNumber: return Self.isBoolean(number) ? "a boolean" : "a number"
        default: return "an unknown value"
        }
    }
}

/// A straight-alpha RGBA colour, components 0…1.
public struct SceneColor: Hashable, Sendable {
    public var r: Float
    public var g: Float
    public var b: Float
    public var a: Float

    public init(_ r: Float, _ g: Float, _ b: Float, _ a: Float = 1) {
        (self.r, self.g, self.b, self.a) = (r, g, b, a)
    }

    /// Premultiplied by its alpha times `opacity`.
    public func premultiplied(opacity: Float = 1) -> (r: Float, g: Float, b: Float, a: Float) {
        let alpha = a * min(max(opacity, 0), 1)
        return (r * alpha, g * alpha, b * alpha, alpha)
    }
}
