import CloudCore

/// What a capture tells the one who started it while it runs, and how it is asked to stop: the
/// CLI draws a progress bar and holds warnings for stderr; the service turns the same calls into a
/// job's progress events and the warnings of its report.
public protocol CaptureObserver: AnyObject {
    /// Something the user should know about a capture that still succeeds.
    func warning(_ warning: CloudWarning)
    /// After each frame: frames taken so far, the total expected when known, points so far.
    func advanced(frames: Int, expected: Int?, points: Int)
    /// Once, after the last frame, before the capture's files land.
    func finished(frames: Int, points: Int, seconds: Double)
    /// Polled between frames: true ends the capture after the frame in hand (Ctrl-C, a job cancelled).
    var stopRequested: Bool { get }
}

/// An observer that hears nothing and never asks to stop: for a capture whose progress nobody
/// watches (validation, tests).
public final class SilentObserver: CaptureObserver {
    public init() {}
    public func warning(_ warning: CloudWarning) {}
    public func advanced(frames: Int, expected: Int?, points: Int) {}
    public func finished(frames: Int, points: Int, seconds: Double) {}
    public var stopRequested: Bool { false }
}
