import KilnBytecode
import KilnVM

/// A frame's cost, counted per pixel: how many instructions each pixel's lane executed
/// while active, the uniform instructions its batch ran once, and the totals per source
/// line (`Renderer.heatmap`). Counted from the same steps that draw the frame, so the
/// numbers are the same on every run and every machine.
public struct CostHeatmap: Sendable, Encodable {
    public var width: Int
    public var height: Int
    /// Per pixel, row by row: lane-wide instructions its lane executed while active.
    public var counts: [UInt32]
    /// Per pixel: uniform instructions of its batch (run once for all its pixels).
    public var uniform: [UInt32]
    /// Per source line, in file and line order.
    public var lines: [Line] = []
    /// Source file names (`Line.file` indexes them).
    public var files: [String] = []
    /// Statements counted as fully active because their mask could not be read (0 normally).
    public var unknownMasks = 0

    public struct Line: Sendable, Encodable, Equatable {
        public var file: Int
        public var line: Int
        /// Lane-instructions of active lanes, over the frame.
        public var lanes: Int
        /// Uniform instructions, over the frame (each once per batch).
        public var uniform: Int
    }

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        counts = [UInt32](repeating: 0, count: width * height)
        uniform = [UInt32](repeating: 0, count: width * height)
    }

    /// The largest per-pixel count.
    public var maximum: UInt32 { counts.max() ?? 0 }
    /// Lane-instructions of the whole frame.
    public var total: Int { counts.reduce(0) { $0 + Int($1) } }

    /// Each line's share of the instructions the frame executed (0…1), by (file, line): its
    /// lane-instructions and its uniform instructions, each of those counted once per batch
    /// as the VM runs it. A line whose work the compiler made uniform (a `for` counter, a
    /// per-iteration constant) still runs every iteration and is not shown as free.
    public func shares() -> [(file: Int, line: Int, share: Double)] {
        let sum = max(1, lines.reduce(0) { $0 + $1.lanes + $1.uniform })
        return lines.map { ($0.file, $0.line, Double($0.lanes + $0.uniform) / Double(sum)) }
    }

    /// The heatmap as a picture: black (no work) through blue, magenta and orange to
    /// white at `scale` (default the frame's maximum), opaque.
    public func image(scale: UInt32? = nil) -> RGBAImage {
        let top = Double(max(1, scale ?? maximum))
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for (index, count) in counts.enumerated() {
            let colour = Self.colour(Double(count) / top)
            bytes[index * 4] = colour.0
            bytes[index * 4 + 1] = colour.1
            bytes[index * 4 + 2] = colour.2
        }
        return RGBAImage(width: width, height: height, bytes: bytes)
    }

    /// The colour scale at `t` in 0…1 (clamped): a piecewise-linear ramp through five stops.
    public static func colour(_ t: Double) -> (UInt8, UInt8, UInt8) {
        let stops: [(Double, Double, Double)] = [(0, 0, 0), (40, 40, 190), (200, 40, 160), (250, 150, 40), (255, 255, 255)]
        let x = min(max(t.isFinite ? t : 0, 0), 1) * Double(stops.count - 1)
        let i = min(Int(x), stops.count - 2), f = x - Double(i)
        func mix(_ a: Double, _ b: Double) -> UInt8 { UInt8((a + (b - a) * f).rounded()) }
        return (mix(stops[i].0, stops[i + 1].0), mix(stops[i].1, stops[i + 1].1), mix(stops[i].2, stops[i + 1].2))
    }
}

extension Renderer {
    /// Counts what every pixel of the frame `request` renders executed (the cost heatmap).
    /// Full-frame functions only (stitchable effects, shapes and fragment passes).
    public static func heatmap(_ request: RenderRequest) throws(RenderError) -> CostHeatmap {
        guard let index = request.library.functions.firstIndex(where: { $0.name == request.functionName }) else {
            throw RenderError("no function '\(request.functionName)' in the library")
        }
        let function = request.library.functions[index]
        guard hasCoarseFrames(function.kind) else {
            throw RenderError("heatmaps count full-frame functions (stitchable effects and fragment passes); '\(function.name)' is a \(function.kind.name) function")
        }
        var request = request
        request.sampleStride = 1
        return try EffectDraw(request: request, functionIndex: index).renderCosts()
    }
}
