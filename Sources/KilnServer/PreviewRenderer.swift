import KilnBytecode
import KilnRender
import KilnVM

/// What the server needs from the renderer, kept narrow so the protocol logic can be
/// tested without rendering and so KilnServer does not depend on KilnRender's internals.
public protocol PreviewRenderer: Sendable {
    /// Renders one frame; returns premultiplied RGBA8 bytes (width × height × 4).
    func render(_ request: PreviewRequest) throws -> [UInt8]
    /// Renders a coarse frame — every `stride`-th pixel of every `stride`-th row of what
    /// `render` would make, exactly those pixels — or returns nil when the function's kind
    /// has none (the caller renders the full frame instead).
    func renderCoarse(_ request: PreviewRequest, stride: Int) throws -> CoarseFrame?
    /// Encodes premultiplied RGBA8 as a PNG (straight alpha).
    func encodePNG(premultiplied bytes: [UInt8], width: Int, height: Int) throws -> [UInt8]
    /// Decodes an uploaded PNG into content; throws a readable error for bad or oversized files.
    func decodeContent(png: [UInt8], maxSide: Int) throws -> PreviewContent
    /// A built-in content image (`rainbow`, `checker`, `gradient`, `photo`) at a size.
    func builtinContent(named name: String, width: Int, height: Int) throws -> PreviewContent
    /// Traces pixel (`x`, `y`) of the frame `request` renders (the pixel debugger): the
    /// report as a JSON object, its `pixel` the frame's bytes there.
    func debug(_ request: PreviewRequest, x: Int, y: Int, maxSteps: Int) throws -> [String: Any]
    /// Counts the frame `request` renders, per pixel and source line (the cost heatmap), as
    /// the JSON object of the `heatmap` reply.
    func heatmap(_ request: PreviewRequest) throws -> [String: Any]
}

/// A coarse frame: premultiplied RGBA8 of `width` × `height` pixels, each the full frame's
/// pixel at (x·stride, y·stride).
public struct CoarseFrame: Sendable {
    public var pixels: [UInt8]
    public var width: Int
    public var height: Int
    public var stride: Int

    public init(pixels: [UInt8], width: Int, height: Int, stride: Int) {
        self.pixels = pixels
        self.width = width
        self.height = height
        self.stride = stride
    }
}

extension PreviewRenderer {
    /// Renderers without coarse frames (test doubles) render every frame in full.
    public func renderCoarse(_ request: PreviewRequest, stride: Int) throws -> CoarseFrame? { nil }

    /// Renderers without a debugger (test doubles) refuse.
    public func debug(_ request: PreviewRequest, x: Int, y: Int, maxSteps: Int) throws -> [String: Any] {
        throw RenderError("this renderer has no pixel debugger")
    }

    /// Renderers without counting (test doubles) refuse.
    public func heatmap(_ request: PreviewRequest) throws -> [String: Any] {
        throw RenderError("this renderer has no cost heatmap")
    }
}

/// An image under an effect, in whatever form the renderer keeps it.
public struct PreviewContent: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// Renderer-specific storage (e.g. a premultiplied float texture).
    public let storage: Any

    public init(width: Int, height: Int, storage: Any) {
        self.width = width
        self.height = height
        self.storage = storage
    }
}

/// One preview frame to render.
public struct PreviewRequest: @unchecked Sendable {
    public var library: Library
    public var function: String
    public var width: Int
    public var height: Int
    public var content: PreviewContent?
    public var content2: PreviewContent?
    /// Argument values by name: components of floats/vectors/colors, or array elements.
    public var arguments: [String: [Float]]
    public var time: Float
    public var threads: Int
    /// The frame's work budget (`ServerSettings.maxFrameWork`).
    public var maxFrameWork: Int
    /// Cancelled when the frame is no longer wanted (its session closed or moved on).
    public var cancellation: RenderCancellation?
    /// The compiled shader's prepared functions (`CompiledShader.preparedFunctions`), so
    /// frames of the same library do not prepare it again.
    public var preparedFunctions: PreparedFunctionCache?

    public init(library: Library, function: String, width: Int, height: Int, content: PreviewContent?,
                content2: PreviewContent?, arguments: [String: [Float]], time: Float, threads: Int,
                maxFrameWork: Int = RenderLimits.default.maxFrameWork, cancellation: RenderCancellation? = nil,
                preparedFunctions: PreparedFunctionCache? = nil) {
        self.library = library
        self.function = function
        self.width = width
        self.height = height
        self.content = content
        self.content2 = content2
        self.arguments = arguments
        self.time = time
        self.threads = threads
        self.maxFrameWork = maxFrameWork
        self.cancellation = cancellation
        self.preparedFunctions = preparedFunctions
    }
}
