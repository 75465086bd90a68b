import Foundation
import KilnBytecode
import KilnVM

/// Draws the full-frame kinds — distortion, color, layer, shape, fragment pass — by running
/// the function over every pixel in batches of `laneCount` pixels, one `BatchTile` each
/// (conformance README §4 gives each kind's inputs and outputs).
final class EffectDraw: PreparedDraw {
    let function: Function
    let library: Library
    /// The output size: the full frame's, or with `stride` k > 1 the coarse frame's.
    let width: Int
    let height: Int
    /// `RenderRequest.sampleStride`, and the full frame's size that positions, uv and the
    /// size arguments refer to.
    let stride: Int
    let fullWidth: Int
    let fullHeight: Int
    /// The content a distortion samples and a color effect reads.
    let source: Texture
    /// One lane shader per worker thread.
    let shaders: [LaneShader]
    let threads: Int
    let rowsPerBand: Int
    /// Where the lane inputs and outputs live.
    private let plan: LanePlan
    /// Alpha 1 for every lane, for results without an alpha component.
    private let opaque = UnsafeMutablePointer<Float>.allocate(capacity: laneCount)
    /// A distortion's sampler of `source`, and per worker the sampled texels (`4 ×
    /// laneCount` floats) and the sampler's scratch: made once per draw, not per batch.
    private let sampler: LaneSampler
    private let sampleMemory: UnsafeMutablePointer<Float>
    private static let sampleMemoryPerWorker = 4 * laneCount + Sampling.scratchWordCount
    private let limits: RenderLimits
    private let cancellation: RenderCancellation?
    /// For heatmaps: the function's statement masks and lines, made on first use.
    private let stage: ShaderStage
    private lazy var costPlan = stage.makeCostPlan()
    private(set) var lastFrameCounts = FrameCounts()

    deinit {
        opaque.deallocate()
        sampleMemory.deallocate()
    }

    init(request: RenderRequest, functionIndex: Int) throws(RenderError) {
        let function = request.library.functions[functionIndex]
        self.function = function
        self.library = request.library
        limits = request.limits
        cancellation = request.cancellation
        let isEffect = function.kind == .distortion || function.kind == .color || function.kind == .layer
        if isEffect {
            guard let content = request.content, content.width > 0, content.height > 0 else {
                throw RenderError("'\(function.name)' is a \(function.kind.name) effect and needs content to work on")
            }
            (fullWidth, fullHeight) = (content.width, content.height)
        } else {
            (fullWidth, fullHeight) = (request.width, request.height)
        }
        try request.limits.check(width: fullWidth, height: fullHeight, what: "output")
        stride = max(1, request.sampleStride)
        (width, height) = ((fullWidth + stride - 1) / stride, (fullHeight + stride - 1) / stride)
        source = request.content ?? Texture(width: 0, height: 0, pixels: [])
        sampler = LaneSampler(source)
        let stage = try ShaderStage(request: request, functionIndex: functionIndex, arguments: request.arguments,
                                    width: fullWidth, height: fullHeight)
        threads = Renderer.workerCount(request.threads)
        sampleMemory = .allocate(capacity: function.kind == .distortion ? threads * Self.sampleMemoryPerWorker : 0)
        // Whole tiles per band: quads (and tiles) never straddle bands.
        rowsPerBand = max(1, (request.rowsPerBand + BatchTile.rows - 1) / BatchTile.rows) * BatchTile.rows
        self.stage = stage
        var shaders: [LaneShader] = []
        for _ in 0..<threads { shaders.append(try stage.makeShader()) }
        self.shaders = shaders
        plan = LanePlan(function)
        opaque.initialize(repeating: 1, count: laneCount)
    }

    func render(into pixels: UnsafeMutablePointer<UInt8>) throws(RenderError) {
        let failures = FirstFailure()
        let budget = FrameBudget(limits: limits, cancellation: cancellation)
        let width = self.width, height = self.height
        TileScheduler.run(height: height, threads: threads, rowsPerBand: rowsPerBand) { worker, rows in
            guard !failures.hasFailure else { return }
            let shader = shaders[worker]
            var tally = FrameBudget.Tally()
            do throws(RenderError) {
                // Bands start on multiples of the tile height, so quads line up with the
                // image as a GPU's do: a quad's top-left pixel has even coordinates.
                for y in Swift.stride(from: rows.lowerBound, to: rows.upperBound, by: BatchTile.rows) {
                    let tileRows = min(BatchTile.rows, height - y)
                    var x0 = 0
                    while x0 < width {
                        let columns = min(BatchTile.columns, width - x0)
                        try shade(shader, worker: worker, x0: x0, y: y, columns: columns, rows: tileRows, output: pixels + (y * width + x0) * 4)
                        try budget.charge(shader, to: &tally)
                        x0 += columns
                    }
                }
                try budget.flush(&tally)
            } catch {
                failures.record(error)
            }
        }
        lastFrameCounts = budget.counts
        if let failure = failures.first { throw failure }
    }

