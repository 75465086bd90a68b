/// Size limits of scene documents, each a named setting so errors can name it.
public struct SceneLimits: Hashable, Sendable {
    /// Most layers in the whole document (root and groups together).
    public var maxLayers = 256
    /// Most positions in one geometry (a ring, a line, a point list).
    public var maxPointsPerFeature = 100_000
    /// Most vertices in one vertex source.
    public var maxVertices = 1 << 20
    /// Largest frame width or height.
    public var maxDimension = 8192
    /// Most point tests ear clipping may spend on one polygon (it is quadratic in the
    /// ring's length, worse for hostile rings).
    public var maxTessellationSteps = 50_000_000
    /// Most segments a round cap, join or circle is cut into.
    public var maxRoundSegments = 64

    /// Most floats the layer cache keeps (4 bytes each; a layer of a W×H frame is W·H·4
    /// floats). Past it, the lowest cached layers are forgotten after a frame.
    public var maxCachedFloats = 64 << 20

    /// Most compiled libraries a renderer keeps (by shader text). A client that sends a
    /// new library source with every `scene.set` would otherwise grow the cache forever;
    /// past the limit the least recently used library is forgotten.
    public var maxCachedLibraries = 16

    public init() {}
    public static let `default` = SceneLimits()
}
