import KilnBytecode
import KilnVM

/// One batch of a function's work: the renderer writes lane inputs into registers, runs
/// the batch of `laneCount` lanes, and reads the results from registers. This is all the
/// draws (`EffectDraw`, `TriangleDraw`) know of execution; the VM is its implementation
/// (`VMLaneShader`), so a draw never builds or drives an executor itself.
protocol LaneShader: AnyObject {
    /// The lanes of a register, as floats or as raw 32-bit words (masks, discard flags).
    func floatLanes(_ register: UInt16) -> UnsafeMutablePointer<Float>
    func lanes(_ register: UInt16) -> UnsafeMutablePointer<UInt32>
    /// Runs the batch; a runtime error names the source line.
    func run() throws(RenderError)
    /// The work of the last `run()` (`Executor.work`: weighted instructions, each over all lanes).
    var work: Int { get }
    /// Instructions the last `run()` executed (unweighted, each over all lanes).
    var instructions: Int { get }
    /// Of those, the uniform ones run once and broadcast (`Executor.scalarInstructions`).
    var scalarInstructions: Int { get }
    /// Runs the batch exactly as `run()` does, recording `lane`'s steps (the debugger); a
    /// run over the budget comes back with `failure` set.
    func trace(lane: Int, maxSteps: Int) -> LaneTrace
    /// Runs the batch exactly as `run()` does, counting what each lane executed (the heatmap).
    func runCounting(_ plan: CostPlan, into counts: inout CostCounts) throws(RenderError)
}

/// A library function with its arguments, buffers and textures bound for one draw: makes
/// one `LaneShader` per worker thread.
struct ShaderStage {
    let function: Function
    private let library: Library
    private let prepared: PreparedFunction
    private let resources: DrawResources

    /// Binds `arguments` (plus `time`, `size`, `bounds` for a `width`×`height` output) and
    /// `textures` (by default the request's content) for the function at `functionIndex`.
    init(request: RenderRequest, functionIndex: Int, arguments: [String: [Float]], width: Int, height: Int,
         textures: [Texture]? = nil) throws(RenderError) {
        library = request.library
        function = library.functions[functionIndex]
        let binder = ArgumentBinder(width: width, height: height, time: request.time, values: arguments)
        let (uniforms, buffers) = try binder.bind(function)
        resources = DrawResources(uniforms: uniforms, buffers: buffers,
                                  textures: textures ?? Renderer.textures(for: function, request: request),
                                  limits: request.executionLimits)
        let limits = request.executionLimits
        if let cache = request.preparedFunctions, cache.library == library {
            prepared = cache.prepared(functionIndex: functionIndex, uniformExecution: limits.uniformExecution,
                                      pairFusion: limits.pairFusion, nativeSegments: limits.nativeSegments)
        } else {
            prepared = PreparedFunction(library: library, functionIndex: functionIndex, uniformExecution: limits.uniformExecution,
                                        pairFusion: limits.pairFusion, nativeSegments: limits.nativeSegments)
        }
    }

    /// The statement masks and lines of the function, for counting runs (`CostPlan`).
    func makeCostPlan() -> CostPlan { CostPlan(prepared) }

    /// A shader for one worker (lane shaders are not thread-safe; the prepared code is shared).
    func makeShader() throws(RenderError) -> LaneShader {
        do {
            return VMLaneShader(executor: try Executor(prepared, resources: resources), library: library)
        } catch {
            throw Renderer.describe(error, library: library)
        }
    }
}

/// The VM as the renderer's lane shader.
final class VMLaneShader: LaneShader {
    private let executor: Executor
    private let library: Library

    init(executor: Executor, library: Library) {
        self.executor = executor
        self.library = library
    }

    @inline(__always) func floatLanes(_ register: UInt16) -> UnsafeMutablePointer<Float> { executor.floatLanes(register) }
    @inline(__always) func lanes(_ register: UInt16) -> UnsafeMutablePointer<UInt32> { executor.lanes(register) }

    func run() throws(RenderError) {
        do { try executor.run() } catch { throw Renderer.describe(error, library: library) }
    }

    func trace(lane: Int, maxSteps: Int) -> LaneTrace {
        executor.trace(lane: lane, maxSteps: maxSteps)
    }

    func runCounting(_ plan: CostPlan, into counts: inout CostCounts) throws(RenderError) {
        do { try executor.runCounting(plan, into: &counts) } catch { throw Renderer.describe(error, library: library) }
    }

    var work: Int { executor.work }
    var instructions: Int { executor.instructions }
    var scalarInstructions: Int { executor.scalarInstructions }
}
