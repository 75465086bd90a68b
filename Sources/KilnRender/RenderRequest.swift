import KilnBytecode
import KilnVM

/// Everything one frame needs: which function, at what size, over which content, with
/// which argument values. See docs/rendering.md for how each kind uses it.
public struct RenderRequest: Sendable {
    public var library: Library
    /// The entry function to run. For a `vertex` function, `fragmentName` (or the library's
    /// first fragment function) colours its triangles.
    public var functionName: String
    public var fragmentName: String?
    /// Output size. Effects (distortion, color, layer) render at their content's size;
    /// shapes, fragment passes and vertex draws at this size.
    public var width: Int
    public var height: Int
    /// The content under an effect / `[[texture(0)]]`, and the second texture of a
    /// two-texture fragment pass (`[[texture(1)]]` and later slots).
    public var content: Texture?
    public var content2: Texture?
    /// Argument values by name: the components of a scalar/vector/matrix, or the elements
    /// of an array argument.
    public var arguments: [String: [Float]]
    /// The preview clock, bound to an argument called `time` or `t` unless it is given.
    public var time: Float?
    /// Vertices drawn by a vertex function (default: the buffer's size, else 3).
    public var vertexCount: Int?
    /// Worker threads (0 = one per core) and rows per band.
    public var threads: Int
    public var rowsPerBand: Int
    public var limits: RenderLimits
    public var executionLimits: ExecutionLimits
    /// Stops the render between batches when cancelled (a prepared draw checks it on
    /// every frame it renders).
    public var cancellation: RenderCancellation?
    /// A coarse frame: with k > 1, full-frame draws (effects, shapes, fragment passes)
    /// shade only every k-th pixel of every k-th row and return a ⌈w/k⌉ × ⌈h/k⌉ image
    /// whose pixel (x, y) is exactly the full frame's pixel (x·k, y·k) — the same inputs,
    /// arguments bound for the full size — except that derivatives span k pixels. Other
    /// draws (triangles, kernels) ignore it and render the full frame. `kiln serve` sends
    /// one first after an edit when a full frame would be slow (docs/protocol.md).
    public var sampleStride = 1
    /// Where draws of `library` keep its prepared functions between frames (the server
    /// keeps one per compiled library); nil prepares for this draw alone. Used only when
    /// it holds this request's library.
    public var preparedFunctions: PreparedFunctionCache?

    public init(library: Library, functionName: String, fragmentName: String? = nil, width: Int, height: Int,
                content: Texture? = nil, content2: Texture? = nil, arguments: [String: [Float]] = [:],
                time: Float? = nil, vertexCount: Int? = nil, threads: Int = 0,
                rowsPerBand: Int = TileScheduler.defaultRowsPerBand, limits: RenderLimits = .default,
                executionLimits: ExecutionLimits = ExecutionLimits(), cancellation: RenderCancellation? = nil) {
        self.library = library
        self.functionName = functionName
        self.fragmentName = fragmentName
        self.width = width
        self.height = height
        self.content = content
        self.content2 = content2
        self.arguments = arguments
        self.time = time
        self.vertexCount = vertexCount
        self.threads = threads
        self.rowsPerBand = rowsPerBand
        self.limits = limits
        self.executionLimits = executionLimits
        self.cancellation = cancellation
    }
}

/// The renderer's front door.
public enum Renderer {
    /// Renders one frame: premultiplied RGBA8 bytes.
    public static func render(_ request: RenderRequest) throws(RenderError) -> RGBAImage {
        try prepare(request).render()
    }

    /// Binds arguments, creates one executor per worker (each runs the prologue once) and
    /// returns a draw that renders frames without further set-up.
    public static func prepare(_ request: RenderRequest) throws(RenderError) -> PreparedDraw {
        guard let index = request.library.functions.firstIndex(where: { $0.name == request.functionName }) else {
            let names = request.library.functions.map(\.name).joined(separator: ", ")
            throw RenderError("no function '\(request.functionName)' in the library (it has: \(names))")
        }
        let function = request.library.functions[index]
        switch function.kind {
        case .vertex:
            return try TriangleDraw(request: request, vertexIndex: index)
        case .distortion, .color, .layer, .shape, .fragment:
            return try EffectDraw(request: request, functionIndex: index)
        case .kernel:
            return try KernelDraw(request: request, functionIndex: index)
        }
    }

    /// Whether draws of `kind` honour `RenderRequest.sampleStride` (the full-frame kinds
    /// `prepare` gives an `EffectDraw`); triangle draws and kernels render in full.
    public static func hasCoarseFrames(_ kind: FunctionKind) -> Bool {
        switch kind {
        case .distortion, .color, .layer, .shape, .fragment: return true
        case .vertex, .kernel: return false
        }
    }

    /// The message of a VM error, with the shader location it names.
    static func describe(_ error: VMError, library: Library) -> RenderError {
        if let location = error.location, Int(location.file) < library.sources.count {
            return RenderError("\(library.sources[Int(location.file)].name):\(location.line):\(location.column): \(error.message)")
        }
        return RenderError(error.message)
    }

    static func workerCount(_ requested: Int) -> Int {
        requested > 0 ? requested : TileScheduler.defaultThreads
    }

    /// Resolves texture slots: 0 is the content, every other slot the second content.
    static func textures(for function: Function, request: RenderRequest) -> [Texture] {
        let empty = Texture(width: 0, height: 0, pixels: [])
        return (0..<Int(function.textureCount)).map { slot in
            (slot == 0 ? request.content : request.content2 ?? request.content) ?? empty
        }
    }
}

/// A frame-rendering draw with its set-up done.
public protocol PreparedDraw: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Renders a frame into `pixels` (premultiplied RGBA8, `width × height × 4` bytes).
    func render(into pixels: UnsafeMutablePointer<UInt8>) throws(RenderError)
    /// What the last frame rendered executed (zero before the first).
    var lastFrameCounts: FrameCounts { get }
}

extension PreparedDraw {
    /// Renders a frame into a new image.
    public func render() throws(RenderError) -> RGBAImage {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        var failure: RenderError?
        bytes.withUnsafeMutableBufferPointer { buffer in
            do { try render(into: buffer.baseAddress!) } catch let error as RenderError { failure = error } catch {
                failure = RenderError("\(error)")
            }
        }
        if let failure { throw failure }
        return RGBAImage(width: width, height: height, bytes: bytes)
    }
}
