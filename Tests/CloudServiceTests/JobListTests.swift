import CloudService
import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

/// GET /v1/jobs: newest first, a page at a time through `next`, filtered by state.
final class JobListTests: XCTestCase {
    func testJobsAreListedNewestFirstByStateAcrossPages() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        // Jobs a server left in its index: a restart keeps finished jobs and fails unfinished ones.
        let index = try SQLiteCaptureIndex(path: harness.data.appendingPathComponent("index.sqlite").path)
        var jobs: [JobRecord] = []
        for i in 0..<7 {
            let state: JobRecord.State = [.succeeded, .failed, .queued][i % 3]
            let job = JobRecord(id: JobID(), state: state, created: Date(), updated: Date())
            try await index.insertJob(job)
            jobs.append(job)
            try await Task.sleep(for: .milliseconds(2))  // ids sort by time to the millisecond
        }
        try index.close()
        let newestFirst = jobs.reversed().map(\.id.description)
        // The queued ones are failed (interrupted) once the server has reconciled.
        let succeeded = jobs.reversed().filter { $0.state == .succeeded }.map(\.id.description)
        try await harness.test { client in
            let all = try await listedPages(client, "/v1/jobs?limit=3", key: "jobs")
            XCTAssertEqual(all.ids, newestFirst)
            XCTAssertEqual(all.pages, 3)
            let done = try await listedPages(client, "/v1/jobs?state=succeeded&limit=1", key: "jobs")
            XCTAssertEqual(done.ids, succeeded)
            let failed = try await listedPages(client, "/v1/jobs?state=failed&limit=2", key: "jobs")
            XCTAssertEqual(Set(failed.ids), Set(newestFirst).subtracting(succeeded))
            XCTAssertEqual(failed.ids, newestFirst.filter { !succeeded.contains($0) })
            let either = try await listedPages(client, "/v1/jobs?state=failed&state=succeeded", key: "jobs")
            XCTAssertEqual(either.ids, newestFirst)
            let running = try await listedPages(client, "/v1/jobs?state=running", key: "jobs")
            XCTAssertEqual(running.ids, [])

            for (query, field) in [("state=done", "state"), ("limit=0", "limit"), ("after=..", "after"), ("status=failed", "status")] {
                let refused = try await client.execute(uri: "/v1/jobs?\(query)", method: .get)
                XCTAssertEqual(refused.status, .badRequest, query)
                XCTAssertEqual(try refused.json()["field"] as? String, field, query)
            }
        }
    }
}
