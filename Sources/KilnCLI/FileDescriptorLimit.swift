import Foundation

/// The process's open-file limit and what it allows `kiln serve` to accept. Every
/// WebSocket connection holds a descriptor; with a soft limit below `--max-connections`
/// the process runs out of descriptors before its own 503 triggers, and connections are
/// dropped without a close frame. So at start-up the soft limit is raised to the hard one,
/// and if that is still too low, `--max-connections` is lowered to fit, and the log says so.
enum FileDescriptorLimit {
    /// Descriptors kept for everything that is not a client: listening socket, files
    /// served, the event loop, Dispatch, standard streams.
    static let reserved = 64

    /// `RLIMIT_NOFILE` as the C functions take it (Glibc imports the enum and the
    /// parameter type separately).
    #if os(Linux)
    static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    static let resource = RLIMIT_NOFILE
    #endif

    /// Raises the soft limit as far as the hard limit allows; returns the connections
    /// that fit under it (`requested` when they all do) and a line for the log when not.
    static func fit(connections requested: Int) -> (connections: Int, note: String?) {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return (requested, nil) }
        let wanted = rlim_t(requested + reserved)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, wanted)
            if setrlimit(Self.resource, &raised) == 0 { limit = raised }
        }
        let fits = Int(clamping: limit.rlim_cur) - reserved
        guard fits < requested else { return (requested, nil) }
        let allowed = max(1, fits)
        return (allowed, "kiln serve: the open-file limit is \(limit.rlim_cur) (hard limit \(limit.rlim_max)); "
                + "--max-connections lowered from \(requested) to \(allowed) so the server can still answer 503")
    }
}
