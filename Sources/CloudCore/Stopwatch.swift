import Dispatch

/// Milliseconds on the monotonic clock, to the microsecond (what reports print): the time since the
/// previous lap, and since the watch started. Stage timings in reports (capture, filters, render).
public struct Stopwatch {
    private let start = DispatchTime.now().uptimeNanoseconds
    private var last = DispatchTime.now().uptimeNanoseconds

    public init() {}

    public mutating func lap() -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        defer { last = now }
        return Self.milliseconds(now - last)
    }

    public var total: Double { Self.milliseconds(DispatchTime.now().uptimeNanoseconds - start) }

    private static func milliseconds(_ ns: UInt64) -> Double { (Double(ns) / 1e3).rounded() / 1e3 }
}
