import KilnBytecode
import KilnVM

/// Draws triangles with a vertex + fragment pair: the vertex function runs on lanes over
/// the vertex ids, its clip-space `[[position]]` goes through the viewport, every
/// triangle is rasterized with exact integer edge functions, the fragment function runs
/// on lanes over the covered pixels with interpolated varyings, and its colour is blended
/// (premultiplied source-over) into the framebuffer in triangle order.
///
/// Rules (docs/rendering.md): no culling; a triangle with a vertex at w ≤ 0 is skipped
/// (no near-plane clipping yet); vertex positions snap to 1/256 pixel; a pixel centre on
/// an edge belongs to the triangle for which it is a top or left edge (the top-left rule),
/// so a shared edge is drawn exactly once.
/// Varyings are interpolated perspective-correctly; `[[flat]]` takes the first vertex.
final class TriangleDraw: PreparedDraw {
    let width: Int
    let height: Int
    private let library: Library
    private let vertexFunction: Function
    private let fragmentFunction: Function
    private let vertexShader: LaneShader
    private let fragmentShader: LaneShader
    private let vertexCount: Int
    /// Per fragment input: where its value comes from.
    private let varyings: [Varying]
    private let colorRegister: UInt16?
    private let colorComponents: Int
    private let limits: RenderLimits
    private let cancellation: RenderCancellation?
    private(set) var lastFrameCounts = FrameCounts()

    private struct Varying {
        var register: UInt16
        var components: Int
        /// Offset of the matching vertex output in a vertex's scalarized outputs, or nil for
        /// the fragment position.
        var source: Int?
        var flat: Bool
    }


    init(request: RenderRequest, vertexIndex: Int) throws(RenderError) {
        library = request.library
        limits = request.limits
        cancellation = request.cancellation
        vertexFunction = library.functions[vertexIndex]
        let fragmentIndex: Int
        if let name = request.fragmentName {
            guard let index = library.functions.firstIndex(where: { $0.name == name && $0.kind == .fragment }) else {
                throw RenderError("no fragment function '\(name)' in the library")
            }
            fragmentIndex = index
        } else {
            guard let index = library.functions.firstIndex(where: { $0.kind == .fragment }) else {
                throw RenderError("'\(vertexFunction.name)' is a vertex function and the library has no fragment function to colour its triangles")
            }
            fragmentIndex = index
        }
        fragmentFunction = library.functions[fragmentIndex]
        (width, height) = (request.width, request.height)
        try request.limits.check(width: width, height: height, what: "output")

        // Each stage gets the arguments it declares; a name neither declares is an error.
        let vertexNames = Set(vertexFunction.parameters.map(\.name)), fragmentNames = Set(fragmentFunction.parameters.map(\.name))
        if let unknown = request.arguments.keys.sorted().first(where: { !vertexNames.contains($0) && !fragmentNames.contains($0) }) {
            throw RenderError("argument '\(unknown)': neither '\(vertexFunction.name)' nor '\(fragmentFunction.name)' has an argument called '\(unknown)'")
        }
        let (outputWidth, outputHeight) = (request.width, request.height)
        func shader(_ function: Function, index: Int, names: Set<String>) throws(RenderError) -> LaneShader {
            try ShaderStage(request: request, functionIndex: index, arguments: request.arguments.filter { names.contains($0.key) },
                            width: outputWidth, height: outputHeight).makeShader()
        }
        vertexShader = try shader(vertexFunction, index: vertexIndex, names: vertexNames)
        fragmentShader = try shader(fragmentFunction, index: fragmentIndex, names: fragmentNames)

        // Vertex count: given, else the first buffer's length over its element size, else 3.
        var count = request.vertexCount ?? 3
        if request.vertexCount == nil, let buffer = vertexFunction.parameters.first(where: {
            if case .buffer = $0.binding { return true } else { return false }
        }), let stride = buffer.valueType?.componentCount, stride > 0, let elements = request.arguments[buffer.name] {
            count = elements.count / stride
        }
        guard count >= 0, count <= request.limits.maxVertices else {
            throw RenderError("\(count) vertices exceed maxVertices = \(request.limits.maxVertices)")
        }
        vertexCount = count

        // Match fragment inputs with vertex outputs by name.
        var offsets: [String: (offset: Int, slot: LaneSlot)] = [:]
        var offset = 0
        for slot in vertexFunction.outputs {
            offsets[slot.name] = (offset, slot)
            offset += slot.type.componentCount
        }
        var varyings: [Varying] = []
        for slot in fragmentFunction.inputs {
            let components = slot.type.componentCount
            if slot.attribute == "position" {
                varyings.append(Varying(register: slot.register, components: components, source: nil, flat: false))
            } else if let match = offsets[slot.name], match.slot.type.componentCount == components {
                varyings.append(Varying(register: slot.register, components: components, source: match.offset,
                                        flat: slot.flat || match.slot.flat))
            } else {
                throw RenderError("fragment input '\(slot.name)' of '\(fragmentFunction.name)' has no matching output in '\(vertexFunction.name)'")
            }
        }
        self.varyings = varyings
        let plan = LanePlan(fragmentFunction)
        colorRegister = plan.color
        colorComponents = plan.colorComponents
        guard vertexFunction.outputs.contains(where: { $0.attribute == "position" }) else {
            throw RenderError("vertex function '\(vertexFunction.name)' returns no [[position]]")
        }
    }

