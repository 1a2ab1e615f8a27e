/// The clock a device stamps its frames with.
public enum DeviceClock: Sendable {
    /// The Kinect v1's 60 MHz counter, 32 bits wide: it wraps every 71.6 s.
    case kinectTicks
    /// OpenNI2's microseconds.
    case microseconds

    public var ticksPerSecond: Double {
        switch self {
        case .kinectTicks: return 60_000_000
        case .microseconds: return 1_000_000
        }
    }

    /// How far apart two stamps are, across a wrap of the Kinect's counter.
    public func distance(_ a: UInt64, _ b: UInt64) -> UInt64 {
        switch self {
        case .kinectTicks:
            let forward = UInt32(truncatingIfNeeded: a) &- UInt32(truncatingIfNeeded: b)
            return UInt64(min(forward, 0 &- forward))
        case .microseconds:
            return a > b ? a - b : b - a
        }
    }
}

/// Pairs depth and color frames that were taken together. The two streams of a depth camera run
/// at the same rate but arrive independently; a depth frame goes with the color frame whose stamp
/// is nearest, when that is within `tolerance` (half a frame interval: any further and it belongs
/// to another instant). Frames older than a pair's are stale and dropped; a few unpaired ones are
/// kept, in case their partner is late.
public struct FramePairer<Depth, Color> {
    public let clock: DeviceClock
    public let tolerance: UInt64
    private var depths: [(stamp: UInt64, frame: Depth)] = []
    private var colors: [(stamp: UInt64, frame: Color)] = []
    private let backlog = 4
    /// Frames dropped without a partner so far.
    public private(set) var unpaired = 0

    public init(clock: DeviceClock, framesPerSecond: Double = 30) {
        self.clock = clock
        tolerance = UInt64(clock.ticksPerSecond / framesPerSecond / 2)
    }

    public mutating func add(depth: Depth, stamp: UInt64) -> (depth: Depth, color: Color, stamp: UInt64)? {
        guard let match = nearest(stamp, in: colors.map(\.stamp)) else {
            depths = Self.appending((stamp, depth), to: depths, keeping: backlog, dropped: &unpaired)
            return nil
        }
        let color = colors[match].frame
        unpaired += depths.count + match
        colors.removeFirst(match + 1)
        depths.removeAll()
        return (depth, color, stamp)
    }

    public mutating func add(color: Color, stamp: UInt64) -> (depth: Depth, color: Color, stamp: UInt64)? {
        guard let match = nearest(stamp, in: depths.map(\.stamp)) else {
            colors = Self.appending((stamp, color), to: colors, keeping: backlog, dropped: &unpaired)
            return nil
        }
        let depth = depths[match]
        unpaired += colors.count + match
        depths.removeFirst(match + 1)
        colors.removeAll()
        return (depth.frame, color, depth.stamp)
    }

    private func nearest(_ stamp: UInt64, in stamps: [UInt64]) -> Int? {
        let best = stamps.indices.min { clock.distance(stamps[$0], stamp) < clock.distance(stamps[$1], stamp) }
        return best.flatMap { clock.distance(stamps[$0], stamp) <= tolerance ? $0 : nil }
    }

    private static func appending<T>(
        _ item: (stamp: UInt64, frame: T), to list: [(stamp: UInt64, frame: T)], keeping limit: Int,
        dropped: inout Int
    ) -> [(stamp: UInt64, frame: T)] {
        var list = list + [item]
        if list.count > limit {
            dropped += list.count - limit
            list.removeFirst(list.count - limit)
        }
        return list
    }
}
