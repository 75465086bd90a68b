import Foundation

/// A scene: a frame size, a camera, named sources, shader libraries and layer groups, and
/// the ordered root layer list (docs/scenes.md).
public struct SceneDocument: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var camera: SceneCamera
    public var sources: [String: SceneSource]
    public var libraries: [String: SceneLibrary]
    /// Named layer lists whose outputs image sources (`{"type": "image", "group": …}`) show.
    public var groups: [String: [SceneLayer]]
    public var layers: [SceneLayer]
    /// Canonical JSON of each source, by name (for cache fingerprints).
    var sourceText: [String: String]
    var cameraText: String
    /// The whole document as JSON (sorted keys): runtime edits change it and decode again.
    public internal(set) var json: String

    /// Where a library's shader text comes from.
    public enum SceneLibrary: Hashable, Sendable {
        /// A `.metal` file, relative to the scene file's folder.
        case path(String)
        /// Shader text in the document.
        case source(String)
    }

    /// Parses and checks a scene document: every error names its JSON path.
    public static func decode(_ bytes: [UInt8], limits: SceneLimits = .default) throws(SceneError) -> SceneDocument {
        try decode(JSONNode.parse(bytes), limits: limits)
    }

    static func decode(_ root: JSONNode, limits: SceneLimits) throws(SceneError) -> SceneDocument {
        try root.checkKeys(["width", "height", "camera", "sources", "libraries", "groups", "layers"])
        let size = 1...limits.maxDimension
        let width = try root.optional("width")?.integer(in: size) ?? 256
        let height = try root.optional("height")?.integer(in: size) ?? 256
        let cameraNode = try root.optional("camera")
        let camera = try cameraNode.map { (node: JSONNode) throws(SceneError) -> SceneCamera in try SceneCamera.decode(node) } ?? .pixel

        var sources: [String: SceneSource] = [:], sourceText: [String: String] = [:]
        for (name, node) in try root.optional("sources")?.members() ?? [] {
            sources[name] = try SceneSource.decode(node, camera: camera, limits: limits)
            sourceText[name] = node.canonical
        }
        var libraries: [String: SceneLibrary] = [:]
        for (name, node) in try root.optional("libraries")?.members() ?? [] {
            try node.checkKeys(["path", "source"])
            if let path = try node.optional("path") {
                libraries[name] = .path(try path.string())
            } else if let source = try node.optional("source") {
                libraries[name] = .source(try source.string())
            } else {
                throw node.error("a library takes a path or a source")
            }
        }
        var count = 0
        var ids: Set<String> = []
        func layerList(_ node: JSONNode) throws(SceneError) -> [SceneLayer] {
            var result: [SceneLayer] = []
            for element in try node.array() {
                count += 1
                guard count <= limits.maxLayers else { throw element.error("more than maxLayers = \(limits.maxLayers) layers") }
                let layer = try SceneLayer.decode(element)
                guard ids.insert(layer.id).inserted else {
                    throw SceneError(path: element.key("id"), "duplicate layer id \"\(layer.id)\"")
                }
                try check(layer, at: element, sources: sources, libraries: libraries)
                result.append(layer)
            }
            return result
        }
        var groups: [String: [SceneLayer]] = [:]
        for (name, node) in try root.optional("groups")?.members() ?? [] {
            try node.checkKeys(["layers"])
            let layersNode = try node.required("layers")
            groups[name] = try layerList(layersNode)
        }
        let layersNode = try root.optional("layers")
        let layers = try layersNode.map { (node: JSONNode) throws(SceneError) -> [SceneLayer] in try layerList(node) } ?? []

        // Every group an image source names must exist; groups must not depend on themselves.
        for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
            if let group = source.group, groups[group] == nil {
                throw SceneError(path: "sources.\(name).group", "unknown layer group \"\(group)\"")
            }
        }
        for name in groups.keys.sorted() {
            var trail: [String] = []
            try findCycle(from: name, groups: groups, sources: sources, trail: &trail)
        }
        return SceneDocument(width: width, height: height, camera: camera, sources: sources, libraries: libraries,
                             groups: groups, layers: layers, sourceText: sourceText,
                             cameraText: cameraNode?.canonical ?? "pixel", json: root.text)
    }

    /// The groups a layer list reads through image sources.
    static func groupDependencies(_ layers: [SceneLayer], sources: [String: SceneSource]) -> [(layer: Int, group: String)] {
        var result: [(Int, String)] = []
        for (index, layer) in layers.enumerated() {
            for name in layer.kind.sources { if let group = sources[name]?.group { result.append((index, group)) } }
        }
        return result
    }

    /// Depth-first walk of the groups `group` shows; a group met again on the current
    /// trail closes a cycle, reported at the layer that reads it.
    private static func findCycle(from group: String, groups: [String: [SceneLayer]], sources: [String: SceneSource],
                                  trail: inout [String]) throws(SceneError) {
        if let start = trail.firstIndex(of: group) {
            let cycle = (trail[start...] + [group]).joined(separator: " → ")
            let owner = trail.last!
            let index = groupDependencies(groups[owner] ?? [], sources: sources).first { $0.group == group }?.layer ?? 0
            throw SceneError(path: "groups.\(owner).layers[\(index)]", "cycle between layer groups: \(cycle)")
        }
        trail.append(group)
        for dependency in groupDependencies(groups[group] ?? [], sources: sources) {
            try findCycle(from: dependency.group, groups: groups, sources: sources, trail: &trail)
        }
        trail.removeLast()
    }

    /// Checks that a layer's sources exist and are of the kind it draws, and its library exists.
    private static func check(_ layer: SceneLayer, at node: JSONNode, sources: [String: SceneSource],
                              libraries: [String: SceneLibrary]) throws(SceneError) {
        func source(_ key: String, _ name: String, expected: String, _ matches: (SceneSource) -> Bool) throws(SceneError) {
            guard let source = sources[name] else {
                throw SceneError(path: node.key(key), "unknown source \"\(name)\"")
            }
            guard matches(source) else {
                throw SceneError(path: node.key(key), "source \"\(name)\" is not \(expected) source")
            }
        }
        func isImage(_ s: SceneSource) -> Bool { if case .image = s { return true } else { return false } }
        func isGeometry(_ s: SceneSource) -> Bool { if case .geometry = s { return true } else { return false } }
        func isVertices(_ s: SceneSource) -> Bool { if case .vertices = s { return true } else { return false } }
        switch layer.kind {
        case .background: break
        case .raster(let name, _): try source("source", name, expected: "an image", isImage)
        case .fill(let name, _, _), .line(let name, _, _, _, _, _), .circle(let name, _, _, _):
            try source("source", name, expected: "a geometry", isGeometry)
        case .custom(let library, _, _, let vertices, _, _):
            try source("vertices", vertices, expected: "a vertices", isVertices)
            guard libraries[library] != nil else { throw SceneError(path: node.key("library"), "unknown library \"\(library)\"") }
        case .effect(let library, _, _, let texture2, _):
            if let texture2 { try source("texture2", texture2, expected: "an image", isImage) }
            guard libraries[library] != nil else { throw SceneError(path: node.key("library"), "unknown library \"\(library)\"") }
        }
    }

    /// Layers in drawing order: slots bottom, middle, top, then unslotted layers; within
    /// each, declaration order. Invisible layers are left out.
    public static func drawingOrder(_ layers: [SceneLayer]) -> [[SceneLayer]] {
        let visible = layers.filter(\.visible)
        return SceneLayer.Slot.allCases.map { slot in visible.filter { $0.slot == slot } } + [visible.filter { $0.slot == nil }]
    }
}
