import Dispatch

/// Wall-time statistics of one stage. Median rather than mean, because a single preemption on a
/// 2-core machine can double one sample; min shows what the code does when nothing interferes.
struct Timing: Codable {
    var medianS: Double
    var minS: Double
    var runs: Int
    /// Back-projection only: points in the cloud / median time.
    var pointsPerS: Double?
    /// Writes only: the written file's size, and that size / median time in 10^6 bytes per second.
    var bytes: Int?
    var mbPerS: Double?
}

/// Results that must not be optimised away feed into this; it is printed nowhere.
nonisolated(unsafe) var sink = 0

/// Runs `body` `warmup` times untimed (first-touch page faults, lazy symbol binding, allocator
/// growth), then `runs` times timed, each sample on the monotonic DispatchTime clock.
func measure(runs: Int, warmup: Int, _ body: () throws -> Int) rethrows -> Timing {
    for _ in 0..<warmup { sink &+= try body() }
    var samples: [UInt64] = []
    samples.reserveCapacity(runs)
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        sink &+= try body()
        samples.append(DispatchTime.now().uptimeNanoseconds - start)
    }
    samples.sort()
    let n = samples.count
    let median = n % 2 == 1 ? Double(samples[n / 2]) : (Double(samples[n / 2 - 1]) + Double(samples[n / 2])) / 2
    return Timing(medianS: median * 1e-9, minS: Double(samples[0]) * 1e-9, runs: runs)
}
