import CloudCore
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import XCTest

@testable import CloudService

/// The service on the PostgreSQL index (`serve --index postgresql://...`), live on a loopback port.
final class PostgresServiceTests: XCTestCase {
    /// The database stops under a running server: a listing and an upload each get 503 with
    /// Retry-After, the upload leaves no file behind, and once the database is back the server
    /// answers again by itself, with what it had stored before and nothing half-written since.
    func testAnOutageAnswers503WithRetryAfterLosesNothingAndPassesByItself() async throws {
        let cluster = try TestPostgres.shared()
        let database = try cluster.makeDatabase()
        let harness = try ServiceHarness {
            $0.index = cluster.url(database.database)
            $0.indexWaitSeconds = 1
        }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test(.live) { client in
            let stored = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(stored.status, .created, String(buffer: stored.body))
            let id = try XCTUnwrap(try stored.json()["id"] as? String)
            let captures = harness.data.appendingPathComponent("captures")
            let document = try await OpenAPI.fetch(client)
            let job = JobID()

            try cluster.stop()
            do {
                async let listing = client.execute(uri: "/v1/captures", method: .get)
                async let refused = client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
                for answer in try await [listing, refused] {
                    XCTAssertEqual(answer.status, .serviceUnavailable, String(buffer: answer.body))
                    XCTAssertEqual(answer.headers[.retryAfter], "5")
                    XCTAssertEqual(try answer.json()["status"] as? Int, 503)
                }
                document.check(try await listing, "get", "/v1/captures")
                document.check(try await refused, "post", "/v1/captures")
                // Every other operation that reads the index says so as its document does.
                let patch: HTTPFields = [.contentType: "application/json"]
                for (method, path, uri) in [
                    (HTTPRequest.Method.get, "/v1/captures/{id}", "/v1/captures/\(id)"),
                    (.patch, "/v1/captures/{id}", "/v1/captures/\(id)"), (.delete, "/v1/captures/{id}", "/v1/captures/\(id)"),
                    (.get, "/v1/captures/{id}/depth.png", "/v1/captures/\(id)/depth.png"),
                    (.get, "/v1/jobs", "/v1/jobs"), (.get, "/v1/jobs/{id}", "/v1/jobs/\(job)"),
                    (.get, "/v1/jobs/{id}/events", "/v1/jobs/\(job)/events")
                ] {
                    let answer = try await client.execute(
                        uri: uri, method: method, headers: method == .patch ? patch : [:],
                        body: method == .patch ? ByteBuffer(string: #"{"name":"x"}"#) : nil)
                    XCTAssertEqual(answer.status, .serviceUnavailable, "\(method) \(uri): \(String(buffer: answer.body))")
                    document.check(answer, method.rawValue.lowercased(), path)
                }
                // What monitoring reads during the outage is still there.
                let metrics = try await client.execute(uri: "/metrics", method: .get)
                XCTAssertEqual(metrics.status, .ok)
                XCTAssertTrue(String(buffer: metrics.body).contains("cloudgen_captures_stored 1"), String(buffer: metrics.body))
                XCTAssertEqual(
                    try FileManager.default.contentsOfDirectory(atPath: captures.path), [id], "the refused upload left no folder")
                let staging = harness.data.appendingPathComponent("staging")
                XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: staging.path), [])
            } catch {
                try cluster.start()
                throw error
            }
            try cluster.start()

            // The pool reconnects on its own, within its backoff (a fraction of a second after a
            // short outage): no restart of the server.
            let deadline = ContinuousClock.now + .seconds(30)
            var listed = try await client.execute(uri: "/v1/captures", method: .get)
            while listed.status == .serviceUnavailable && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                listed = try await client.execute(uri: "/v1/captures", method: .get)
            }
            XCTAssertEqual(listed.status, .ok, String(buffer: listed.body))
            let ids = (try listed.json()["captures"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            XCTAssertEqual(ids, [id])
            let cloud = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(cloud.status, .ok)
            let again = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(again.status, .created, String(buffer: again.body))
        }
    }

    /// Two servers (replicas) on one data folder and one database: what is uploaded through one is
    /// listed and downloaded, byte for byte, through the other, and a delete through either is seen by both.
    func testTwoReplicasOnOneFolderServeEachOthersCaptures() async throws {
        let (first, second) = try Self.twoReplicas()
        defer { [first, second].forEach { $0.remove() } }
        let upload = try MultipartBody.tumFrame()
        try await first.test(.live) { a in
            try await second.test(.live) { b in
                let stored = try await a.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
                XCTAssertEqual(stored.status, .created, String(buffer: stored.body))
                let id = try XCTUnwrap(try stored.json()["id"] as? String)
                let listed = try await b.execute(uri: "/v1/captures", method: .get)
                XCTAssertEqual((try listed.json()["captures"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [id])
                let fromA = try await a.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
                let fromB = try await b.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
                XCTAssertEqual(fromB.status, .ok)
                XCTAssertGreaterThan(fromB.body.readableBytes, 1000)
                XCTAssertEqual(Array(fromB.body.readableBytesView), Array(fromA.body.readableBytesView))
                let deleted = try await b.execute(uri: "/v1/captures/\(id)", method: .delete)
                XCTAssertEqual(deleted.status, .noContent)
                let gone = try await a.execute(uri: "/v1/captures/\(id)", method: .get)
                XCTAssertEqual(gone.status, .notFound)
            }
        }
    }

    /// An archive job whose replica died part-way (its row left running, its lease run out, its
    /// folder in the shared data folder, half unpacked) is taken over by a live replica: run again
    /// from its folder, succeeded once, its capture listed once with the upload's labels and file
    /// names, and its folder removed.
    func testAJobWhoseReplicaDiedIsTakenOverAndFinishedOnce() async throws {
        let cluster = try TestPostgres.shared()
        let address = try cluster.makeDatabase()
        let harness = try ServiceHarness { $0.index = cluster.url(address.database) }
        defer { harness.remove() }
        let dead = try await PostgresCaptureIndex.open(address, lease: .seconds(1))
        let store = try CaptureStore(root: harness.data, index: dead)
        let upload = try store.makeUploadFolder()
        let archive = upload.appendingPathComponent("bundle")
        try redwoodArchive(in: try scratchFolder()).write(to: archive)
        let file = UploadedParts.File(name: "bundle", path: archive.path, filename: "scan.tar", bytes: FileSize.of(archive.path))
        let parts = UploadedParts(folder: upload.path, files: ["bundle": file], fields: [("name", "taken over"), ("voxel", "0.01")])
        let job = JobRecord(id: JobID(), state: .running, created: Date(), updated: Date(), framesDone: 2, framesTotal: 5)
        _ = try store.adoptJobFolder(upload, parts: parts, for: job.id)
        try FileManager.default.createDirectory(
            at: store.jobFolder(job.id).appendingPathComponent("unpacked/open3d-rgbd"), withIntermediateDirectories: true)
        try await dead.insertJob(job)
        await dead.close()

        try await harness.test(.live) { client in
            // Claimed by the sweep at start (or 5 s later), then run: well within a minute.
            let state = try await client.endedJob(job.id.description)
            XCTAssertEqual(state["state"] as? String, "succeeded", "\(state)")
            let capture = try XCTUnwrap((state["capture"] as? String)?.split(separator: "/").last.map(String.init), "\(state)")
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            let captures = try XCTUnwrap(listed["captures"] as? [[String: Any]])
            XCTAssertEqual(captures.compactMap { $0["id"] as? String }, [capture])
            XCTAssertEqual(captures.first?["name"] as? String, "taken over")
            XCTAssertEqual(captures.first?["files"] as? [String: String], ["bundle": "scan.tar"])
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.jobs.path), [], "the job's folder is removed")
        }
    }

    /// With a shared index, a graceful stop hands its running job back rather than failing it:
    /// queued again, its folder kept, and a replica started afterwards takes it over and finishes it.
    func testAJobStoppedGracefullyIsHandedBackAndFinishedByAnotherReplica() async throws {
        let (first, second) = try Self.twoReplicas()
        defer { [first, second].forEach { $0.remove() } }
        // Long enough to be running when the stop comes.
        let body = try MultipartBody.slowRedwoodBundle(in: try scratchFolder(), rounds: 4)
        let id = try await first.test(.live) { client in try await client.startJob(body) }
        let jobs = first.data.appendingPathComponent("jobs")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: jobs.path), [id], "a job handed back keeps its folder")
        try await second.test(.live) { client in
            let state = try await client.endedJob(id)
            XCTAssertEqual(state["state"] as? String, "succeeded", "\(state)")
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((listed["captures"] as? [[String: Any]])?.count, 1)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: jobs.path), [])
    }

    /// A job's events followed through a replica other than the one running it: that replica
    /// hears its states through the shared index, in order, and the stream ends with the success
    /// (without that, it would carry the first state and never end).
    func testAJobsEventsAreFollowedFromAnotherReplica() async throws {
        let (first, second) = try Self.twoReplicas()
        defer { [first, second].forEach { $0.remove() } }
        // A few seconds of states to follow.
        let body = try MultipartBody.slowRedwoodBundle(in: try scratchFolder(), rounds: 2)
        try await first.test(.live) { a in
            try await second.test(.live) { b in
                let accepted = try await a.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
                XCTAssertEqual(accepted.status, .accepted, String(buffer: accepted.body))
                let id = try XCTUnwrap(try accepted.json()["id"] as? String)
                // Not awaited directly: a stream that never ends would hold the test for ever. The
                // job takes seconds; past a minute the test fails, and its server's stop ends the stream.
                let ended = NIOLockedValueBox(false)
                let request = Task {
                    defer { ended.withLockedValue { $0 = true } }
                    return try await b.execute(uri: "/v1/jobs/\(id)/events", method: .get)
                }
                let deadline = ContinuousClock.now + .seconds(60)
                while !ended.withLockedValue({ $0 }) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
                guard ended.withLockedValue({ $0 }) else { return XCTFail("the other replica's event stream did not end within 60 s") }
                let stream = try await request.value
                let states = String(buffer: stream.body).components(separatedBy: "\n\n").compactMap { block -> [String: Any]? in
                    guard let data = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { return nil }
                    return (try? JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8))) as? [String: Any]
                }
                XCTAssertEqual(states.last?["state"] as? String, "succeeded", "\(states)")
                XCTAssertEqual(states.last?["frames_done"] as? Int, 5)
                XCTAssertTrue(states.contains { $0["state"] as? String == "running" }, "\(states)")
                let done = states.compactMap { $0["frames_done"] as? Int }
                XCTAssertEqual(done, done.sorted(), "frames done never goes back")
                let updated = states.compactMap { $0["updated"] as? String }
                XCTAssertEqual(updated, updated.sorted(), "states in the order they were saved")
            }
        }
    }

    /// Two servers (replicas) on one new database of the run's cluster and one data folder.
    static func twoReplicas() throws -> (ServiceHarness, ServiceHarness) {
        let cluster = try TestPostgres.shared()
        let url = cluster.url(try cluster.makeDatabase().database)
        let first = try ServiceHarness { $0.index = url }
        let second = try ServiceHarness {
            $0.index = url
            $0.dataDirectory = first.data.path
        }
        return (first, second)
    }
}
