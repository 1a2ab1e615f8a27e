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

/// The stages of one run of a pipeline, as the pipeline's own report times them, in the order
/// they first ran; a stage that recurs (once per frame of a sequence) adds up.
struct StageTimes {
    private(set) var nanoseconds: [String: UInt64] = [:]
    private(set) var order: [String] = []

    mutating func add(_ stage: String, milliseconds: Double) {
        if nanoseconds[stage] == nil { order.append(stage) }
        nanoseconds[stage, default: 0] += UInt64((milliseconds * 1e6).rounded())
    }
}

/// A whole pipeline's time and each stage's share of it, from the same runs.
struct StagedTiming: Codable {
    var whole: Timing
    var stages: [String: Timing]
    /// The stages in the order they first ran.
    var stageOrder: [String]
}

/// Like `measure`, for a pipeline that reports its own stages: every run is timed as a whole here,
/// and each stage's median is taken over the same runs. The medians of the stages need not add up
/// to the median of the whole, but come close on a quiet machine.
func measureStages(runs: Int, warmup: Int, _ body: () throws -> (result: Int, stages: StageTimes)) rethrows -> StagedTiming {
    for _ in 0..<warmup { sink &+= try body().result }
    var whole: [UInt64] = []
    var perStage: [String: [UInt64]] = [:]
    var order: [String] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        let (result, stages) = try body()
        whole.append(DispatchTime.now().uptimeNanoseconds - start)
        sink &+= result
        for stage in stages.order where perStage[stage] == nil { order.append(stage) }
        for (stage, ns) in stages.nanoseconds { perStage[stage, default: []].append(ns) }
    }
    return StagedTiming(
        whole: Timing(nanoseconds: whole),
        stages: perStage.mapValues { Timing(nanoseconds: $0) }, stageOrder: order)
}
