import CloudService
import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

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

            try cluster.stop()
            do {
                async let listing = client.execute(uri: "/v1/captures", method: .get)
                async let refused = client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
                for answer in try await [listing, refused] {
                    XCTAssertEqual(answer.status, .serviceUnavailable, String(buffer: answer.body))
                    XCTAssertEqual(answer.headers[.retryAfter], "5")
                    XCTAssertEqual(try answer.json()["status"] as? Int, 503)
                }
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
        let cluster = try TestPostgres.shared()
        let url = cluster.url(try cluster.makeDatabase().database)
        let first = try ServiceHarness { $0.index = url }
        defer { first.remove() }
        let second = try ServiceHarness {
            $0.index = url
            $0.dataDirectory = first.data.path
        }
        defer { second.remove() }
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
}
