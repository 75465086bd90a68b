import Foundation
import KilnBytecode
import KilnVM

/// Golden-image tests for shader authors (`kiln test DIR`, `POST /check`): render every
/// case a small manifest lists and compare it with a stored golden image, byte for byte up
/// to a tolerance. The goldens are PNGs holding the *premultiplied* RGBA8 bytes the
/// renderer produced (what `kiln render --premultiplied` writes), so a comparison never
/// loses precision to alpha.
///
/// The manifest (`kiln-test.json`, docs/cli.md):
///
/// ```json
/// { "tolerance": 1,
///   "cases": [ { "name": "ripple-small", "shader": "ripple.metal", "function": "ripple",
///                "size": [128, 128], "content": "photo", "time": 0.5,
///                "args": { "origin": [64, 64] }, "tolerance": 2, "maxDifferentPixels": 0 } ] }
/// ```
public enum GoldenCheck {
    /// One case of a manifest.
    public struct Case: Sendable, Equatable {
        public var name: String
        public var shader: String
        public var function: String?
        public var width: Int
        public var height: Int
        public var content: String
        public var content2: String
        public var time: Float?
        public var arguments: [String: [Float]]
        /// Largest allowed difference of any channel (0–255).
        public var tolerance: Int
        /// Pixels allowed over the tolerance.
        public var maxDifferentPixels: Int
    }

    /// Limits on what a manifest may ask for (a `POST /check` is untrusted input).
    public struct Limits: Sendable {
        public var maxCases = 256
        public var maxSide = 2048
        public init() {}
    }

    /// Reads a manifest; every error names the field (`cases[2].size`).
    public static func cases(fromJSON data: Data, limits: Limits = Limits()) throws(RenderError) -> [Case] {
        guard let object = try? JSONSerialization.jsonObject(with: data), let manifest = object as? [String: Any] else {
            throw RenderError("the manifest is not a JSON object")
        }
        func number(_ value: Any?, _ path: String) throws(RenderError) -> Double? {
            guard let value, !(value is NSNull) else { return nil }
            guard let number = value as? NSNumber, number.doubleValue.isFinite else { throw RenderError("\(path) must be a number") }
            return number.doubleValue
        }
        func count(_ value: Any?, _ path: String, default fallback: Int, max: Int) throws(RenderError) -> Int {
            guard let double = try number(value, path) else { return fallback }
            guard double.rounded() == double, double >= 0, double <= Double(max) else {
                throw RenderError("\(path) must be a whole number in 0...\(max)")
            }
            return Int(double)
        }
        let tolerance = try count(manifest["tolerance"], "tolerance", default: 0, max: 255)
        let maxDifferent = try count(manifest["maxDifferentPixels"], "maxDifferentPixels", default: 0, max: Int(Int32.max))
        guard let list = manifest["cases"] as? [Any] else { throw RenderError("the manifest needs \"cases\": [ … ]") }
        guard list.count <= limits.maxCases else {
            throw RenderError("\(list.count) cases, more than the limit of \(limits.maxCases) (GoldenCheck.Limits.maxCases)")
        }
        var cases: [Case] = []
        var names = Set<String>()
        for (index, entry) in list.enumerated() {
            let path = "cases[\(index)]"
            guard let item = entry as? [String: Any] else { throw RenderError("\(path) must be an object") }
            guard let name = item["name"] as? String, !name.isEmpty,
                  name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }), !name.hasPrefix(".") else {
                throw RenderError("\(path).name must be a non-empty file name (letters, digits, - _ .)")
            }
            guard names.insert(name).inserted else { throw RenderError("\(path).name \"\(name)\" is used twice") }
            guard let shader = item["shader"] as? String, !shader.isEmpty else { throw RenderError("\(path).shader must name a shader file") }
            var width = 256, height = 256
            if let size = item["size"] {
                guard let pair = size as? [Any], pair.count == 2 else { throw RenderError("\(path).size must be [width, height]") }
                width = try count(pair[0], "\(path).size[0]", default: 256, max: limits.maxSide)
                height = try count(pair[1], "\(path).size[1]", default: 256, max: limits.maxSide)
                guard width > 0, height > 0 else { throw RenderError("\(path).size must be positive") }
            }
            var arguments: [String: [Float]] = [:]
            if let args = item["args"] {
                guard let dictionary = args as? [String: Any] else { throw RenderError("\(path).args must be an object") }
                for (key, value) in dictionary {
                    if let number = value as? NSNumber, number.doubleValue.isFinite {
                        arguments[key] = [number.floatValue]
                    } else if let array = value as? [Any], !array.isEmpty,
                              case let numbers = array.compactMap({ ($0 as? NSNumber)?.floatValue }), numbers.count == array.count,
                              numbers.allSatisfy({ $0.isFinite }) {
                        arguments[key] = numbers
                    } else {
                        throw RenderError("\(path).args.\(key) must be a number or an array of numbers")
                    }
                }
            }
            func text(_ key: String, default fallback: String) throws(RenderError) -> String {
                guard let value = item[key], !(value is NSNull) else { return fallback }
                guard let string = value as? String else { throw RenderError("\(path).\(key) must be a string") }
                return string
            }
            cases.append(Case(
                name: name, shader: shader, function: try text("function", default: "").nilIfEmpty,
                width: width, height: height, content: try text("content", default: "photo"),
                content2: try text("content2", default: "checker"), time: try number(item["time"], "\(path).time").map(Float.init),
                arguments: arguments, tolerance: try count(item["tolerance"], "\(path).tolerance", default: tolerance, max: 255),
                maxDifferentPixels: try count(item["maxDifferentPixels"], "\(path).maxDifferentPixels", default: maxDifferent,
                                              max: Int(Int32.max))))
        }
        return cases
    }

    /// How a rendered image compares with its golden.
    public struct Comparison: Sendable {
        /// Largest difference of any channel.
        public var maxDifference: Int
        /// Pixels with some channel over the tolerance.
        public var differentPixels: Int
        public var passed: Bool
        /// Per pixel, the largest channel difference on the heatmap colour scale (opaque);
        /// nil when the sizes differ.
        public var diff: RGBAImage?
        /// Why it failed, for a person.
        public var reason: String?
    }

    public static func compare(_ actual: RGBAImage, golden: RGBAImage, tolerance: Int, maxDifferentPixels: Int) -> Comparison {
        guard actual.width == golden.width, actual.height == golden.height else {
            return Comparison(maxDifference: 255, differentPixels: actual.width * actual.height, passed: false, diff: nil,
                              reason: "the golden is \(golden.width)×\(golden.height), the render \(actual.width)×\(actual.height)")
        }
        var maxDifference = 0, different = 0
        var diff = [UInt8](repeating: 255, count: actual.bytes.count)
        for pixel in 0..<actual.width * actual.height {
            var largest = 0
            for channel in 0..<4 {
                let d = abs(Int(actual.bytes[pixel * 4 + channel]) - Int(golden.bytes[pixel * 4 + channel]))
                largest = max(largest, d)
            }
            maxDifference = max(maxDifference, largest)
            if largest > tolerance { different += 1 }
            // Differences within the tolerance stay dark; the rest is scaled to the scale's top.
            let colour = CostHeatmap.colour(largest > tolerance ? 0.35 + 0.65 * Double(largest) / 255 : Double(largest) / 255 * 0.3)
            (diff[pixel * 4], diff[pixel * 4 + 1], diff[pixel * 4 + 2]) = colour
        }
        let passed = different <= maxDifferentPixels
        return Comparison(maxDifference: maxDifference, differentPixels: different, passed: passed,
                          diff: RGBAImage(width: actual.width, height: actual.height, bytes: diff),
                          reason: passed ? nil : "\(different) pixels differ by more than \(tolerance) (at most \(maxDifference); \(maxDifferentPixels) allowed)")
    }

    /// Renders `testCase` from `library` with the built-in (or given) content.
    public static func render(_ testCase: Case, library: Library, content: Texture? = nil, content2: Texture? = nil,
                              threads: Int = 0, limits: RenderLimits = .default) throws(RenderError) -> RGBAImage {
        // Without a name: a vertex function (drawn with its fragment function), else the first.
        let vertex = library.functions.first { $0.kind == .vertex }
        guard let function = testCase.function ?? vertex?.name ?? library.functions.first?.name else {
            throw RenderError("\(testCase.name): the library has no function to render")
        }
        func builtin(_ name: String) throws(RenderError) -> Texture {
            guard let texture = BuiltinContent.make(name, width: testCase.width, height: testCase.height) else {
                throw RenderError("\(testCase.name): unknown content '\(name)' (\(BuiltinContent.names.joined(separator: ", ")))")
            }
            return texture
        }
        var first: Texture, second: Texture
        if let content { first = content } else { first = try builtin(testCase.content) }
        if let content2 { second = content2 } else { second = try builtin(testCase.content2) }
        let request = RenderRequest(library: library, functionName: function, width: testCase.width, height: testCase.height,
                                    content: first, content2: second,
                                    arguments: testCase.arguments, time: testCase.time, threads: threads, limits: limits)
        return try Renderer.render(request)
    }
}

