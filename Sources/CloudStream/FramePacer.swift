import Foundation

/// When each frame of a stream leaves: at once, at a fixed rate, or as far apart as the source's
/// own timestamps (a recording played back in its own time). Both streams' feeders use it: the
/// CLI pushing to a service (`cloudgen stream`) and the service reading a source itself. The first
/// frame goes at once. A frame that comes late (a slow source, a busy machine) restarts the
/// schedule from its own departure: a stall is not followed by a burst of frames catching up.
public struct FramePacer: Sendable {
    public enum Pace: Sendable, Equatable {
        /// As soon as the source gives a frame (a camera paces itself).
        case fastest
        /// Frames a second.
        case fixed(Double)
        /// As far apart as the frames' timestamps.
        case timestamps
    }

    /// A gap between two timestamps that is not positive or is this long or longer (a recording's
    /// clock reset, a pause in a capture) is not waited out: `fallbackInterval` is, instead.
    public static let longestGap = 5.0

    public let pace: Pace
    public let fallbackInterval: Double
    /// When the previous frame was due, on `now()`'s clock.
    private var previousDeparture: Double?
    private var previousTimestamp: Double?

    public init(_ pace: Pace, fallbackInterval: Double = 1 / 30) {
        self.pace = pace
        self.fallbackInterval = fallbackInterval
    }

    /// When the frame stamped `timestamp` (seconds, the source's clock) is due, on `now()`'s clock,
    /// given that it is `now` there; nil: at once (`.fastest`).
    public mutating func departure(timestamp: Double, now: Double) -> Double? {
        defer { previousTimestamp = timestamp }
        let interval: Double
        switch pace {
        case .fastest: return nil
        case .fixed(let fps): interval = 1 / fps
        case .timestamps:
            let gap = previousTimestamp.map { timestamp - $0 }
            interval = gap.flatMap { $0 > 0 && $0 < Self.longestGap ? $0 : nil } ?? fallbackInterval
        }
        let due = previousDeparture.map { max($0 + interval, now) } ?? now
        previousDeparture = due
        return due
    }

    /// The next frame goes at once again, its schedule counted from it (after a pause: no audience).
    public mutating func restart() {
        previousDeparture = nil
        previousTimestamp = nil
    }

    /// Seconds on a monotonic clock, the one `departure` counts on.
    public static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
