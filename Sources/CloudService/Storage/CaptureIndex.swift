import Foundation

/// The rows that say which captures exist and where jobs stand. Small on purpose, so that an index
/// shared by several service processes (PostgreSQL) can stand in for the SQLite one; async, since
/// such a client is. A capture's row is the commit point of its files (`CaptureStore`).
public protocol CaptureIndex: Sendable {
    /// Whether other server processes (replicas, on other machines too) may use this index and the
    /// data folder at the same time: then start-up must leave alone what may be theirs in flight.
    var isShared: Bool { get }

    /// Adds a capture's row; an id already present is an error.
    func insert(_ capture: CaptureRecord) async throws
    func capture(_ id: CaptureID) async throws -> CaptureRecord?
    /// A page of captures as `query` asks: its order, its text and tags, starting after its anchor.
    func list(_ query: CaptureQuery) async throws -> [CaptureRecord]
    /// Replaces the capture's name, tags and note and counts the change; the updated row, or nil
    /// when there is no such capture.
    func updateLabels(_ id: CaptureID, _ labels: CaptureLabels) async throws -> CaptureRecord?
    /// Whether there was such a row.
    func delete(_ id: CaptureID) async throws -> Bool
    func count() async throws -> Int
    /// Every capture's id, for `CaptureStore.reconcile()`.
    func allIDs() async throws -> [CaptureID]

    /// Adds a job's row; an id already present is an error.
    func insertJob(_ job: JobRecord) async throws
    /// Replaces the job's state, frames, capture, problem and updated time (id and created stay);
    /// whether there was such a row.
    func updateJob(_ job: JobRecord) async throws -> Bool
    func job(_ id: JobID) async throws -> JobRecord?
    /// At most `limit` jobs, newest first, starting after `after`; only those in one of `states`
    /// (all jobs when empty).
    func listJobs(limit: Int, after: JobID?, states: Set<JobRecord.State>) async throws -> [JobRecord]
    /// On start-up: every queued or running job that no live server runs, and that no server will
    /// take over, becomes failed with `JobRecord.interruptedProblem` (its server stopped before it
    /// finished); how many. For an index of one server that is every unfinished job; a shared one
    /// tells them by their lease, and fails only those already tried `JobRecord.maxAttempts` times.
    func markUnfinishedJobsInterrupted(at date: Date) async throws -> Int

    /// A shared index: makes one unfinished job whose server stopped (its lease ran out) this
    /// server's, queued again with its attempts counted, and returns it; nil when there is none.
    /// Replicas claiming at once each get a different job. An index of one server has none.
    func claimAbandonedJob(at date: Date) async throws -> JobRecord?
    /// Whether the unfinished job is still this server's, renewing its lease: asked before a job's
    /// capture is stored, so that a job taken over by another replica is not stored twice.
    func holdsJob(_ id: JobID) async throws -> Bool
    /// A shared index: hands this server's unfinished job back to the queue at once, as a server
    /// stopping gracefully does, for another replica to take over (the attempt is not counted).
    func releaseJob(_ id: JobID, at date: Date) async throws
}

extension CaptureIndex {
    /// At most `limit` captures, newest first (id descending), starting after `after`: the last
    /// id of the previous page, nil for the first page.
    public func list(limit: Int, after: CaptureID?) async throws -> [CaptureRecord] {
        try await list(CaptureQuery(limit: limit, after: after))
    }
}
