import KilnBytecode
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
    /// The report as JSON text (one line).
    public static func json(result: CompileResult, libraryBytes: [UInt8]?) -> String {
        value(result: result, libraryBytes: libraryBytes).serialized
    }

    /// The report as a JSON value; the server adds fields of its own to its object
    /// (`CompileReport.object` in KilnJSON).
    public static func value(result: CompileResult, libraryBytes: [UInt8]?) -> JSONValue {
        var object: [String: JSONValue] = ["ok": .bool(result.library != nil)]
        object["diagnostics"] = .text(DiagnosticRenderer.json(result.diagnostics, files: result.files))
        if let library = result.library {
            object["functions"] = .array(library.functions.map(functionValue))
            object["library"] = .object([
                "bytes": .int(libraryBytes?.count ?? 0),
                "sha256": .array(library.sources.map { .string(SHA256Digest.hex($0.sha256)) }),
                "sources": .array(library.sources.map { .string($0.name) }),
            ])
        } else {
            object["functions"] = .array([])
            object["library"] = .null
        }
        return .object(object)
    }

    static func functionValue(_ function: Function) -> JSONValue {
        .object([
            "name": .string(function.name),
            "kind": .string(function.kind.name),
            "returnType": .string(function.returnTypeName),
            "arguments": .array(function.parameters.map(argumentValue)),
            "registers": .int(Int(function.registerCount)),
            "instructions": .int(function.instructionCount),
        ])
    }

    static func argumentValue(_ parameter: Parameter) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(parameter.name),
            "type": .string(parameter.typeName),
            "binding": .string(bindingName(parameter.binding)),
        ]
        switch parameter.binding {
        case .uniform(let word):
            object["word"] = .int(Int(word))
        case .buffer(let slot, let countWord):
            object["slot"] = .int(Int(slot))
            if let countWord { object["countWord"] = .int(Int(countWord)) }
        case .texture(let slot):
            object["slot"] = .int(Int(slot))
        default:
            break
        }
        let annotation = parameter.annotation
        object["min"] = annotation?.minimum.map(JSONValue.float) ?? .null
        object["max"] = annotation?.maximum.map(JSONValue.float) ?? .null
        object["default"] = .array((annotation?.defaultValue ?? []).map(JSONValue.float))
        object["help"] = .string(annotation?.help ?? "")
        // What the preview fills in when the user gives nothing (`AutomaticArgument`).
        object["auto"] = parameter.automatic.map { .string($0.rawValue) } ?? .null
        return .object(object)
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
