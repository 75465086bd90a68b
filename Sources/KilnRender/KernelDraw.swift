import Foundation
import KilnBytecode
import KilnVM

/// Runs a `kernel` function the way a preview reads one: a grid of threads the size of the
/// frame (`dispatchThreads`, so no thread lies past the edge), in threadgroups of
/// `groupSize` × `groupSize`, one threadgroup per batch (lane = 8·y + x inside it). Every
/// texture the kernel may write (`Binding.outputTexture`) is a frame-sized image,
/// transparent black until written; the frame shows the one with the lowest slot.
/// Other textures are the content, as for a fragment pass (docs/language.md, "Kernel functions").
final class KernelDraw: PreparedDraw {
    /// Threadgroup side: 8 × 8 = `laneCount` threads, one batch.
    static let groupSize = 8

    let width: Int
    let height: Int
    let function: Function
    let shaders: [LaneShader]
    let threads: Int
    /// The texture the frame shows.
    private let output: Texture
    /// Every output texture, cleared before each frame.
    private let targets: [Texture]
    private let inputs: [(register: UInt16, attribute: String, components: Int)]
    private let limits: RenderLimits
    private let cancellation: RenderCancellation?

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
        inputs = function.inputs.map { ($0.register, $0.attribute, $0.type.componentCount) }
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
            do throws(RenderError) {
                for x0 in stride(from: 0, to: width, by: size) {
                    writeInputs(shader, x0: x0, y0: rows.lowerBound)
                    try shader.run()
                    try budget.charge(shader)
                }
            } catch {
                failures.record(error)
            }
        }
        if let failure = failures.first { throw failure }
        output.withTexels { texels in
            guard let source = texels.baseAddress else { return }
            for index in 0..<min(texels.count, width * height * 4) { pixels[index] = quantize(source[index]) }
        }
    }

    /// The thread-position inputs of the threadgroup whose first thread is (`x0`, `y0`).
    private func writeInputs(_ shader: LaneShader, x0: Int, y0: Int) {
        let size = Self.groupSize
        let groups = ((width + size - 1) / size, (height + size - 1) / size)
        for input in inputs {
            // Each component is a function of the lane: (x, y, z) of one of the positions.
            let value: (Int, Int) -> (Int, Int, Int)
            switch input.attribute {
            case LaneSlot.inGridName:
                value = { x, y in (x0 + x < self.width && y0 + y < self.height ? 1 : 0, 0, 0) }
            case "thread_position_in_grid": value = { x, y in (x0 + x, y0 + y, 0) }
            case "thread_position_in_threadgroup": value = { x, y in (x, y, 0) }
            case "threadgroup_position_in_grid": value = { _, _ in (x0 / size, y0 / size, 0) }
            case "thread_index_in_threadgroup": value = { x, y in (y * size + x, 0, 0) }
            case "threads_per_grid": value = { _, _ in (self.width, self.height, 1) }
            case "threads_per_threadgroup": value = { _, _ in (size, size, 1) }
            case "threadgroups_per_grid": value = { _, _ in (groups.0, groups.1, 1) }
            default: value = { _, _ in (0, 0, 0) }
            }
            for component in 0..<min(input.components, 3) {
                let lanes = shader.lanes(input.register + UInt16(component))
                for lane in 0..<laneCount {
                    let v = value(lane % size, lane / size)
                    lanes[lane] = UInt32(truncatingIfNeeded: component == 0 ? v.0 : component == 1 ? v.1 : v.2)
                }
            }
        }
    }
}