    /// Shades the `columns` × `rows` pixels from (`x0`, `y`) in one batch (a `BatchTile`).
    /// Lanes of pixels past the image run as GPU helper lanes: they compute, so derivatives
    /// at the edge are real differences, and are never stored.
    /// `execute` runs the batch: `run()` for frames, a trace for the debugger (the same steps).
    private func shade(_ shader: LaneShader, worker: Int, x0: Int, y: Int, columns: Int, rows: Int,
                       output: UnsafeMutablePointer<UInt8>,
                       execute: (LaneShader) throws(RenderError) -> Void = { (s) throws(RenderError) in try s.run() }) throws(RenderError) {
        writeInputs(shader, x0: x0, y: y, columns: columns, rows: rows)
        try execute(shader)
        if function.kind == .distortion, let result = plan.color {
            // The function says where to read the source for this pixel: one batch sample
            // (the VM's vectorized lane loops) rather than a `Sampling.sample` call per pixel.
            let xs = shader.floatLanes(result), ys = shader.floatLanes(result + 1)
            let r = sampleMemory + worker * Self.sampleMemoryPerWorker
            let scratch = UnsafeMutableRawPointer(r + 4 * laneCount).assumingMemoryBound(to: UInt32.self)
            sampler.sample(xs: xs, ys: ys, mode: .layer, into: r, scratch: scratch)
            store(r, r + laneCount, r + 2 * laneCount, r + 3 * laneCount, columns: columns, rows: rows, output: output)
            return
        }
        guard let colour = plan.color else { return }
        let r = shader.floatLanes(colour)
        let g = plan.colorComponents > 1 ? shader.floatLanes(colour + 1) : r
        let b = plan.colorComponents > 2 ? shader.floatLanes(colour + 2) : r
        let a = plan.colorComponents > 3 ? UnsafePointer(shader.floatLanes(colour + 3)) : UnsafePointer(opaque)
        store(r, g, b, a, columns: columns, rows: rows, output: output)
        if let discardRegister = function.discardRegister {
            // A discarded pixel is left at its initial transparent black.
            let discarded = shader.lanes(discardRegister)
            for row in 0..<rows {
                for column in 0..<columns where discarded[BatchTile.lane(column: column, row: row)] != 0 {
                    (output + (row * width + column) * 4).update(repeating: 0, count: 4)
                }
            }
        }
    }

    /// Renders a frame as `render` does, counting per pixel what its lane executed while
    /// active (`CostCounts`): the cost heatmap. The same steps, so the same budget applies.
    func renderCosts() throws(RenderError) -> CostHeatmap {
        let failures = FirstFailure()
        let budget = FrameBudget(limits: limits, cancellation: cancellation)
        let width = self.width, height = self.height
        let plan = costPlan
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var heatmap = CostHeatmap(width: width, height: height)
        let merged = NSLock()
        var total = CostCounts()
        pixels.withUnsafeMutableBufferPointer { pixelBuffer in
            heatmap.counts.withUnsafeMutableBufferPointer { countBuffer in
                heatmap.uniform.withUnsafeMutableBufferPointer { uniformBuffer in
                    let output = pixelBuffer.baseAddress!, counted = countBuffer.baseAddress!, uniform = uniformBuffer.baseAddress!
                    TileScheduler.run(height: height, threads: threads, rowsPerBand: rowsPerBand) { worker, rows in
                        guard !failures.hasFailure else { return }
                        let shader = shaders[worker]
                        var counts = CostCounts()
                        do throws(RenderError) {
                            for y in Swift.stride(from: rows.lowerBound, to: rows.upperBound, by: BatchTile.rows) {
                                let tileRows = min(BatchTile.rows, height - y)
                                var x0 = 0
                                while x0 < width {
                                    let columns = min(BatchTile.columns, width - x0)
                                    try shade(shader, worker: worker, x0: x0, y: y, columns: columns, rows: tileRows,
                                              output: output + (y * width + x0) * 4) { (s) throws(RenderError) in
                                        try s.runCounting(plan, into: &counts)
                                    }
                                    for row in 0..<tileRows {
                                        for column in 0..<columns {
                                            let at = (y + row) * width + x0 + column
                                            counted[at] = counts.lanes[BatchTile.lane(column: column, row: row)]
                                            uniform[at] = UInt32(clamping: counts.uniform)
                                        }
                                    }
                                    try budget.charge(shader)
                                    x0 += columns
                                }
                            }
                        } catch {
                            failures.record(error)
                        }
                        merged.withLock { total.merge(counts) }
                    }
                }
            }
        }
        lastFrameCounts = budget.counts
        if let failure = failures.first { throw failure }
        heatmap.lines = total.lines.filter { $0.key != 0 }.map { key, cost in
            CostHeatmap.Line(file: key >> 32, line: key & 0xFFFF_FFFF, lanes: cost.lanes, uniform: cost.uniform)
        }.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
        heatmap.unknownMasks = total.unknownMasks
        heatmap.files = library.sources.map(\.name)
        return heatmap
    }

