/// One layer of a scene: what it draws, where in the stack it sits, and the canonical text
/// of its JSON (the caches compare it to tell whether it changed).
public struct SceneLayer: Hashable, Sendable {
    public enum Slot: String, Hashable, Sendable, CaseIterable {
        case bottom, middle, top
    }

    public enum LineCap: String, Hashable, Sendable { case butt, round, square }
    public enum LineJoin: String, Hashable, Sendable { case bevel, round, miter }

    public enum Kind: Hashable, Sendable {
        case background(color: SceneColor, opacity: Float)
        case raster(source: String, opacity: Float)
        case fill(source: String, color: SceneColor, opacity: Float)
        case line(source: String, color: SceneColor, width: Double, opacity: Float, cap: LineCap, join: LineJoin)
        case circle(source: String, color: SceneColor, radius: Double, opacity: Float)
        /// A vertex + fragment pair; `vertices` names a vertices source whose floats fill
        /// `buffer` (the vertex function's first buffer argument unless named).
        case custom(library: String, vertex: String, fragment: String, vertices: String, buffer: String?,
                    arguments: [String: [Float]])
        /// A distortion, color, layer, shape or fragment function over what lies beneath it
        /// in its slot; `texture2` names an image source for a second texture.
        case effect(library: String, function: String, arguments: [String: [Float]], texture2: String?, time: Float?)

        public var typeName: String {
            switch self {
            case .background: return "background"
            case .raster: return "raster"
            case .fill: return "fill"
            case .line: return "line"
            case .circle: return "circle"
            case .custom: return "custom"
            case .effect: return "effect"
            }
        }

        /// Sources this layer reads.
        var sources: [String] {
            switch self {
            case .background: return []
            case .raster(let source, _), .fill(let source, _, _), .line(let source, _, _, _, _, _),
                 .circle(let source, _, _, _):
                return [source]
            case .custom(_, _, _, let vertices, _, _): return [vertices]
            case .effect(_, _, _, let texture2, _): return texture2.map { [$0] } ?? []
            }
        }

        var library: String? {
            switch self {
            case .custom(let library, _, _, _, _, _), .effect(let library, _, _, _, _): return library
            default: return nil
            }
        }
    }

    public var id: String
    public var slot: Slot?
    public var visible: Bool
    public var kind: Kind
    /// The layer's JSON with sorted keys.
    public var canonical: String

    /// Parses one layer object.
    static func decode(_ node: JSONNode) throws(SceneError) -> SceneLayer {
        let id = try node.required("id").string()
        guard !id.isEmpty else { throw SceneError(path: node.key("id"), "must not be empty") }
        let type = try node.required("type").choice(["background", "raster", "fill", "line", "circle", "custom", "effect"])
        var slot: Slot?
        if let slotNode = try node.optional("slot") {
            slot = Slot(rawValue: try slotNode.choice(Slot.allCases.map(\.rawValue)))
        }
        let visible = try node.optional("visible")?.bool() ?? true
        let common: Set<String> = ["id", "type", "slot", "visible"]
        let paint = try node.optional("paint")
        let layout = try node.optional("layout")
        func paintColor(_ name: String, _ fallback: SceneColor) throws(SceneError) -> SceneColor {
            try paint?.optional(name)?.color() ?? fallback
        }
        func paintNumber(_ name: String, _ fallback: Double, _ range: ClosedRange<Double>) throws(SceneError) -> Double {
            try paint?.optional(name)?.number(in: range) ?? fallback
        }
        func source() throws(SceneError) -> String { try node.required("source").string() }
        let black = SceneColor(0, 0, 0, 1)
        let kind: Kind
        switch type {
        case "background":
            try node.checkKeys(common.union(["paint"]))
            try paint?.checkKeys(["background-color", "background-opacity"])
            kind = .background(color: try paintColor("background-color", black),
                               opacity: Float(try paintNumber("background-opacity", 1, 0...1)))
        case "raster":
            try node.checkKeys(common.union(["paint", "source"]))
            try paint?.checkKeys(["raster-opacity"])
            kind = .raster(source: try source(), opacity: Float(try paintNumber("raster-opacity", 1, 0...1)))
        case "fill":
            try node.checkKeys(common.union(["paint", "source"]))
            try paint?.checkKeys(["fill-color", "fill-opacity"])
            kind = .fill(source: try source(), color: try paintColor("fill-color", black),
                         opacity: Float(try paintNumber("fill-opacity", 1, 0...1)))
        case "line":
            try node.checkKeys(common.union(["paint", "layout", "source"]))
            try paint?.checkKeys(["line-color", "line-width", "line-opacity"])
            try layout?.checkKeys(["line-cap", "line-join"])
            let cap = try layout?.optional("line-cap")?.choice(["butt", "round", "square"]) ?? "butt"
            let join = try layout?.optional("line-join")?.choice(["bevel", "round", "miter"]) ?? "miter"
            kind = .line(source: try source(), color: try paintColor("line-color", black),
                         width: try paintNumber("line-width", 1, 0...1000),
                         opacity: Float(try paintNumber("line-opacity", 1, 0...1)),
                         cap: LineCap(rawValue: cap)!, join: LineJoin(rawValue: join)!)
        case "circle":
            try node.checkKeys(common.union(["paint", "source"]))
            try paint?.checkKeys(["circle-color", "circle-radius", "circle-opacity"])
            kind = .circle(source: try source(), color: try paintColor("circle-color", black),
                           radius: try paintNumber("circle-radius", 5, 0...1000),
                           opacity: Float(try paintNumber("circle-opacity", 1, 0...1)))
        case "custom":
            try node.checkKeys(common.union(["library", "vertex", "fragment", "vertices", "buffer", "arguments"]))
            kind = .custom(library: try node.required("library").string(), vertex: try node.required("vertex").string(),
                           fragment: try node.required("fragment").string(),
                           vertices: try node.required("vertices").string(),
                           buffer: try node.optional("buffer")?.string(),
                           arguments: try decodeArguments(try node.optional("arguments")))
        default:
            try node.checkKeys(common.union(["library", "function", "arguments", "texture2", "time"]))
            kind = .effect(library: try node.required("library").string(), function: try node.required("function").string(),
                           arguments: try decodeArguments(try node.optional("arguments")),
                           texture2: try node.optional("texture2")?.string(),
                           time: try node.optional("time").map { (time: JSONNode) throws(SceneError) -> Float in Float(try time.number()) })
        }
        return SceneLayer(id: id, slot: slot, visible: visible, kind: kind, canonical: node.canonical)
    }

    /// `{"name": 1.5, "tint": [1, 0.5, 0, 1]}` or a colour string `"#rrggbbaa"`.
    static func decodeArguments(_ node: JSONNode?) throws(SceneError) -> [String: [Float]] {
        guard let node else { return [:] }
        var result: [String: [Float]] = [:]
        for (name, value) in try node.members() {
            if let text = value.value as? String, text.hasPrefix("#") {
                let color = try value.color()
                result[name] = [color.r, color.g, color.b, color.a]
            } else {
                result[name] = try value.numbers().map { Float($0) }
            }
        }
        return result
    }
}
