import Foundation
import KilnBytecode
import KilnVM

/// Runs a `kernel` function the way a preview reads one: a grid of threads the size of the
/// frame (`dispatchThreads`, so no thread lies past the edge), in threadgroups of
/// `groupSize` × `groupSize`, `groupsPerBatch` threadgroups side by side per batch (lane =
/// 64·group + 8·y + x: the language has no threadgroup memory or barriers, so groups that
/// share a batch cannot observe each other). Every texture the kernel may write
/// (`Binding.outputTexture`) is a frame-sized image, transparent black until written; the
/// frame shows the one with the lowest slot.
/// Other textures are the content, as for a fragment pass (docs/language.md, "Kernel functions").
final class KernelDraw: PreparedDraw {
    /// Threadgroup side: 8 × 8 threads, as Metal previews commonly dispatch.
    static let groupSize = 8
    /// Threadgroups one batch of `laneCount` lanes runs, left to right in a row of groups.
    static let groupsPerBatch = laneCount / (groupSize * groupSize)

    let width: Int
    let height: Int
    let function: Function
    let shaders: [LaneShader]
    let threads: Int
    /// The texture the frame shows.
    private let output: Texture
    /// Every output texture, cleared before each frame.
    private let targets: [Texture]
    private let inputs: [(register: UInt16, position: Position, components: Int)]
    private let limits: RenderLimits
    private let cancellation: RenderCancellation?
    private(set) var lastFrameCounts = FrameCounts()

    init(request: RenderRequest, functionIndex: Int) throws(RenderError) {
        let function = request.library.functions[functionIndex]
        self.function = function
        limits = request.limits
        cancellation = request.cancellation
        (width, height) = (request.width, request.height)
        try request.limits.check(width: width, height: height, what: "output")
        var textures = Renderer.textures(for: function, request: request)
        var targets: [Texture] = []
        var output: Texture?
        for parameter in function.parameters {
            guard case .outputTexture(let slot) = parameter.binding, Int(slot) < textures.count else { continue }
            let target = Texture.target(width: width, height: height)
            textures[Int(slot)] = target
            targets.append(target)
            if output == nil { output = target }
        }
        guard let output else {
            throw RenderError("kernel '\(function.name)' writes no texture, so there is nothing to show")
        }
        self.output = output
        self.targets = targets
        let stage = try ShaderStage(request: request, functionIndex: functionIndex, arguments: request.arguments,
                                    width: width, height: height, textures: textures)
        threads = Renderer.workerCount(request.threads)
        var shaders: [LaneShader] = []
        for _ in 0..<threads { shaders.append(try stage.makeShader()) }
        self.shaders = shaders
        inputs = function.inputs.map { ($0.register, Position(attribute: $0.attribute), $0.type.componentCount) }
    }

    func render(into pixels: UnsafeMutablePointer<UInt8>) throws(RenderError) {
        for target in targets {
            target.withTexels { UnsafeMutablePointer(mutating: $0.baseAddress)?.update(repeating: 0, count: $0.count) }
        }
        let failures = FirstFailure()
        let budget = FrameBudget(limits: limits, cancellation: cancellation)
        let size = Self.groupSize
        // A band is one row of threadgroups; every band's groups run on one worker.
        TileScheduler.run(height: height, threads: threads, rowsPerBand: size) { worker, rows in
            guard !failures.hasFailure else { return }
            let shader = shaders[worker]
            var tally = FrameBudget.Tally()
            do throws(RenderError) {
                for x0 in stride(from: 0, to: width, by: size * Self.groupsPerBatch) {
                    writeInputs(shader, x0: x0, y0: rows.lowerBound)
                    try shader.run()
                    try budget.charge(shader, to: &tally)
                }
                try budget.flush(&tally)
            } catch {
                failures.record(error)
            }
        }
        lastFrameCounts = budget.counts
        if let failure = failures.first { throw failure }
        output.withTexels { texels in
            guard let source = texels.baseAddress else { return }
            for index in 0..<min(texels.count, width * height * 4) { pixels[index] = quantize(source[index]) }
        }
    }

    /// Which position a kernel lane input holds, read from its attribute once per draw.
    enum Position {
        case inGrid, grid, local, group, index, threadsPerGrid, threadsPerGroup, groups, unknown

        init(attribute: String) {
            switch attribute {
            case LaneSlot.inGridName: self = .inGrid
            case "thread_position_in_grid": self = .grid
            case "thread_position_in_threadgroup": self = .local
            case "threadgroup_position_in_grid": self = .group
            case "thread_index_in_threadgroup": self = .index
            case "threads_per_grid": self = .threadsPerGrid
            case "threads_per_threadgroup": self = .threadsPerGroup
            case "threadgroups_per_grid": self = .groups
            default: self = .unknown
            }
        }
    }

    /// The thread-position inputs of the `groupsPerBatch` threadgroups whose first thread is
    /// (`x0`, `y0`). A group past the grid's right edge has no thread in the grid.
    private func writeInputs(_ shader: LaneShader, x0 first: Int, y0: Int) {
        let size = Self.groupSize
        let groups = ((width + size - 1) / size, (height + size - 1) / size)
        for input in inputs {
            for component in 0..<min(input.components, 3) {
                let lanes = shader.lanes(input.register + UInt16(component))
                for lane in 0..<laneCount {
                    // (x, y, z) of the position, for the lane at (x, y) of its threadgroup.
                    let local = lane % (size * size), x0 = first + lane / (size * size) * size
                    let x = local % size, y = local / size
                    let v: (Int, Int, Int)
                    switch input.position {
                    case .inGrid: v = (x0 + x < width && y0 + y < height ? 1 : 0, 0, 0)
                    case .grid: v = (x0 + x, y0 + y, 0)
                    case .local: v = (x, y, 0)
                    case .group: v = (x0 / size, y0 / size, 0)
                    case .index: v = (y * size + x, 0, 0)
                    case .threadsPerGrid: v = (width, height, 1)
                    case .threadsPerGroup: v = (size, size, 1)
                    case .groups: v = (groups.0, groups.1, 1)
                    case .unknown: v = (0, 0, 0)
                    }
                    lanes[lane] = UInt32(truncatingIfNeeded: component == 0 ? v.0 : component == 1 ? v.1 : v.2)
                }
            }
        }
    }
}