    /// Shades the one batch that holds pixel (`x`, `y`) as `render` would, tracing the
    /// pixel's lane: the trace and the bytes the frame has at that pixel.
    func trace(x: Int, y: Int, maxSteps: Int) throws(RenderError) -> (trace: LaneTrace, lane: Int, pixel: [UInt8], result: [Float]) {
        guard x >= 0, y >= 0, x < width, y < height else {
            throw RenderError("pixel (\(x), \(y)) is outside the \(width)×\(height) frame")
        }
        let shader = shaders[0]
        let x0 = x / BatchTile.columns * BatchTile.columns, y0 = y / BatchTile.rows * BatchTile.rows
        let columns = min(BatchTile.columns, width - x0), rows = min(BatchTile.rows, height - y0)
        let lane = BatchTile.lane(column: x - x0, row: y - y0)
        var recorded: LaneTrace?
        var tile = [UInt8](repeating: 0, count: rows * width * 4)
        try tile.withUnsafeMutableBufferPointer { (buffer) throws(RenderError) in
            try shade(shader, worker: 0, x0: x0, y: y0, columns: columns, rows: rows, output: buffer.baseAddress!) { (s) throws(RenderError) in
                recorded = s.trace(lane: lane, maxSteps: maxSteps)
            }
        }
        let offset = ((y - y0) * width + (x - x0)) * 4
        var result: [Float] = []
        if let colour = plan.color {
            let components = function.kind == .distortion ? 2 : plan.colorComponents
            result = (0..<components).map { shader.floatLanes(colour + UInt16($0))[lane] }
        }
        return (recorded!, lane, Array(tile[offset..<offset + 4]), result)
    }

