/// Where a layer's data comes from, named in the document's `sources` object.
public enum SceneSource: Hashable, Sendable {
    /// A picture for `raster` layers and effect textures.
    case image(ImageSource)
    /// Points, lines and polygons for `circle`, `line` and `fill` layers.
    case geometry(Geometry)
    /// A typed vertex buffer for `custom` layers.
    case vertices(Vertices)

    public enum ImageSource: Hashable, Sendable {
        /// A built-in content image (`rainbow`, `checker`, `gradient`, `photo`) at the frame size.
        case builtin(String)
        /// A PNG file (path relative to the scene file's folder) or an uploaded image name.
        case png(String)
        /// The output of a layer group of this document.
        case group(String)
    }

    public enum Coordinates: String, Hashable, Sendable {
        /// Frame pixels, y down.
        case pixel
        /// `[longitude, latitude]` in degrees (a Mercator camera only).
        case lonlat
    }

    public struct Geometry: Hashable, Sendable {
        public var coordinates: Coordinates
        public var features: [Feature]
    }

    /// One GeoJSON geometry, flattened: points, lines (point lists) and polygons (rings).
    public enum Feature: Hashable, Sendable {
        case points([[Double]])
        case line([[Double]])
        /// Outer ring only (holes are not supported).
        case polygon([[Double]])
    }

    public struct Vertices: Hashable, Sendable {
        /// Floats per vertex.
        public var stride: Int
        /// `lonlat` turns the first two floats of every vertex from degrees into unit
        /// Mercator world coordinates; `world` passes them as they are.
        public var lonlat: Bool
        public var data: [Float]
        public var count: Int { stride > 0 ? data.count / stride : 0 }
    }

    /// The group whose output this source shows, if any.
    var group: String? {
        if case .image(.group(let name)) = self { return name }
        return nil
    }

    static func decode(_ node: JSONNode, camera: SceneCamera, limits: SceneLimits) throws(SceneError) -> SceneSource {
        let type = try node.required("type").choice(["image", "geometry", "vertices"])
        switch type {
        case "image":
            try node.checkKeys(["type", "builtin", "png", "group"])
            var given: [(String, JSONNode)] = []
            for key in ["builtin", "png", "group"] {
                if let value = try node.optional(key) { given.append((key, value)) }
            }
            guard given.count == 1, let (key, value) = given.first else {
                throw node.error("an image source takes exactly one of builtin, png, group")
            }
            let name = try value.string()
            switch key {
            case "builtin":
                guard ["rainbow", "checker", "gradient", "photo"].contains(name) else {
                    throw value.error("unknown built-in image \"\(name)\" (expected rainbow, checker, gradient or photo)")
                }
                return .image(.builtin(name))
            case "png": return .image(.png(name))
            default: return .image(.group(name))
            }
        case "geometry":
            try node.checkKeys(["type", "coordinates", "data"])
            var coordinates: Coordinates = camera == .pixel ? .pixel : .lonlat
            if let given = try node.optional("coordinates") {
                coordinates = Coordinates(rawValue: try given.choice(["pixel", "lonlat"]))!
                if coordinates == .lonlat, camera == .pixel {
                    throw given.error("lonlat coordinates need a mercator camera")
                }
            }
            let features = try decodeFeatureCollection(try node.required("data"), limits: limits)
            return .geometry(Geometry(coordinates: coordinates, features: features))
        default:
            try node.checkKeys(["type", "stride", "coordinates", "data"])
            let strideNode = try node.required("stride")
            let stride = try strideNode.integer(in: 1...64)
            var lonlat = false
            if let given = try node.optional("coordinates") {
                lonlat = try given.choice(["world", "lonlat"]) == "lonlat"
                if lonlat, camera == .pixel { throw given.error("lonlat coordinates need a mercator camera") }
                if lonlat, stride < 2 { throw strideNode.error("lonlat vertices need at least 2 floats per vertex") }
            }
            let dataNode = try node.required("data")
            let numbers = try dataNode.numbers()
            guard numbers.count % stride == 0 else {
                throw dataNode.error("\(numbers.count) floats are not a whole number of \(stride)-float vertices")
            }
            guard numbers.count / stride <= limits.maxVertices else {
                throw dataNode.error("\(numbers.count / stride) vertices exceed maxVertices = \(limits.maxVertices)")
            }
            return .vertices(Vertices(stride: stride, lonlat: lonlat, data: numbers.map { Float($0) }))
        }
    }

    /// `{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {…}}]}`,
    /// a single Feature, or a bare geometry.
    static func decodeFeatureCollection(_ node: JSONNode, limits: SceneLimits) throws(SceneError) -> [Feature] {
        let type = try node.required("type").string()
        switch type {
        case "FeatureCollection":
            var result: [Feature] = []
            for feature in try node.required("features").array() {
                result += try decodeFeatureCollection(feature, limits: limits)
            }
            return result
        case "Feature":
            return try decodeGeometry(try node.required("geometry"), limits: limits)
        default:
            return try decodeGeometry(node, limits: limits)
        }
    }

    static func decodeGeometry(_ node: JSONNode, limits: SceneLimits) throws(SceneError) -> [Feature] {
        let typeNode = try node.required("type")
        let type = try typeNode.choice(["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"])
        let coordinates = try node.required("coordinates")
        func position(_ node: JSONNode) throws(SceneError) -> [Double] {
            let values = try node.array()
            guard values.count >= 2 else { throw node.error("expected a position [x, y]") }
            return [try values[0].number(), try values[1].number()]
        }
        func positions(_ node: JSONNode) throws(SceneError) -> [[Double]] {
            let list = try node.array()
            guard list.count <= limits.maxPointsPerFeature else {
                throw node.error("\(list.count) positions exceed maxPointsPerFeature = \(limits.maxPointsPerFeature)")
            }
            var result: [[Double]] = []
            for element in list { result.append(try position(element)) }
            return result
        }
        func polygon(_ node: JSONNode) throws(SceneError) -> Feature {
            let rings = try node.array()
            guard let outer = rings.first else { throw node.error("a polygon needs an outer ring") }
            guard rings.count == 1 else { throw rings[1].error("polygon holes are not supported") }
            return .polygon(try positions(outer))
        }
        switch type {
        case "Point": return [.points([try position(coordinates)])]
        case "MultiPoint": return [.points(try positions(coordinates))]
        case "LineString": return [.line(try positions(coordinates))]
        case "MultiLineString":
            var result: [Feature] = []
            for line in try coordinates.array() { result.append(.line(try positions(line))) }
            return result
        case "Polygon": return [try polygon(coordinates)]
        default:
            var result: [Feature] = []
            for element in try coordinates.array() { result.append(try polygon(element)) }
            return result
        }
    }
}
