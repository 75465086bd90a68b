/// Why a frame could not be rendered: one sentence a user can act on.
public struct RenderError: Error, CustomStringConvertible, Equatable, Sendable {
    public var message: String
    /// The render stopped because its `RenderCancellation` was cancelled, not because of
    /// the shader: callers drop the frame without reporting it.
    public var isCancellation = false
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static let cancelled: RenderError = {
        var error = RenderError("the render was cancelled")
        error.isCancellation = true
        return error
    }()
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
    /// Most work one frame may do, in lane-instructions weighted by `Opcode.workCost`, over
    /// all batches (the VM's `instructionBudgetPerLane` bounds one lane; this bounds the
    /// frame, so a loop just under the lane budget cannot hold a core for minutes at
    /// 2048²). The default, 10¹¹, is about ten seconds of one core — for renders on the
    /// user's own machine; `kiln serve` allows a tenth of that (docs/rendering.md).
    public var maxFrameWork = 100_000_000_000

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