    func render(into pixels: UnsafeMutablePointer<UInt8>) throws(RenderError) {
        let budget = FrameBudget(limits: limits, cancellation: cancellation)
        let outputs = try runVertices(budget)
        var framebuffer = [Float](repeating: 0, count: width * height * 4)
        let stride = vertexFunction.outputs.reduce(0) { $0 + $1.type.componentCount }
        let positionOffset = positionOffsetInOutputs()
        var batch = FragmentBatch()
        for triangle in 0..<(vertexCount / 3) {
            var corners: [ScreenVertex] = []
            for corner in 0..<3 {
                let base = (triangle * 3 + corner) * stride
                let x = outputs[base + positionOffset], y = outputs[base + positionOffset + 1]
                let z = outputs[base + positionOffset + 2], w = outputs[base + positionOffset + 3]
                guard w > 0, x.isFinite, y.isFinite, z.isFinite, w.isFinite else { corners.removeAll(); break }
                // Clip space → normalized device coordinates → pixels (Metal: NDC y points up).
                let sx = (Double(x / w) * 0.5 + 0.5) * Double(width), sy = (0.5 - Double(y / w) * 0.5) * Double(height)
                guard let point = CoverageTriangle.snap(x: sx, y: sy) else { corners.removeAll(); break }
                corners.append(ScreenVertex(point: point, z: z / w, inverseW: 1 / w, base: base))
            }
            guard corners.count == 3 else { continue }
            try rasterize(corners, outputs: outputs, framebuffer: &framebuffer, batch: &batch, budget: budget)
        }
        try flush(&batch, outputs: outputs, framebuffer: &framebuffer, budget: budget)
        lastFrameCounts = budget.counts
        for index in 0..<(width * height * 4) { pixels[index] = quantize(framebuffer[index]) }
    }

    private func positionOffsetInOutputs() -> Int {
        var offset = 0
        for slot in vertexFunction.outputs {
            if slot.attribute == "position" { return offset }
            offset += slot.type.componentCount
        }
        return 0
    }

    /// Runs the vertex function over every vertex id; returns the scalarized outputs, vertex-major.
    private func runVertices(_ budget: FrameBudget) throws(RenderError) -> [Float] {
        let stride = vertexFunction.outputs.reduce(0) { $0 + $1.type.componentCount }
        var result = [Float](repeating: 0, count: vertexCount * stride)
        var first = 0
        while first < vertexCount {
            let count = min(laneCount, vertexCount - first)
            for slot in vertexFunction.inputs {
                let lanes = vertexShader.lanes(slot.register)
                for lane in 0..<laneCount {
                    lanes[lane] = slot.attribute == "vertex_id" ? UInt32(first + min(lane, count - 1)) : 0
                }
            }
            try vertexShader.run()
            try budget.charge(vertexShader)
            var offset = 0
            for slot in vertexFunction.outputs {
                for component in 0..<slot.type.componentCount {
                    let lanes = vertexShader.floatLanes(slot.register + UInt16(component))
                    for lane in 0..<count { result[(first + lane) * stride + offset + component] = lanes[lane] }
                }
                offset += slot.type.componentCount
            }
            first += count
        }
        return result
    }

    private struct ScreenVertex {
        var point: CoverageTriangle.Point
        var z: Float
        var inverseW: Float
        var base: Int
    }

    /// A pixel of a quad waiting for the fragment function: covered, or a helper lane
    /// (computed for its quad's derivatives, never blended).
    private struct Fragment {
        var pixel: Int
        var x: Int
        var y: Int
        var covered: Bool
        /// Perspective-correct weights of the three corners, and screen-space ones for z.
        var weights: (Float, Float, Float)
        var z: Float
        var corners: (Int, Int, Int)
    }

