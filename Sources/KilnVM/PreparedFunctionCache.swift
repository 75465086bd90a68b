import Foundation
import KilnBytecode

/// The prepared forms of one library's entry functions, kept for every draw of that
/// library instead of made again for each.
///
/// Why: a `PreparedFunction` is work in proportion to the code — decoding, the uniformity
/// analysis, liveness, pair scheduling and fusion — and a live preview draws the same
/// library frame after frame with only the arguments and the clock changing. Preparing
/// raymarch took about a millisecond of every frame, a cheap shader's a twentieth of its
/// frame, and the coarse frame after an edit and the full frame after it prepared twice.
/// A prepared function is immutable and shared by all workers, so sharing it between
/// frames (and between sessions that compiled the same source) changes no bit.
///
/// Holds one entry per (function, uniform execution, pair fusion) combination a draw asked
/// for: at most three per function in practice (the two switches are test and benchmark
/// settings), so no eviction; the cache lives as long as whoever keeps the library (the
/// server's compiled shader). Thread-safe.
public final class PreparedFunctionCache: @unchecked Sendable {
    /// The library every entry was prepared from; `prepared` answers only for it.
    public let library: Library
    private struct Key: Hashable {
        var functionIndex: Int
        var uniformExecution: Bool
        var pairFusion: Bool
        var nativeSegments: Bool
    }
    private let lock = NSLock()
    private var entries: [Key: PreparedFunction] = [:]

    public init(library: Library) {
        self.library = library
    }

    /// The function at `functionIndex` prepared with these settings: the kept one, or a
    /// new one that is kept. Two draws asking at once may both prepare it; the first kept
    /// is the one both then share (the two are the same anyway).
    public func prepared(functionIndex: Int, uniformExecution: Bool, pairFusion: Bool,
                         nativeSegments: Bool = true) -> PreparedFunction {
        let key = Key(functionIndex: functionIndex, uniformExecution: uniformExecution, pairFusion: pairFusion,
                      nativeSegments: nativeSegments)
        if let kept = lock.withLock({ entries[key] }) { return kept }
        // Prepared outside the lock: a big function takes a millisecond, and another
        // session's draw of a different function should not wait for it.
        let made = PreparedFunction(library: library, functionIndex: functionIndex,
                                    uniformExecution: uniformExecution, pairFusion: pairFusion,
                                    nativeSegments: nativeSegments)
        return lock.withLock {
            if let kept = entries[key] { return kept }
            entries[key] = made
            return made
        }
    }

    /// Entries kept so far (tests).
    public var count: Int { lock.withLock { entries.count } }
}
