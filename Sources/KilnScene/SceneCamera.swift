import Foundation

/// How world coordinates reach the frame.
///
/// - `pixel`: world coordinates are frame pixels, x right, y down.
/// - `mercator`: Web Mercator. World coordinates are the unit Mercator square
///   (x = 0 at 180°W … 1 at 180°E, y = 0 at the north edge ≈ 85.05°N … 1 at the south),
///   as a map SDK's custom layers see them; at `zoom` the world is 512·2^zoom pixels wide
///   and `center` sits at the centre of the frame. Bearing is always 0.
public enum SceneCamera: Hashable, Sendable {
    case pixel
    case mercator(longitude: Double, latitude: Double, zoom: Double)

    /// Latitudes beyond ±this do not exist in Web Mercator.
    public static let maxLatitude = 85.051128779806589
    /// Deepest zoom accepted (float32 clip coordinates lose precision beyond it).
    public static let maxZoom = 24.0

    /// The unit-square Mercator coordinate of a longitude/latitude in degrees.
    public static func mercator(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let clamped = min(max(latitude, -maxLatitude), maxLatitude) * .pi / 180
        let x = (longitude + 180) / 360
        let y = (1 - log(tan(.pi / 4 + clamped / 2)) / .pi) / 2
        return (x, y)
    }

    /// World size in pixels: 512·2^zoom (1 for the pixel camera, whose world is the frame).
    public var worldSize: Double {
        switch self {
        case .pixel: return 1
        case .mercator(_, _, let zoom): return 512 * pow(2, zoom)
        }
    }

    /// A world coordinate → frame pixel (y down).
    public func pixel(world: (x: Double, y: Double), width: Int, height: Int) -> (x: Double, y: Double) {
        switch self {
        case .pixel:
            return world
        case .mercator(let longitude, let latitude, _):
            let center = Self.mercator(longitude: longitude, latitude: latitude)
            let size = worldSize
            return ((world.x - center.x) * size + Double(width) / 2, (world.y - center.y) * size + Double(height) / 2)
        }
    }

    /// The 4×4 matrix (column-major, 16 floats, as a Metal `float4x4` uniform) that maps a
    /// world coordinate `(x, y, 0, 1)` to clip space for a `width`×`height` frame: the
    /// same place `pixel(world:)` puts it, with clip y pointing up as Metal's does.
    public func projectionMatrix(width: Int, height: Int) -> [Float] {
        let w = Double(max(width, 1)), h = Double(max(height, 1))
        // pixel = world·s + t  ⇒  clip.x = pixel.x·2/w − 1, clip.y = 1 − pixel.y·2/h
        let scale: Double, tx: Double, ty: Double
        switch self {
        case .pixel:
            (scale, tx, ty) = (1, 0, 0)
        case .mercator(let longitude, let latitude, _):
            let center = Self.mercator(longitude: longitude, latitude: latitude)
            scale = worldSize
            (tx, ty) = (w / 2 - center.x * scale, h / 2 - center.y * scale)
        }
        let sx = scale * 2 / w, sy = -scale * 2 / h
        let ox = tx * 2 / w - 1, oy = 1 - ty * 2 / h
        return [Float(sx), 0, 0, 0,
                0, Float(sy), 0, 0,
                0, 0, 1, 0,
                Float(ox), Float(oy), 0, 1]
    }

    /// Parses `{"type": "pixel"}` or `{"type": "mercator", "center": [lon, lat], "zoom": z}`.
    static func decode(_ node: JSONNode) throws(SceneError) -> SceneCamera {
        let type = try node.required("type").choice(["pixel", "mercator"])
        if type == "pixel" {
            try node.checkKeys(["type"])
            return .pixel
        }
        try node.checkKeys(["type", "center", "zoom", "bearing"])
        let centerNode = try node.required("center")
        let center = try centerNode.array()
        guard center.count == 2 else { throw centerNode.error("expected [longitude, latitude]") }
        let longitude = try center[0].number(in: -180...180)
        let latitude = try center[1].number(in: -maxLatitude...maxLatitude)
        let zoom = try node.required("zoom").number(in: 0...maxZoom)
        if let bearing = try node.optional("bearing"), try bearing.number() != 0 {
            throw bearing.error("only bearing 0 is supported")
        }
        return .mercator(longitude: longitude, latitude: latitude, zoom: zoom)
    }
}
