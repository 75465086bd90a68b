/// A table one pass keeps over one function — per register, unit or instruction — made
/// filled with one value, indexed, and freed when the pass returns.
///
/// The passes after lowering used `Array(repeating:count:)` for these, ~25 tables a
/// function. That initializer allocates through the standard library's unspecialized
/// `_allocateBufferUninitialized`, which looks up the metadata of
/// `_ContiguousArrayStorage<Element>` in the runtime's locked hash table on every call
/// (~450 instructions), and every store into an array first checks that the array is
/// uniquely referenced. For a small function the lookups alone were a tenth of its compile.
/// A table is one `malloc`, one fill and one `free`, and a store is a store. (Arrays made
/// another way without the lookup lost the optimizer's knowledge that they are fresh, and
/// the uniqueness checks in the passes' loops cost more than the lookups saved:
/// docs/benchmarks.md, forty-fourth session.)
///
/// Noncopyable, so no table outlives its pass or is shared by mistake; its elements are
/// plain bits, so freeing it is a single call. An index out of range traps, as an array's does.
struct PassTable<Element: BitwiseCopyable>: ~Copyable {
    private let base: UnsafeMutablePointer<Element>
    /// The number of elements.
    let count: Int

    /// `count` copies of `value`.
    init(repeating value: Element, count: Int) {
        base = .allocate(capacity: count)
        base.initialize(repeating: value, count: count)
        self.count = count
    }

    /// A table holding the same elements as `other`.
    init(copying other: borrowing PassTable<Element>) {
        base = .allocate(capacity: other.count)
        base.initialize(from: other.base, count: other.count)
        count = other.count
    }

    deinit { base.deallocate() }

    /// The element at `index`, read and written in place (`table[i].field += 1` touches
    /// only that field).
    @inline(__always)
    subscript(index: Int) -> Element {
        unsafeAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "table index out of range")
            return UnsafePointer(base + index)
        }
        unsafeMutableAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "table index out of range")
            return base + index
        }
    }

    /// `0 ..< count`.
    var indices: Range<Int> { 0..<count }
}
