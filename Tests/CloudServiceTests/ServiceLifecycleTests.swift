import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import SharedTestData
import XCTest

@testable import CloudService

/// What outlives a server process, what it refuses to start with, and who it lets in.
final class ServiceLifecycleTests: XCTestCase {
    func testCapturesSurviveARestartAndUnfinishedJobsAreReportedInterrupted() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        let id = try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            return try XCTUnwrap(try created.json()["id"] as? String)
        }
        // A job the previous process left running.
        let index = try SQLiteCaptureIndex(path: harness.data.appendingPathComponent("index.sqlite").path)
        let job = JobRecord(id: JobID(), state: .running, created: Date(), updated: Date(), framesDone: 3, framesTotal: 10)
        try await index.insertJob(job)
        try index.close()

        try await harness.test { client in
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((listed["captures"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [id])
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(ply.status, .ok)
            let reported = try await client.execute(uri: "/v1/jobs/\(job.id)", method: .get).json()
            XCTAssertEqual(reported["state"] as? String, "failed")
            XCTAssertEqual((reported["problem"] as? [String: Any])?["title"] as? String, "interrupted")
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            XCTAssertTrue(metrics.contains("cloudgen_captures_stored 1"), metrics)
        }
    }

    func testListeningBeyondLoopbackNeedsAToken() async throws {
        var configuration = ServiceConfiguration(host: "0.0.0.0", port: 0, dataDirectory: "/nonexistent")
        XCTAssertThrowsError(try configuration.validate()) { error in
            XCTAssertTrue("\(error)".contains("--token-file"), "\(error)")
        }
        configuration.token = String(repeating: "t", count: 32)
        XCTAssertNoThrow(try configuration.validate())
    }

    func testATokenGuardsEveryRouteButHealth() async throws {
        let token = "s3cret-token-0123456789abcdef"
        let harness = try ServiceHarness { $0.token = token }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            // What holds no stored data opens without the token: the page asks for it.
            for open in ["/healthz", "/", "/openapi.json"] {
                let answer = try await client.execute(uri: open, method: .get)
                XCTAssertEqual(answer.status, .ok, open)
            }
            for header in [nil, "Bearer wrong", "Bearer \(token)x", "Basic \(token)", "Bearer \(token.dropLast())"] {
                let headers: HTTPFields = header.map { [.authorization: $0] } ?? [:]
                let refused = try await client.execute(uri: "/v1/captures", method: .get, headers: headers)
                XCTAssertEqual(refused.status, .unauthorized, header ?? "none")
                XCTAssertEqual(refused.headers[.wwwAuthenticate], "Bearer")
            }
            let allowed = try await client.execute(uri: "/v1/captures", method: .get, headers: [.authorization: "Bearer \(token)"])
            XCTAssertEqual(allowed.status, .ok)
        }
    }

    func testTheTokenComparisonLooksAtEveryByte() {
        let token = Array("abcdefghijklmnop".utf8)
        XCTAssertTrue(AuthMiddleware<BasicRequestContext>.equal(token, token))
        XCTAssertFalse(AuthMiddleware<BasicRequestContext>.equal(Array("abcdefghijklmnoq".utf8), token))
        XCTAssertFalse(AuthMiddleware<BasicRequestContext>.equal(Array("abcdefghijklmno".utf8), token))
        XCTAssertFalse(AuthMiddleware<BasicRequestContext>.equal(Array("abcdefghijklmnopq".utf8), token))
        XCTAssertFalse(AuthMiddleware<BasicRequestContext>.equal([], token))
        // A length difference that is a multiple of 256 must not wrap to "equal".
        for extra in [256, 512, 768] {
            XCTAssertFalse(
                AuthMiddleware<BasicRequestContext>.equal(token + Array(repeating: UInt8(ascii: "x"), count: extra), token), "\(extra)")
        }
    }

    /// Every operation the API document lists, asked without the token (or with the token and
    /// 256 more bytes), is refused with 401, but for the pages that show nothing stored: the list
    /// comes from the document, so a route added later is covered without this test changing.
    func testEveryDocumentedOperationNeedsTheExactToken() async throws {
        let token = "s3cret-token-0123456789abcdef"
        let harness = try ServiceHarness { $0.token = token }
        defer { harness.remove() }
        let operations = try OpenAPI(text: ServiceIntrospection.openAPIDocument).operations.map { ($0.path, $0.method) }
        try await harness.test { client in
            var checked = 0
            for (path, method) in operations {
                let uri = path.replacingOccurrences(of: "{id}", with: "0000000000000000000000000a")
                let open = AuthMiddleware<BasicRequestContext>.isOpen(uri) && method == "get"
                for header in [nil, "Bearer \(token)" + String(repeating: "x", count: 256)] {
                    let headers: HTTPFields = header.map { [.authorization: $0] } ?? [:]
                    let answer = try await client.execute(uri: uri, method: HTTPRequest.Method(method.uppercased())!, headers: headers)
                    if open {
                        XCTAssertNotEqual(answer.status, .unauthorized, "\(method) \(path)")
                    } else {
                        XCTAssertEqual(
                            answer.status, .unauthorized, "\(method) \(path) with \(header == nil ? "no token" : "the token and 256 bytes")"
                        )
                    }
                }
                checked += 1
            }
            XCTAssertGreaterThan(checked, 15)
        }
    }

    func testAFullWorkQueueAnswers503WithRetryAfter() async throws {
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 1)
        let release = DispatchSemaphore(value: 0)
        // Only pool threads block; the test's own (Swift's cooperative pool) only sleeps.
        async let first: Void = pool.run { release.wait() }
        while pool.load.running == 0 { try await Task.sleep(for: .milliseconds(10)) }
        async let second: Void = pool.run {}
        while pool.load.queued == 0 { try await Task.sleep(for: .milliseconds(10)) }
        // The thread is busy and one item waits: a third is refused at once.
        do {
            try await pool.run {}
            XCTFail("a full queue accepted more work")
        } catch let problem as Problem {
            XCTAssertEqual(problem.status, .serviceUnavailable)
            XCTAssertEqual(problem.headers[.retryAfter], "1")
        }
        release.signal()
        _ = try await (first, second)
    }

}

