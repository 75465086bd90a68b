import Foundation

/// Runtime edits of a scene's root layer list. Each returns a new, fully checked document;
/// a renderer given it redraws only the layers whose inputs changed.
extension SceneDocument {
    /// Where `layer.add` puts a layer.
    public enum Placement: Hashable, Sendable {
        /// On top of everything (the end of the root list, unslotted unless the layer says).
        case top
        /// Right above / below another layer, in that layer's slot unless the layer names one.
        case above(String)
        case below(String)
        /// On top of a slot.
        case slot(SceneLayer.Slot)
    }

    /// Adds the layer whose JSON object is `layerJSON`.
    public func addingLayer(_ layerJSON: [UInt8], placement: Placement = .top,
                            limits: SceneLimits = .default) throws(SceneError) -> SceneDocument {
        let node = try JSONNode.parse(layerJSON)
        guard var layer = node.value as? [String: Any] else { throw SceneError(path: "layer", "expected a layer object") }
        var root = try rootObject()
        var layers = root["layers"] as? [Any] ?? []
        func index(of id: String, _ key: String) throws(SceneError) -> Int {
            guard let index = layers.firstIndex(where: { ($0 as? [String: Any])?["id"] as? String == id }) else {
                throw SceneError(path: key, "no layer \"\(id)\"")
            }
            return index
        }
        switch placement {
        case .top:
            layers.append(layer)
        case .above(let id), .below(let id):
            var position = try index(of: id, placement == .above(id) ? "above" : "below")
            if layer["slot"] == nil, let slot = (layers[position] as? [String: Any])?["slot"] { layer["slot"] = slot }
            if placement == .above(id) { position += 1 }
            layers.insert(layer, at: position)
        case .slot(let slot):
            layer["slot"] = slot.rawValue
            layers.append(layer)
        }
        root["layers"] = layers
        return try Self.decode(root, limits: limits)
    }

    /// Changes properties of layer `id`: top-level members are replaced, the members of
    /// `paint`, `layout` and `arguments` objects merged one level deep; null removes one.
    public func updatingLayer(_ id: String, properties: [UInt8], limits: SceneLimits = .default) throws(SceneError) -> SceneDocument {
        let patchNode = try JSONNode.parse(properties)
        guard let patch = patchNode.value as? [String: Any] else { throw SceneError(path: "properties", "expected an object") }
        var root = try rootObject()
        var layers = root["layers"] as? [Any] ?? []
        guard let index = layers.firstIndex(where: { ($0 as? [String: Any])?["id"] as? String == id }),
              var layer = layers[index] as? [String: Any] else {
            throw SceneError(path: "id", "no layer \"\(id)\"")
        }
        for (key, value) in patch {
            if value is NSNull { layer[key] = nil; continue }
            if ["paint", "layout", "arguments"].contains(key), var merged = layer[key] as? [String: Any],
               let changes = value as? [String: Any] {
                for (name, change) in changes { merged[name] = change is NSNull ? nil : change }
                layer[key] = merged
            } else {
                layer[key] = value
            }
        }
        guard layer["id"] as? String == id else { throw SceneError(path: "properties.id", "a layer's id cannot change") }
        layers[index] = layer
        root["layers"] = layers
        return try Self.decode(root, limits: limits)
    }

    /// Removes layer `id`.
    public func removingLayer(_ id: String, limits: SceneLimits = .default) throws(SceneError) -> SceneDocument {
        var root = try rootObject()
        var layers = root["layers"] as? [Any] ?? []
        guard let index = layers.firstIndex(where: { ($0 as? [String: Any])?["id"] as? String == id }) else {
            throw SceneError(path: "id", "no layer \"\(id)\"")
        }
        layers.remove(at: index)
        root["layers"] = layers
        return try Self.decode(root, limits: limits)
    }

    private func rootObject() throws(SceneError) -> [String: Any] {
        guard let root = try JSONNode.parse(Array(json.utf8)).value as? [String: Any] else {
            throw SceneError(path: "", "the scene is not an object")
        }
        return root
    }

    private static func decode(_ root: [String: Any], limits: SceneLimits) throws(SceneError) -> SceneDocument {
        try decode(JSONNode(value: root, path: ""), limits: limits)
    }
}
