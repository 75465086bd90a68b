import Foundation

/// Counters and a render-time histogram, exported in the Prometheus text format at
/// `GET /metrics`. Thread-safe; updates are a lock and an add.
public final class Metrics: @unchecked Sendable {
    private let lock = NSLock()
    private var counters: [String: Double] = [:]
    private var gauges: [String: Double] = [:]
    /// Upper bounds (seconds) of the render-time histogram buckets.
    static let renderBuckets: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1]
    private var renderBucketCounts = [Int](repeating: 0, count: renderBuckets.count)
    private var renderCount = 0
    private var renderSum = 0.0

    /// What each metric means, printed as `# HELP`.
    static let help: [String: String] = [
        "kiln_connections": "Open WebSocket connections.",
        "kiln_connections_total": "WebSocket connections accepted since start.",
        "kiln_compiles_total": "Compile requests (WebSocket and HTTP), cache hits included.",
        "kiln_compile_errors_total": "Compile requests that produced errors.",
        "kiln_compile_cache_hits_total": "Compile requests answered from the library cache.",
        "kiln_header_cache_hits_total": "Compiles that found their leading #include's front-end work in the header cache.",
        "kiln_header_cache_entries": "Headers the header cache holds.",
        "kiln_frames_sent_total": "Preview frames queued to clients.",
        "kiln_frames_dropped_total": "Preview frames skipped because the client had two in flight.",
        "kiln_http_requests_total": "HTTP API requests.",
        "kiln_protocol_errors_total": "Bad WebSocket requests answered with an error message.",
        "kiln_renders_failed_total": "Renders that stopped with an error (e.g. a runaway loop).",
        "kiln_renders_superseded_total": "Preview renders that failed after their settings or library were replaced (not reported).",
        "kiln_draining": "1 while the server drains before a stop (/healthz answers 503).",
        "kiln_spectators": "Connections watching a live session.",
        "kiln_spectator_frames_sent_total": "Preview frames queued to spectators.",
        "kiln_spectator_frames_skipped_total": "Preview frames a spectator missed because it had frames waiting.",
    ]

    public init() {}

    public func increment(_ name: String, by value: Double = 1) {
        lock.lock(); counters[name, default: 0] += value; lock.unlock()
    }

    public func set(_ name: String, _ value: Double) {
        lock.lock(); gauges[name] = value; lock.unlock()
    }

    /// Sets a counter kept elsewhere (the header cache counts its own hits) to its total.
    public func setCounter(_ name: String, _ value: Double) {
        lock.lock(); counters[name] = value; lock.unlock()
    }

    public func counter(_ name: String) -> Double {
        lock.lock(); defer { lock.unlock() }
        return counters[name] ?? gauges[name] ?? 0
    }

    public func observeRender(seconds: Double) {
        lock.lock()
        renderCount += 1
        renderSum += seconds
        for (index, bound) in Self.renderBuckets.enumerated() where seconds <= bound { renderBucketCounts[index] += 1 }
        lock.unlock()
    }

    /// The Prometheus text exposition.
    public func prometheusText() -> String {
        lock.lock(); defer { lock.unlock() }
        var out = ""
        for name in Set(counters.keys).union(Self.help.keys.filter { $0.hasSuffix("_total") }).sorted() {
            out += "# HELP \(name) \(Self.help[name] ?? name)\n# TYPE \(name) counter\n\(name) \(format(counters[name] ?? 0))\n"
        }
        for name in Set(gauges.keys).union(["kiln_connections"]).sorted() {
            out += "# HELP \(name) \(Self.help[name] ?? name)\n# TYPE \(name) gauge\n\(name) \(format(gauges[name] ?? 0))\n"
        }
        out += "# HELP kiln_render_seconds Time to render one preview frame.\n# TYPE kiln_render_seconds histogram\n"
        for (index, bound) in Self.renderBuckets.enumerated() {
            out += "kiln_render_seconds_bucket{le=\"\(format(bound))\"} \(renderBucketCounts[index])\n"
        }
        out += "kiln_render_seconds_bucket{le=\"+Inf\"} \(renderCount)\nkiln_render_seconds_sum \(format(renderSum))\nkiln_render_seconds_count \(renderCount)\n"
        return out
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
