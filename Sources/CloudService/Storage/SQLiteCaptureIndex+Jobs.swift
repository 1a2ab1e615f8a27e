import CloudCore
import Foundation
import GRDB

extension SQLiteCaptureIndex {
    public func insertJob(_ job: JobRecord) async throws {
        try await writing { db in
            try db.execute(sql: """
                INSERT INTO job (id, state, created, updated, framesDone, framesTotal, captureID, problem)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [job.id.rawValue, job.state.rawValue, job.created.timeIntervalSince1970,
                                 job.updated.timeIntervalSince1970, job.framesDone, job.framesTotal,
                                 job.captureID?.rawValue, job.problem])
        }
    }

    public func updateJob(_ job: JobRecord) async throws -> Bool {
        try await writing { db in
            try db.execute(sql: """
                UPDATE job SET state = ?, updated = ?, framesDone = ?, framesTotal = ?, captureID = ?, problem = ?
                WHERE id = ?
                """, arguments: [job.state.rawValue, job.updated.timeIntervalSince1970, job.framesDone, job.framesTotal,
                                 job.captureID?.rawValue, job.problem, job.id.rawValue])
            return db.changesCount > 0
        }
    }

    public func job(_ id: JobID) async throws -> JobRecord? {
        let path = path
        return try await reading { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id.rawValue]) else {
                return nil
            }
            guard let state = JobRecord.State(rawValue: row["state"]) else {
                throw CloudError.io("\(path): job \(id) has an unknown state")
            }
            let captureID: String? = row["captureID"]
            return JobRecord(id: id, state: state, created: Date(timeIntervalSince1970: row["created"]),
                             updated: Date(timeIntervalSince1970: row["updated"]), framesDone: row["framesDone"],
                             framesTotal: row["framesTotal"], captureID: try captureID.map { try Self.id($0, path) },
                             problem: row["problem"])
        }
    }

    public func markUnfinishedJobsInterrupted(at date: Date) async throws -> Int {
        try await writing { db in
            try db.execute(sql: """
                UPDATE job SET state = 'failed', problem = ?, updated = ? WHERE state IN ('queued', 'running')
                """, arguments: [JobRecord.interruptedProblem, date.timeIntervalSince1970])
            return db.changesCount
        }
    }
}
