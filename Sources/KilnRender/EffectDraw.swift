import Foundation
import KilnBytecode
import KilnVM

/// Draws the full-frame kinds — distortion, color, layer, shape, fragment pass — by running
/// the function over every pixel in batches of `laneCount` consecutive pixels of a row
/// (conformance README §4 gives each kind's inputs and outputs).
final class EffectDraw: PreparedDraw {
    let function: Function
    let library: Library
    let width: Int
    let height: Int
    /// The content a distortion samples and a color effect reads.
    let source: Texture
    /// One lane shader per worker thread.
    let shaders: [LaneShader]
    let threads: Int
    let rowsPerBand: Int
    /// Where the lane inputs and outputs live.
    private let plan: LanePlan

    init(request: RenderRequest, functionIndex: Int) throws(RenderError) {
        let function = request.library.functions[functionIndex]
        self.function = function
        self.library = request.library
        let isEffect = function.kind == .distortion || function.kind == .color || function.kind == .layer
        if isEffect {
            guard let content = request.content, content.width > 0, content.height > 0 else {
                throw RenderError("'\(function.name)' is a \(function.kind.name) effect and needs content to work on")
            }
            (width, height) = (content.width, content.height)
        } else {
            (width, height) = (request.width, request.height)
        }
        try request.limits.check(width: width, height: height, what: "output")
        source = request.content ?? Texture(width: 0, height: 0, pixels: [])
        let stage = try ShaderStage(request: request, functionIndex: functionIndex, arguments: request.arguments,
                                    width: width, height: height)
        threads = Renderer.workerCount(request.threads)
        rowsPerBand = request.rowsPerBand
        var shaders: [LaneShader] = []
        for _ in 0..<threads { shaders.append(try stage.makeShader()) }
        self.shaders = shaders
        plan = LanePlan(function)
    }

    func render(into pixels: UnsafeMutablePointer<UInt8>) throws(RenderError) {
        let failures = FirstFailure()
        let width = self.width
        TileScheduler.run(height: height, threads: threads, rowsPerBand: rowsPerBand) { worker, rows in
            guard !failures.hasFailure else { return }
            let shader = shaders[worker]
            do throws(RenderError) {
                for y in rows {
                    var x0 = 0
                    while x0 < width {
                        let count = min(laneCount, width - x0)
                        try shade(shader, y: y, x0: x0, count: count, output: pixels + (y * width + x0) * 4)
                        x0 += count
                    }
                }
            } catch {
                failures.record(error)
            }
        }
        if let failure = failures.first { throw failure }
    }

    /// Shades `count` pixels of row `y` from `x0` in one batch.
    private func shade(_ shader: LaneShader, y: Int, x0: Int, count: Int, output: UnsafeMutablePointer<UInt8>) throws(RenderError) {
        writeInputs(shader, y: y, x0: x0, count: count)
        try shader.run()
        if function.kind == .distortion, let result = plan.color {
            // The function says where to read the source for this pixel: one batch sample
            // (the VM's vectorized lane loops) rather than a `Sampling.sample` call per pixel.
            let xs = shader.floatLanes(result), ys = shader.floatLanes(result + 1)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 4 * laneCount) { texels in
                let r = texels.baseAddress!
                Sampling.sampleLanes(source, xs: xs, ys: ys, mode: .layer, into: r)
                storeLanes(r, r + laneCount, r + 2 * laneCount, r + 3 * laneCount, count: count, output: output)
            }
            return
        }
        guard let colour = plan.color else { return }
        let r = shader.floatLanes(colour)
        let g = plan.colorComponents > 1 ? shader.floatLanes(colour + 1) : r
        let b = plan.colorComponents > 2 ? shader.floatLanes(colour + 2) : r
        if let discardRegister = function.discardRegister {
            let a = plan.colorComponents > 3 ? shader.floatLanes(colour + 3) : nil
            let discarded = shader.lanes(discardRegister)
            for lane in 0..<count {
                if discarded[lane] != 0 {
                    store(0, 0, 0, 0, output + lane * 4)       // left at its initial transparent black
                } else {
                    store(r[lane], g[lane], b[lane], a?[lane] ?? 1, output + lane * 4)
                }
            }
        } else if plan.colorComponents > 3 {
            storeLanes(r, g, b, shader.floatLanes(colour + 3), count: count, output: output)
        } else {
            for lane in 0..<count { store(r[lane], g[lane], b[lane], 1, output + lane * 4) }
        }
    }

    /// Quantizes `count` planar RGBA lanes into interleaved RGBA8: the common store, as one
    /// branch-free loop without optionals that the optimizer vectorizes (per-lane `store`
    /// calls with optional channels were about a fifth of the VM's time in `bench` color).
    @inline(__always) private func storeLanes(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>,
                                              _ b: UnsafePointer<Float>, _ a: UnsafePointer<Float>,
                                              count: Int, output: UnsafeMutablePointer<UInt8>) {
        for lane in 0..<count {
            let o = output + lane &* 4
            o[0] = quantize(r[lane])
            o[1] = quantize(g[lane])
            o[2] = quantize(b[lane])
            o[3] = quantize(a[lane])
        }
    }

    /// Writes the lane inputs for pixels (`x0` …, `y`). Lanes past `count` repeat the last
    /// pixel: they compute something harmless that is never stored.
    private func writeInputs(_ shader: LaneShader, y: Int, x0: Int, count: Int) {
        let last = count - 1
        let rowCenter = Float(y) + 0.5
        for input in plan.inputs {
            switch input.role {
            case .position(let components):
                let xs = shader.floatLanes(input.register)
                for lane in 0..<laneCount { xs[lane] = Float(x0 + min(lane, last)) + 0.5 }
                if components > 1 { shader.floatLanes(input.register + 1).update(repeating: rowCenter, count: laneCount) }
                if components > 2 { shader.floatLanes(input.register + 2).update(repeating: 0, count: laneCount) }
                if components > 3 { shader.floatLanes(input.register + 3).update(repeating: 1, count: laneCount) }
            case .sourceColor:
                // Four consecutive registers are consecutive lane blocks: one planar row read.
                _ = shader.floatLanes(input.register + 3)       // checks the last one exists
                Sampling.readRowLanes(source, x0: x0, y: y, count: count, into: shader.floatLanes(input.register))
            case .uv:
                let us = shader.floatLanes(input.register)
                let invWidth = Float(width), height = Float(self.height)
                for lane in 0..<laneCount { us[lane] = (Float(x0 + min(lane, last)) + 0.5) / invWidth }
                shader.floatLanes(input.register + 1).update(repeating: rowCenter / height, count: laneCount)
            case .zero(let components):
                for component in 0..<components {
                    shader.lanes(input.register + UInt16(component)).update(repeating: 0, count: laneCount)
                }
            }
        }
    }

    @inline(__always) private func store(_ r: Float, _ g: Float, _ b: Float, _ a: Float, _ output: UnsafeMutablePointer<UInt8>) {
        output[0] = quantize(r)
        output[1] = quantize(g)
        output[2] = quantize(b)
        output[3] = quantize(a)
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
