/// Why a frame could not be rendered: one sentence a user can act on.
public struct RenderError: Error, CustomStringConvertible, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Size limits of the renderer, each a named setting so errors can name it.
public struct RenderLimits: Sendable, Equatable {
    /// Largest width or height of an output frame or an input image.
    public var maxDimension = 16384
    /// Largest number of pixels of one image (`maxDimension²` would be a gigapixel).
    public var maxPixels = 64 << 20
    /// Largest PNG file accepted, in bytes.
    public var maxPNGBytes = 64 << 20
    /// Most vertices in one draw of a vertex + fragment pair.
    public var maxVertices = 1 << 20

    public init() {}
    public static let `default` = RenderLimits()

    /// Throws an error naming the limit when `width`×`height` is not a drawable size.
    public func check(width: Int, height: Int, what: String = "image") throws(RenderError) {
        guard width > 0, height > 0 else { throw RenderError("\(what) size \(width)x\(height) must be positive") }
        guard width <= maxDimension, height <= maxDimension else {
            throw RenderError("\(what) size \(width)x\(height) exceeds maxDimension = \(maxDimension)")
        }
        guard width * height <= maxPixels else {
            throw RenderError("\(what) size \(width)x\(height) exceeds maxPixels = \(maxPixels)")
        }
    }
}