    /// Quantizes planar RGBA lanes into the interleaved RGBA8 pixels of the batch's tile.
    /// All the batch's lanes are quantized in lane order first — one branch-free loop without
    /// optionals, which the optimizer vectorizes (per-lane `store` calls with optional
    /// channels were about a fifth of the VM's time in `bench` color) — then each pixel of
    /// the tile inside the image is copied to its place.
    @inline(__always) private func store(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>,
                                         _ b: UnsafePointer<Float>, _ a: UnsafePointer<Float>,
                                         columns: Int, rows: Int, output: UnsafeMutablePointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4 * laneCount) { buffer in
            let lanes = buffer.baseAddress!
            for lane in 0..<laneCount {
                let o = lanes + lane &* 4
                o[0] = quantize(r[lane])
                o[1] = quantize(g[lane])
                o[2] = quantize(b[lane])
                o[3] = quantize(a[lane])
            }
            if columns == BatchTile.columns && rows == BatchTile.rows {
                // A whole tile: a quad's four lanes are 16 consecutive bytes, its top two
                // pixels then its bottom two — two 8-byte copies per quad.
                let source = UnsafeRawPointer(lanes)
                for pair in 0..<(BatchTile.rows / 2) {
                    let top = UnsafeMutableRawPointer(output + 2 &* pair &* width &* 4)
                    let bottom = top + width &* 4
                    for quad in 0..<(BatchTile.columns / 2) {
                        let quadBytes = source + (pair &* (BatchTile.columns / 2) &+ quad) &* 16
                        top.storeBytes(of: quadBytes.loadUnaligned(as: UInt64.self), toByteOffset: quad &* 8, as: UInt64.self)
                        bottom.storeBytes(of: quadBytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                                          toByteOffset: quad &* 8, as: UInt64.self)
                    }
                }
                return
            }
            for row in 0..<rows {
                let line = UnsafeMutableRawPointer(output + row &* width &* 4)
                for column in 0..<columns {
                    line.advanced(by: column &* 4)
                        .copyMemory(from: lanes + BatchTile.lane(column: column, row: row) &* 4, byteCount: 4)
                }
            }
        }
    }

    /// Writes the lane inputs for the tile at (`x0`, `y`): each lane gets its own pixel of
    /// the tile, helper lanes included (their pixels lie past the image edge).
    private func writeInputs(_ shader: LaneShader, x0: Int, y: Int, columns: Int, rows: Int) {
        for input in plan.inputs {
            switch input.role {
            case .position(let components):
                // (x0 + column)·stride + 0.5 in binary32, exact: coordinates are far below 2²⁴
                // (`RenderLimits`), so the conversion and the sums round nothing — and this
                // form is a vector loop (integer arithmetic with overflow checks per lane was
                // a seventh of a color effect's time).
                let xs = shader.floatLanes(input.register)
                let (originX, originY, scale) = (Float(x0), Float(y), Float(stride))
                let columns = BatchTile.columnsAsFloat, rows = BatchTile.rowsAsFloat
                for lane in 0..<laneCount { xs[lane] = (originX + columns[lane]) * scale + 0.5 }
                if components > 1 {
                    let ys = shader.floatLanes(input.register + 1)
                    for lane in 0..<laneCount { ys[lane] = (originY + rows[lane]) * scale + 0.5 }
                }
                if components > 2 { shader.floatLanes(input.register + 2).update(repeating: 0, count: laneCount) }
                if components > 3 { shader.floatLanes(input.register + 3).update(repeating: 1, count: laneCount) }
            case .sourceColor:
                // Four consecutive registers are consecutive lane blocks: one planar quad read.
                _ = shader.floatLanes(input.register + 3)       // checks the last register exists
                Sampling.readQuadLanes(source, x0: x0, y: y, columns: columns, rows: rows, stride: stride,
                                       into: shader.floatLanes(input.register))
            case .uv:
                let us = shader.floatLanes(input.register), vs = shader.floatLanes(input.register + 1)
                let width = Float(fullWidth), height = Float(fullHeight)
                let (originX, originY, scale) = (Float(x0), Float(y), Float(stride))
                let columns = BatchTile.columnsAsFloat, rows = BatchTile.rowsAsFloat
                for lane in 0..<laneCount {
                    us[lane] = ((originX + columns[lane]) * scale + 0.5) / width
                    vs[lane] = ((originY + rows[lane]) * scale + 0.5) / height
                }
            case .zero(let components):
                for component in 0..<components {
                    shader.lanes(input.register + UInt16(component)).update(repeating: 0, count: laneCount)
                }
            }
        }
    }
}

/// What the renderer writes into each lane input of a function and where it reads the
/// colour, decided once per draw instead of once per batch.
struct LanePlan {
    enum Role {
        /// `float2 position` of a stitchable function, or the `[[position]]` field of a
        /// fragment's stage_in: `(x + 0.5, y + 0.5, 0, 1)`.
        case position(components: Int)
        /// `half4 color` of a color effect: the exact source pixel, premultiplied.
        case sourceColor
        /// The first `float2` stage_in field without an attribute: `position.xy / size`.
        case uv
        /// Anything else is zero.
        case zero(components: Int)
    }
    struct Input {
        var register: UInt16
        var role: Role
    }

    var inputs: [Input] = []
    /// First register of the colour (or, for a distortion, the position) result.
    var color: UInt16?
    var colorComponents = 0

    init(_ function: Function) {
        var sawUV = false
        for slot in function.inputs {
            let components = slot.type.componentCount
            let role: Role
            if slot.attribute == "position" || (slot.name == "position" && function.kind != .fragment) {
                role = .position(components: components)
            } else if slot.attribute == "color" && function.kind == .color {
                role = .sourceColor
            } else if function.kind == .fragment, !sawUV, components == 2, slot.attribute.isEmpty,
                      slot.type.scalar == .float || slot.type.scalar == .half {
                sawUV = true
                role = .uv
            } else {
                role = .zero(components: components)
            }
            inputs.append(Input(register: slot.register, role: role))
        }
        // Fragment functions may return a struct: its [[color(0)]] or first four-component field.
        let result = function.outputs.first { $0.attribute == "color(0)" }
            ?? function.outputs.first { $0.type.componentCount == 4 } ?? function.outputs.first
        color = result?.register
        colorComponents = result?.type.componentCount ?? 0
    }
}

/// The first error any worker hit; later workers stop early.
final class FirstFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var error: RenderError?

    var hasFailure: Bool { lock.withLock { error != nil } }
    var first: RenderError? { lock.withLock { error } }

    func record(_ newError: RenderError) {
        lock.withLock { if error == nil { error = newError } }
    }
}
