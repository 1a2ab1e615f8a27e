import CloudCore
import Foundation
import GRDB

extension SQLiteCaptureIndex {
    public func insertJob(_ job: JobRecord) async throws {
        try await writing { db in
            try db.execute(
                sql: """
                    INSERT INTO job (id, state, created, updated, framesDone, framesTotal, captureID, problem)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    job.id.rawValue, job.state.rawValue, job.created.unixMilliseconds,
                    job.updated.unixMilliseconds, job.framesDone, job.framesTotal,
                    job.captureID?.rawValue, job.problem
                ])
        }
    }

    public func updateJob(_ job: JobRecord) async throws -> Bool {
        try await writing { db in
            try db.execute(
                sql: """
                    UPDATE job SET state = ?, updated = ?, framesDone = ?, framesTotal = ?, captureID = ?, problem = ?
                    WHERE id = ?
                    """,
                arguments: [
                    job.state.rawValue, job.updated.unixMilliseconds, job.framesDone, job.framesTotal,
                    job.captureID?.rawValue, job.problem, job.id.rawValue
                ])
            return db.changesCount > 0
        }
    }

    public func job(_ id: JobID) async throws -> JobRecord? {
        let path = path
        return try await reading { db in
            try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id.rawValue]).map { try Self.job($0, path) }
        }
    }

    static func job(_ row: Row, _ path: String) throws -> JobRecord {
        let id: JobID = try Self.id(row["id"], path)
        guard let state = JobRecord.State(rawValue: row["state"]) else {
            throw CloudError.io("\(path): job \(id) has an unknown state")
        }
        let captureID: String? = row["captureID"]
        return JobRecord(
            id: id, state: state, created: Date(unixMilliseconds: row["created"]),
            updated: Date(unixMilliseconds: row["updated"]), framesDone: row["framesDone"],
            framesTotal: row["framesTotal"], captureID: try captureID.map { try Self.id($0, path) },
            problem: row["problem"])
    }

    public func markUnfinishedJobsInterrupted(at date: Date) async throws -> Int {
        try await writing { db in
            try db.execute(
                sql: """
                    UPDATE job SET state = 'failed', problem = ?, updated = ? WHERE state IN ('queued', 'running')
                    """, arguments: [JobRecord.interruptedProblem, date.unixMilliseconds])
            return db.changesCount
        }
    }

    /// One server owns this index: its unfinished jobs at start-up are interrupted, none abandoned.
    public func claimAbandonedJob(at date: Date) async throws -> JobRecord? { nil }

    public func holdsJob(_ id: JobID) async throws -> Bool {
        let job = try await job(id)
        return job.map { !$0.state.isFinished } ?? false
    }

    /// Not shared: a job released by a stopping server is failed at its next start.
    public func releaseJob(_ id: JobID, at date: Date) async throws {}
}

extension SQLiteCaptureIndex {
    public func listJobs(limit: Int, after: JobID?, states: Set<JobRecord.State>) async throws -> [JobRecord] {
        let path = path
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let after {
            conditions.append("id < ?")
            arguments += [after.rawValue]
        }
        if !states.isEmpty {
            let names = states.map(\.rawValue).sorted()
            conditions.append("state IN (\(names.map { _ in "?" }.joined(separator: ", ")))")
            arguments += StatementArguments(names)
        }
        arguments += [max(0, limit)]
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let bound = arguments
        return try await reading { db in
            try Row.fetchAll(db, sql: "SELECT * FROM job \(filter) ORDER BY id DESC LIMIT ?", arguments: bound).map {
                try Self.job($0, path)
            }
        }
    }
}
