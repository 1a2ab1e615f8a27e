import CloudCore
import Foundation
import PostgresNIO

/// Jobs, with what sharing adds: a job is the replica's that inserted or claimed it, which renews
/// its lease (`run()`) and alone may write it (an update from any other replica changes nothing).
/// A job whose lease ran out (its replica died, or stopped and released it) is claimed by another
/// replica and run again from its folder; one already tried `JobRecord.maxAttempts` times is failed
/// as interrupted instead.
extension PostgresCaptureIndex {
    /// The lease as an interval the database adds to its own clock.
    private var leaseSeconds: Double { Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18 }

    public func insertJob(_ job: JobRecord) async throws {
        let logger = logger
        let (replica, lease) = (replica, leaseSeconds)
        try await withConnection { connection in
            _ = try await connection.query(
                """
                INSERT INTO job (id, state, created, updated, frames_done, frames_total, capture_id, problem, replica, lease_until)
                VALUES (\(job.id.rawValue), \(job.state.rawValue), \(job.created.unixMilliseconds), \(job.updated.unixMilliseconds),
                        \(job.framesDone), \(job.framesTotal), \(job.captureID?.rawValue), \(job.problem),
                        \(replica), now() + make_interval(secs => \(lease)))
                """, logger: logger)
        }
    }

    public func updateJob(_ job: JobRecord) async throws -> Bool {
        let logger = logger
        let (replica, lease) = (replica, leaseSeconds)
        return try await withConnection { connection in
            let updated = try await connection.query(
                """
                UPDATE job SET state = \(job.state.rawValue), updated = \(job.updated.unixMilliseconds), frames_done = \(job.framesDone),
                               frames_total = \(job.framesTotal), capture_id = \(job.captureID?.rawValue), problem = \(job.problem),
                               lease_until = now() + make_interval(secs => \(lease))
                WHERE id = \(job.id.rawValue) AND replica = \(replica) RETURNING id
                """, logger: logger
            ).collect()
            return !updated.isEmpty
        }
    }

    public func job(_ id: JobID) async throws -> JobRecord? {
        try await jobs("SELECT * FROM job WHERE id = \(id.rawValue)").first
    }

    public func listJobs(limit: Int, after: JobID?, states: Set<JobRecord.State>) async throws -> [JobRecord] {
        var binds = PostgresBindings()
        var conditions: [String] = []
        if let after {
            binds.append(after.rawValue)
            conditions.append("id < $\(binds.count)")
        }
        if !states.isEmpty {
            let names = states.map(\.rawValue).sorted()
            let placeholders = names.map { name in
                binds.append(name)
                return "$\(binds.count)"
            }
            conditions.append("state IN (\(placeholders.joined(separator: ", ")))")
        }
        binds.append(max(0, limit))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try await jobs(PostgresQuery(unsafeSQL: "SELECT * FROM job \(filter) ORDER BY id DESC LIMIT $\(binds.count)", binds: binds))
    }

    /// Fails the unfinished jobs whose lease ran out, by the database's clock, and that were tried
    /// `JobRecord.maxAttempts` times already: a live replica renews its own every third of the
    /// lease, so its jobs are never among them, and a job tried fewer times is claimed instead.
    public func markUnfinishedJobsInterrupted(at date: Date) async throws -> Int {
        let logger = logger
        return try await withConnection { connection in
            try await connection.query(
                """
                UPDATE job SET state = 'failed', problem = \(JobRecord.interruptedProblem), updated = \(date.unixMilliseconds)
                WHERE state IN ('queued', 'running') AND lease_until <= now() AND attempts >= \(JobRecord.maxAttempts) RETURNING id
                """, logger: logger
            ).collect().count
        }
    }

    /// The oldest abandoned job, locked with `FOR UPDATE SKIP LOCKED` so that replicas claiming at
    /// once pass over each other's pick rather than wait for it, made this replica's in the same
    /// statement. Its progress starts again from nothing: the job runs again from its inputs.
    public func claimAbandonedJob(at date: Date) async throws -> JobRecord? {
        let (replica, lease) = (replica, leaseSeconds)
        return try await jobs(
            """
            UPDATE job SET replica = \(replica), lease_until = now() + make_interval(secs => \(lease)), attempts = attempts + 1,
                           state = 'queued', frames_done = 0, frames_total = NULL, updated = \(date.unixMilliseconds)
            WHERE id = (SELECT id FROM job WHERE state IN ('queued', 'running') AND lease_until <= now()
                                                 AND attempts < \(JobRecord.maxAttempts)
                        ORDER BY created, id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING *
            """
        ).first
    }

    public func holdsJob(_ id: JobID) async throws -> Bool {
        let logger = logger
        let (replica, lease) = (replica, leaseSeconds)
        return try await withConnection { connection in
            try await !connection.query(
                """
                UPDATE job SET lease_until = now() + make_interval(secs => \(lease))
                WHERE id = \(id.rawValue) AND replica = \(replica) AND state IN ('queued', 'running') RETURNING id
                """, logger: logger
            ).collect().isEmpty
        }
    }

    /// Queued again with its lease run out, and its attempt not counted: the next claim takes it.
    public func releaseJob(_ id: JobID, at date: Date) async throws {
        let logger = logger
        let replica = replica
        try await withConnection { connection in
            _ = try await connection.query(
                """
                UPDATE job SET state = 'queued', lease_until = now(), attempts = attempts - 1, frames_done = 0, frames_total = NULL,
                               updated = \(date.unixMilliseconds)
                WHERE id = \(id.rawValue) AND replica = \(replica) AND state IN ('queued', 'running')
                """, logger: logger)
        }
    }

    /// Extends the lease of every unfinished job of this replica.
    func renewLeases() async throws {
        let logger = logger
        let (replica, lease) = (replica, leaseSeconds)
        try await withConnection { connection in
            _ = try await connection.query(
                """
                UPDATE job SET lease_until = now() + make_interval(secs => \(lease))
                WHERE replica = \(replica) AND state IN ('queued', 'running')
                """, logger: logger)
        }
    }

    private func jobs(_ query: PostgresQuery) async throws -> [JobRecord] {
        let logger = logger
        let address = address
        return try await withConnection { connection in
            try await connection.query(query, logger: logger).collect().map { row in
                let row = row.makeRandomAccess()
                let id: JobID = try Self.id(row["id"].decode(String.self), address)
                guard let state = JobRecord.State(rawValue: try row["state"].decode(String.self)) else {
                    throw CloudError.io("\(address): job \(id) has an unknown state")
                }
                return JobRecord(
                    id: id, state: state, created: Date(unixMilliseconds: try row["created"].decode(Int64.self)),
                    updated: Date(unixMilliseconds: try row["updated"].decode(Int64.self)),
                    framesDone: try row["frames_done"].decode(Int.self), framesTotal: try row["frames_total"].decode(Int?.self),
                    captureID: try row["capture_id"].decode(String?.self).map { try Self.id($0, address) },
                    problem: try row["problem"].decode(String?.self))
            }
        }
    }
}
