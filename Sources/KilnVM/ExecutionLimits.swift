/// Limits on one draw's execution. Every limit is a named setting with a safe default.
public struct ExecutionLimits: Sendable, Hashable {
    /// Instructions a lane may execute in one run of a body. Loops check it at every back
    /// edge; exceeding it stops the draw with a `VMError` naming the loop's source line.
    public var instructionBudgetPerLane: Int = 1_000_000
    /// Not a limit but how the body runs: instructions `UniformityAnalysis` proves uniform
    /// execute on one lane and are broadcast. Off, every instruction runs over all lanes —
    /// the same bits, slower; tests compare the two and benchmarks measure the saving.
    public var uniformExecution = true
    /// Not a limit either: dependent pairs of float instructions run as one step
    /// (`PairFusion`). Off, each runs on its own — the same bits, slower.
    public var pairFusion = true
    /// Nor this: runs of lane-wide float arithmetic execute as machine code, eight lanes at
    /// a time through the whole run (`NativeSegments`; x86-64 with AVX only). Off, the
    /// interpreter runs them — the same bits, slower.
    public var nativeSegments = true

    public init() {}
}
