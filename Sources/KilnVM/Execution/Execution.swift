import KilnBytecode

/// The instruction semantics, one `@inline(__always)` function per opcode, grouped by family
/// in `Execution/*.swift` (WasmKit style). Each is a straight loop over `laneCount` lanes on
/// raw pointers — no classes, closures, existentials, ARC, allocation or bounds checks — so
/// the optimizer can vectorize it. `Executor` owns the state; `Machine` is the bundle of raw
/// pointers the hot loop passes around.
enum Execution {
    /// Raw views of everything an instruction may touch. A trivial struct: copying it costs
    /// nothing and involves no reference counting.
    struct Machine {
        /// The register file: `registerCount × laneCount` words, 64-byte aligned.
        var registers: UnsafeMutablePointer<UInt32>
        var constants: UnsafePointer<UInt32>
        var constantCount: Int
        var uniforms: UnsafePointer<UInt32>
        var uniformCount: Int
        var buffers: UnsafePointer<BufferView>
        var bufferCount: Int
        var textures: UnsafePointer<TextureView>
        var textureCount: Int
        /// `scratchWordsPerLane × laneCount` words of per-instruction scratch (sampling
        /// keeps its per-lane indexes and weights here between its two passes).
        var scratch: UnsafeMutablePointer<UInt32>
        /// `UniformMemo.entriesPerSlot` entries per memoized instruction of the body.
        var memo: UnsafeMutablePointer<UniformMemo.Entry>
        /// The body's native segments by index (`NativeSegments`), if it has any.
        var nativeEntries: UnsafeMutablePointer<NativeSegments.Entry>?

        /// The lanes of the register whose lane offset is `offset`.
        @inline(__always) subscript(_ offset: UInt32) -> UnsafeMutablePointer<UInt32> {
            registers + Int(offset)
        }
    }

    /// Scratch words per lane an instruction may use (see `Machine.scratch`).
    static let scratchWordsPerLane = 5

    /// A bound buffer: a stable copy of its words.
    struct BufferView {
        var words: UnsafePointer<UInt32>
        var count: Int
    }

    /// What the dispatcher does after an instruction.
    enum Flow {
        case next
        case jump(Int)
        case finish
    }
}
