import Foundation
import KilnCompiler

extension CompileReport {
    /// The report as Foundation objects, for the server, which adds fields of its own
    /// (`CompileReport.value` is the report; this is its Foundation form).
    public static func object(result: CompileResult, libraryBytes: [UInt8]?) -> [String: Any] {
        value(result: result, libraryBytes: libraryBytes).foundationObject as? [String: Any] ?? [:]
    }
}

extension JSONValue {
    /// The value as the objects `JSONSerialization` and `CompactJSON` write: dictionaries,
    /// arrays, `String`, `Bool`, `Int`, `Double`, `NSNull`; a nested JSON text is parsed.
    public var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .int(let value): return value
        case .number(let value): return value.isFinite ? value : NSNull()
        case .string(let value): return value
        case .array(let elements): return elements.map(\.foundationObject)
        case .object(let members): return members.mapValues(\.foundationObject)
        case .text(let json):
            return (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) ?? NSNull()
        }
    }
}