extension GoldenCheck {
    /// Checks every case against `goldens` (PNG bytes by case name) — the core of `POST
    /// /check` — and returns one result object per case: `name`, `result` (`pass`, `FAIL`),
    /// `maxDifference`, `differentPixels`, and for failures `note`, `actual` and `diff`
    /// (base64 PNGs of the premultiplied render and of the difference heatmap).
    public static func check(_ cases: [Case], library: (String) throws -> Library, goldens: [String: [UInt8]],
                             limits: RenderLimits) -> [[String: Any]] {
        cases.map { testCase in
            var record: [String: Any] = ["name": testCase.name, "result": "FAIL", "maxDifference": 0, "differentPixels": 0]
            do {
                let image = try render(testCase, library: try library(testCase.shader), threads: 1, limits: limits)
                guard let bytes = goldens[testCase.name] else {
                    record["note"] = "no golden image for \(testCase.name)"
                    record["actual"] = Data(try PNG.encode(image)).base64EncodedString()
                    return record
                }
                let golden = try PNG.decode(bytes, limits: limits)
                let comparison = compare(image, golden: golden, tolerance: testCase.tolerance,
                                         maxDifferentPixels: testCase.maxDifferentPixels)
                record["maxDifference"] = comparison.maxDifference
                record["differentPixels"] = comparison.differentPixels
                if comparison.passed {
                    record["result"] = "pass"
                } else {
                    record["note"] = comparison.reason
                    record["actual"] = Data(try PNG.encode(image)).base64EncodedString()
                    if let diff = comparison.diff { record["diff"] = Data(try PNG.encode(diff)).base64EncodedString() }
                }
            } catch let error as RenderError {
                record["note"] = error.message
            } catch {
                record["note"] = "\(error)"
            }
            return record
        }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
