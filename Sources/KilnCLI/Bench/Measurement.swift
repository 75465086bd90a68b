import Foundation

/// Timing helpers for the benchmarks: a monotonic clock and medians.
enum Measurement {
    /// Seconds on a monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// Seconds `body` takes.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return now() - start
    }

    /// The median of `samples` (the mean of the middle two for an even count).
    static func median(_ samples: [Double]) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Runs `body` repeatedly for at least `seconds` and at least `minimumRuns` times;
    /// returns each run's duration.
    static func repeated(seconds: Double, minimumRuns: Int, _ body: () throws -> Void) rethrows -> [Double] {
        var samples: [Double] = []
        let start = now()
        while samples.count < minimumRuns || now() - start < seconds {
            samples.append(try time(body))
        }
        return samples
    }
}
