import Foundation

/// A background job (an uploaded bundle being captured) as the index keeps it, so that its
/// state outlives the request that started it, and a restart shows it failed, not running.
public struct JobRecord: Equatable, Sendable {
    public enum State: String, Sendable, CaseIterable {
        case queued, running, succeeded, failed
    }

    public var id: JobID
    public var state: State
    /// Times are kept to the millisecond, as the index does.
    public var created: Date
    public var updated: Date
    public var framesDone: Int
    /// Nil until the job knows how many frames its source has.
    public var framesTotal: Int?
    /// The capture a succeeded job made.
    public var captureID: CaptureID?
    /// Why a failed job failed: a JSON object, stored and returned verbatim.
    public var problem: String?

    public init(
        id: JobID, state: State, created: Date, updated: Date, framesDone: Int = 0, framesTotal: Int? = nil,
        captureID: CaptureID? = nil, problem: String? = nil
    ) {
        self.id = id
        self.state = state
        self.created = created.wholeMilliseconds
        self.updated = updated.wholeMilliseconds
        self.framesDone = framesDone
        self.framesTotal = framesTotal
        self.captureID = captureID
        self.problem = problem
    }

    /// How many times a shared index lets a job be started before it fails as interrupted: a job
    /// that takes its replica down each time (the kernel's OOM killer) must not take down them all.
    public static let maxAttempts = 3

    /// The problem of a job that was queued or running when the server stopped.
    public static let interruptedProblem =
        #"{"title":"interrupted","detail":"the server restarted before the job finished"}"#

    /// The problem of a job the server cancelled as it stopped (gracefully: SIGTERM, Ctrl-C).
    public static let stoppedProblem =
        #"{"title":"interrupted","detail":"the server stopped before the job finished"}"#
}

extension JobRecord.State {
    /// Succeeded or failed: nothing about the job changes any more.
    var isFinished: Bool { self == .succeeded || self == .failed }
}
