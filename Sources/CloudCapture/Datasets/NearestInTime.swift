/// The entry nearest in time, as TUM's association pairs depth with color and with ground-truth
/// poses: among entries sorted by time, the first at or after `t` or the one before it, the
/// earlier on a tie.
enum NearestInTime {
    /// Timestamps of ~1.3e9 s carry ~0.2 µs of rounding in a Double: this much slack keeps a gap of
    /// exactly the limit (as the text files write it) inside the limit.
    static let slack = 1e-6

    static func index<T>(in sorted: [T], to t: Double, time: (T) -> Double) -> Int? {
        var (lo, hi) = (0, sorted.count)
        while lo < hi {
            let mid = (lo + hi) / 2
            if time(sorted[mid]) < t { lo = mid + 1 } else { hi = mid }
        }
        return [lo - 1, lo].filter(sorted.indices.contains).min { abs(time(sorted[$0]) - t) < abs(time(sorted[$1]) - t) }
    }
}
