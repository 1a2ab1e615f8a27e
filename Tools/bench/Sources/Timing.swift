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

    /// From samples in nanoseconds.
    init(nanoseconds samples: [UInt64]) {
        let sorted = samples.sorted()
        let n = sorted.count
        let median = n % 2 == 1 ? Double(sorted[n / 2]) : (Double(sorted[n / 2 - 1]) + Double(sorted[n / 2])) / 2
        medianS = median * 1e-9
        minS = Double(sorted[0]) * 1e-9
        runs = n
    }
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
    return Timing(nanoseconds: samples)
}

/// The clock of one end-to-end run: `lap(stage)` charges the time since the previous lap (or the
/// start) to `stage`, adding up when a stage recurs, as it does once per frame of a sequence.
struct Laps {
    private(set) var nanoseconds: [String: UInt64] = [:]
    private(set) var order: [String] = []
    private var last = DispatchTime.now().uptimeNanoseconds

    mutating func lap(_ stage: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        if nanoseconds[stage] == nil { order.append(stage) }
        nanoseconds[stage, default: 0] += now - last
        last = now
    }
}

/// A whole pipeline's time and each stage's share of it, from the same runs.
struct StagedTiming: Codable {
    var whole: Timing
    var stages: [String: Timing]
    /// The stages in the order they first ran.
    var stageOrder: [String]
}

/// Like `measure`, for a pipeline that calls `laps.lap(stage)` after each stage: every run is
/// timed as a whole, and each stage's median is taken over the same runs. The medians of the
/// stages need not add up to the median of the whole, but come close on a quiet machine.
func measureStages(runs: Int, warmup: Int, _ body: (inout Laps) throws -> Int) rethrows -> StagedTiming {
    for _ in 0..<warmup {
        var laps = Laps()
        sink &+= try body(&laps)
    }
    var whole: [UInt64] = []
    var perStage: [String: [UInt64]] = [:]
    var order: [String] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        var laps = Laps()
        sink &+= try body(&laps)
        whole.append(DispatchTime.now().uptimeNanoseconds - start)
        for stage in laps.order where perStage[stage] == nil { order.append(stage) }
        for (stage, ns) in laps.nanoseconds { perStage[stage, default: []].append(ns) }
    }
    return StagedTiming(
        whole: Timing(nanoseconds: whole),
        stages: perStage.mapValues { Timing(nanoseconds: $0) }, stageOrder: order)
}
