/// The thread-position attributes of a `kernel` function's parameters. Kiln previews a
/// kernel as a grid the size of the frame, in threadgroups of `KernelInput.threadgroupSize`
/// (docs/language.md, "Kernel functions"); each input is a lane input the renderer writes per thread.
public enum KernelInput: String, CaseIterable, Hashable, Sendable {
    case threadPositionInGrid = "thread_position_in_grid"
    case threadPositionInThreadgroup = "thread_position_in_threadgroup"
    case threadgroupPositionInGrid = "threadgroup_position_in_grid"
    case threadIndexInThreadgroup = "thread_index_in_threadgroup"
    case threadsPerGrid = "threads_per_grid"
    case threadsPerThreadgroup = "threads_per_threadgroup"
    case threadgroupsPerGrid = "threadgroups_per_grid"
}
