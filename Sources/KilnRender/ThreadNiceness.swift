#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The nice value of the calling thread, and lowering its priority: what keeps threads
/// that shade pixels from making threads that wait for people wait.
///
/// Why: with as many busy render threads as cores, a thread that wakes up to answer — the
/// server's network thread with an edit's `compiled` reply or a finished frame, a browser
/// on the same machine reading them — waits for the scheduler to take a core from a
/// render. On this project's 2-core machines `kiln serve`'s replies and coarse frames, written
/// in 0.1 ms, reached a client 2–4 ms later while the full frame after them rendered
/// (docs/benchmarks.md, "render threads at nice 10"). Work at a higher nice value gives
/// way to a waking thread at once, and still gets every idle cycle: a render alone on the
/// machine runs exactly as fast.
///
/// Linux keeps a nice value per thread (`setpriority(PRIO_PROCESS, 0, n)` sets the
/// calling thread's); POSIX says per process, so elsewhere this may lower the whole
/// process. Lowering needs no privilege, raising back does: so these only ever lower.
public enum ThreadNiceness {
    /// The calling thread's nice value (−20 … 19).
    public static var current: Int32 {
        errno = 0
        let value = getpriority(which, 0)
        return errno == 0 ? value : 0
    }

    /// Gives the calling thread at least nice value `nice` (0 … 19; nothing happens when it
    /// already has as much, or for 0 and below) and returns the value it has now.
    @discardableResult
    public static func lowerCurrentThread(to nice: Int32) -> Int32 {
        let now = current
        guard nice > now else { return now }
        _ = setpriority(which, 0, min(nice, 19))
        return current
    }

    #if canImport(Glibc)
    private static let which = __priority_which_t(PRIO_PROCESS.rawValue)
    #else
    private static let which = PRIO_PROCESS
    #endif
}
