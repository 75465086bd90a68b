import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage

/// The JSON description of a compile, shared by `kiln compile --json`, the server's
/// `POST /compile?format=json` and its live-protocol `compiled` message:
///
///     {"ok": true/false, "diagnostics": [...],            // language.md §8 objects
///      "functions": [{"name", "kind", "returnType", "arguments": [{"name", "type",
///                     "binding", ("word" | "slot" | "countWord"), "min", "max",
///                     "default", "help"}], "registers", "instructions"}],
///      "library": {"bytes": N, "sha256": ["<hex>", ...], "sources": ["wave.metal", ...]}
///                                         // null when compilation failed
///     }
///
/// `library.sha256` lists the SHA-256 of each source file in `library.sources` order,
/// as recorded in the library's provenance; the compile cache keys on them.
public enum CompileReport {
    /// The report as JSON text.
    public static func json(result: CompileResult, libraryBytes: [UInt8]?) -> String {
        JSONText.serialize(object(result: result, libraryBytes: libraryBytes))
    }

    /// The report as Foundation objects, for callers that add fields of their own.
    public static func object(result: CompileResult, libraryBytes: [UInt8]?) -> [String: Any] {
        var object: [String: Any] = ["ok": result.library != nil]
        object["diagnostics"] = diagnosticsObject(result)
        if let library = result.library {
            object["functions"] = library.functions.map(functionObject)
            object["library"] = [
                "bytes": libraryBytes?.count ?? 0,
                "sha256": library.sources.map { SHA256Digest.hex($0.sha256) },
                "sources": library.sources.map(\.name),
            ] as [String: Any]
        } else {
            object["functions"] = [Any]()
            object["library"] = NSNull()
        }
        return object
    }

    /// The renderer's diagnostics JSON, parsed back so it nests as an array, not a string.
    public static func diagnosticsObject(_ result: CompileResult) -> Any {
        let text = DiagnosticRenderer.json(result.diagnostics, files: result.files)
        guard let data = text.data(using: .utf8),
              let array = try? JSONSerialization.jsonObject(with: data) else {
            return [Any]()
        }
        return array
    }

    public static func functionObject(_ function: Function) -> [String: Any] {
        [
            "name": function.name,
            "kind": function.kind.name,
            "returnType": function.returnTypeName,
            "arguments": function.parameters.map(argumentObject),
            "registers": Int(function.registerCount),
            "instructions": function.instructionCount,
        ]
    }

    public static func argumentObject(_ parameter: Parameter) -> [String: Any] {
        var object: [String: Any] = [
            "name": parameter.name,
            "type": parameter.typeName,
            "binding": bindingName(parameter.binding),
        ]
        switch parameter.binding {
        case .uniform(let word):
            object["word"] = Int(word)
        case .buffer(let slot, let countWord):
            object["slot"] = Int(slot)
            if let countWord { object["countWord"] = Int(countWord) }
        case .texture(let slot):
            object["slot"] = Int(slot)
        default:
            break
        }
        let annotation = parameter.annotation
        object["min"] = annotation?.minimum.map(JSONText.number) ?? NSNull()
        object["max"] = annotation?.maximum.map(JSONText.number) ?? NSNull()
        object["default"] = (annotation?.defaultValue ?? []).map(JSONText.number)
        object["help"] = annotation?.help ?? ""
        // What the preview fills in when the user gives nothing (`AutomaticArgument`).
        object["auto"] = parameter.automatic?.rawValue ?? NSNull()
        return object
    }

    /// The binding's name in JSON (snake_case like the attributes it comes from).
    public static func bindingName(_ binding: Binding) -> String {
        switch binding {
        case .position: "position"
        case .color: "color"
        case .layer: "layer"
        case .uniform: "uniform"
        case .buffer: "buffer"
        case .texture: "texture"
        case .sampler: "sampler"
        case .stageIn: "stage_in"
        case .vertexID: "vertex_id"
        case .instanceID: "instance_id"
        case .outputTexture: "output_texture"
        case .threadPosition: "thread_position"
        }
    }
}

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