/// Listing and downloads are answered while every capture worker is busy: both answers come
/// while the capture is still running, an ordering, not a time (the machine may be slow).
final class ServiceConcurrencyTests: XCTestCase {
    func testListingAndDownloadsDoNotWaitBehindCaptures() async throws {
        let harness = try ServiceHarness { $0.workers = 1 }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        // AsyncHTTPClient: a connection per request in flight, as separate clients would have.
        try await harness.test(.ahc(.http)) { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let finished = NIOLockedValueBox(false)
            let busy = Task {
                defer { finished.withLockedValue { $0 = true } }
                // A fused sequence: seconds of work for the only capture worker.
                return try await client.execute(
                    uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(
                        string:
                            "{\"source\": \"synthetic:seed=2,depth=640x480\", \"frames\": 24, \"fuse\": true, \"filters\": [\"normals\"]}"))
            }
            // The server's own word that the capture occupies its only worker (not a guess of how
            // long that takes to happen).
            while !finished.withLockedValue({ $0 }) {
                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                if metrics.contains("cloudgen_pool_running{pool=\"capture\"} 1") { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            XCTAssertFalse(finished.withLockedValue { $0 }, "the capture ended before the server reported it running")
            let list = try await client.execute(uri: "/v1/captures", method: .get)
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertFalse(finished.withLockedValue { $0 }, "the capture ended before the listing and the download were answered")
            XCTAssertEqual(list.status, .ok)
            XCTAssertEqual(ply.status, .ok)
            let answer = try await busy.value
            XCTAssertEqual(answer.status, .created, String(buffer: answer.body))
        }
    }
}