    private struct FragmentBatch {
        var fragments: [Fragment] = []
    }

    /// Queues the fragments of one triangle as 2×2 quads (coverage: `CoverageTriangle`), with
    /// perspective-correct weights for its varyings — extrapolated for helper lanes, as a
    /// GPU does, so `dfdx`/`dfdy` in the fragment function are differences inside the quad
    /// (lane = 4·quad + 2·row + column, the `Quads` layout every draw uses).
    private func rasterize(_ input: [ScreenVertex], outputs: [Float], framebuffer: inout [Float],
                           batch: inout FragmentBatch, budget: FrameBudget) throws(RenderError) {
        guard let triangle = CoverageTriangle(input[0].point, input[1].point, input[2].point) else { return }
        // The corners in the triangle's positive-area order.
        let a = input[0], b = triangle.swapped ? input[2] : input[1], c = triangle.swapped ? input[1] : input[2]
        let bases = (a.base, b.base, c.base)
        let inverseArea = 1 / Double(triangle.area)
        try triangle.forEachCoveredQuad(width: width, height: height) { (x0, y0, samples) throws(RenderError) in
            for (lane, sample) in samples.enumerated() {
                let x = x0 + (lane & 1), y = y0 + (lane >> 1)
                let l0 = Float(Double(sample.w0) * inverseArea), l1 = Float(Double(sample.w1) * inverseArea)
                let l2 = Float(Double(sample.w2) * inverseArea)
                let p0 = l0 * a.inverseW, p1 = l1 * b.inverseW, p2 = l2 * c.inverseW
                // A helper far outside a thin triangle can extrapolate to a zero sum.
                let sum = p0 + p1 + p2
                batch.fragments.append(Fragment(pixel: y * width + x, x: x, y: y, covered: sample.covered,
                                                weights: sum != 0 ? (p0 / sum, p1 / sum, p2 / sum) : (0, 0, 0),
                                                z: l0 * a.z + l1 * b.z + l2 * c.z, corners: bases))
            }
            if batch.fragments.count == laneCount { try flush(&batch, outputs: outputs, framebuffer: &framebuffer, budget: budget) }
        }
    }

    /// Shades the batched fragments and blends them in order.
    private func flush(_ batch: inout FragmentBatch, outputs: [Float], framebuffer: inout [Float],
                       budget: FrameBudget) throws(RenderError) {
        let fragments = batch.fragments
        guard !fragments.isEmpty else { return }
        batch.fragments.removeAll(keepingCapacity: true)
        let last = fragments.count - 1
        for varying in varyings {
            for component in 0..<varying.components {
                let lanes = fragmentShader.floatLanes(varying.register + UInt16(component))
                for lane in 0..<laneCount {
                    let f = fragments[min(lane, last)]
                    guard let source = varying.source else {
                        // [[position]]: the pixel centre, depth, w = 1.
                        switch component {
                        case 0: lanes[lane] = Float(f.x) + 0.5
                        case 1: lanes[lane] = Float(f.y) + 0.5
                        case 2: lanes[lane] = f.z
                        default: lanes[lane] = 1
                        }
                        continue
                    }
                    let v0 = outputs[f.corners.0 + source + component]
                    if varying.flat { lanes[lane] = v0; continue }
                    let v1 = outputs[f.corners.1 + source + component], v2 = outputs[f.corners.2 + source + component]
                    lanes[lane] = f.weights.0 * v0 + f.weights.1 * v1 + f.weights.2 * v2
                }
            }
        }
        try fragmentShader.run()
        try budget.charge(fragmentShader)
        guard let colorRegister else { return }
        let channels = (0..<4).map { $0 < colorComponents ? fragmentShader.floatLanes(colorRegister + UInt16($0)) : nil }
        let discarded = fragmentFunction.discardRegister.map { fragmentShader.lanes($0) }
        framebuffer.withUnsafeMutableBufferPointer { pixels in
            for (lane, fragment) in fragments.enumerated() where fragment.covered {
                if let discarded, discarded[lane] != 0 { continue }
                let r = channels[0]?[lane] ?? 0, g = channels[1]?[lane] ?? 0, b = channels[2]?[lane] ?? 0
                Compositing.over(r, g, b, channels[3]?[lane] ?? 1, onto: pixels.baseAddress! + fragment.pixel * 4)
            }
        }
    }
}
