import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import XCTest

@testable import CloudService

/// What a connection may do to the server: hold it open with half a request (closed by the idle
/// timeout), make curl wait for 100 Continue, or leave while its work runs (cancelled, nothing
/// stored, counted as 499, not as a server error). All live, over raw sockets.
final class ConnectionHygieneTests: XCTestCase {
    func testHalfSentHeadersAreClosedByTheIdleTimeoutWhileOthersAreAnswered() async throws {
        let harness = try ServiceHarness { $0.idleTimeoutSeconds = 1 }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let stalled = try (0..<20).map { _ in try RawConnection(port: port) }
            for connection in stalled { try connection.send("GET /v1/captures HTTP/1.1\r\nHost: localhost\r\nX-Slow: ") }
            // Others are answered meanwhile.
            let other = try await client.execute(uri: "/healthz", method: .get)
            XCTAssertEqual(other.status, .ok)
            // Trickling more header bytes does not keep a connection open: only whole requests do.
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(400))
                for connection in stalled { try? connection.send("a") }
            }
            for connection in stalled {
                let (text, closed) = connection.receive(for: 30)
                XCTAssertTrue(closed, "a half-sent request kept its connection (received \(text.debugDescription))")
                XCTAssertTrue(text.hasPrefix("HTTP/1.1 408 "), text)
            }
        }
        XCTAssertEqual(harness.errors.messages, [], "a client's half-sent request was logged as a server error")
    }

    /// A first request head the HTTP decoder refuses is answered (it used to hang behind the
    /// WebSocket upgrade handler) and is the client's fault: no error in the server's log.
    func testRefusedFirstHeadsAreAnsweredAndAreNotServerErrors() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let heads = [
                ("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-A: a\u{0}b\r\n\r\n", "400"),
                ("GET /healthz HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n", "400"),
                ("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n", "431")
            ]
            for (head, status) in heads {
                let connection = try RawConnection(port: port)
                try? connection.send(head)
                let (text, closed) = connection.receive(for: 10)
                XCTAssertTrue(text.hasPrefix("HTTP/1.1 \(status) "), text)
                XCTAssertTrue(closed)
            }
            let after = try await client.execute(uri: "/healthz", method: .get)
            XCTAssertEqual(after.status, .ok)
        }
        XCTAssertEqual(harness.errors.messages, [], "a client's malformed request was logged as a server error")
    }

    /// Bodies that stall until the idle timeout closes their connections are the clients' doing:
    /// 499 in /metrics, never 500.
    func testStalledBodiesClosedByTheIdleTimeoutAreNotServerErrors() async throws {
        let harness = try ServiceHarness { $0.idleTimeoutSeconds = 1 }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let stalled = try (0..<10).map { _ in try RawConnection(port: port) }
            for connection in stalled {
                try connection.send(
                    "POST /v1/captures HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=x\r\n"
                        + "Content-Length: 1000000\r\n\r\n--x\r\nContent-Disposition: form-data; name=\"depth\"; filename=\"d.png\"\r\n\r\nabc"
                )
            }
            for connection in stalled { XCTAssertTrue(connection.receive(for: 30).closed) }
            // On a connection of its own: the test client's idle one is closed by now too.
            var metrics = ""
            for _ in 0..<100 where !metrics.contains("status=\"499\"} 10") {
                let reader = try RawConnection(port: port)
                try reader.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                metrics = reader.receive(for: 10).text
                try await Task.sleep(for: .milliseconds(50))
            }
            XCTAssertTrue(metrics.contains("status=\"499\"} 10"), metrics)
            XCTAssertFalse(metrics.contains("status=\"500\""), metrics)
        }
    }

    func testExpectContinueIsAnsweredAndRefusedUploadsGetTheirAnswerInstead() async throws {
        let harness = try ServiceHarness { $0.maxUploadBytes = 1 << 20 }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        let body = Data(buffer: upload.body)
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let connection = try RawConnection(port: port)
            try connection.send(
                "POST /v1/captures HTTP/1.1\r\nHost: localhost\r\nContent-Type: \(upload.headers[.contentType]!)\r\n"
                    + "Content-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
            let interim = connection.receive(for: 10, until: { $0.contains("\r\n\r\n") }).text
            XCTAssertTrue(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), interim.debugDescription)
            try connection.send(body)
            XCTAssertEqual(connection.status(within: 60), 201)

            // Over the limit: the final answer, and no 100 that would ask for the body.
            let large = try RawConnection(port: port)
            try large.send(
                "POST /v1/captures HTTP/1.1\r\nHost: localhost\r\nContent-Type: \(upload.headers[.contentType]!)\r\n"
                    + "Content-Length: \(2 << 20)\r\nExpect: 100-continue\r\n\r\n")
            XCTAssertEqual(large.status(within: 10), 413)
        }
    }

    /// A client that leaves (curl -m2) while its fused capture runs: the capture stops, nothing
    /// is stored, and /metrics counts a 499, not a 500.
    func testAClientThatLeavesCancelsItsCaptureAndIsNotAServerError() async throws {
        let harness = try ServiceHarness { $0.workers = 1 }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let body = "{\"source\":\"synthetic:path=orbit,frames=400,color=256x192\",\"frames\":\"all\",\"fuse\":true}"
            let leaving = try RawConnection(port: port)
            try leaving.send(
                "POST /v1/captures HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            // The server's word that the capture is running, then the client goes.
            try await Self.waitForMetric(client, "cloudgen_pool_running{pool=\"capture\"} 1")
            leaving.closeNow()
            try await Self.waitForMetric(client, "cloudgen_pool_running{pool=\"capture\"} 0")
            let metrics = try await Self.waitForMetric(client, "status=\"499\"")
            XCTAssertFalse(metrics.contains("status=\"500\""), metrics)
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((listed["captures"] as? [Any])?.count, 0, "the abandoned capture was stored")
            // A path no route has is labelled as Docs/http.md says.
            _ = try await client.execute(uri: "/no/such/route", method: .get)
            try await Self.waitForMetric(client, "route=\"unmatched\"")
        }
    }

    /// A preview waiting for the export pool when its capture is deleted: 404, no data path in the
    /// answer, and no derived/ folder brought back.
    func testWorkOnADeletedCaptureIsNotFoundAndLeavesNoFolder() async throws {
        let harness = try ServiceHarness { $0.workers = 1 }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test(.ahc(.http)) { client in
            var ids: [String] = []
            for _ in 0..<2 {
                let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
                ids.append(try XCTUnwrap(try created.json()["id"] as? String))
            }
            // The one export thread draws a large picture of the first; the second's preview waits.
            let (first, second) = (ids[0], ids[1])
            let busy = Task {
                try await client.execute(uri: "/v1/captures/\(first)/preview.png?width=4096&height=4096&azimuth=33", method: .get)
            }
            try await Self.waitForMetric(client, "cloudgen_pool_running{pool=\"export\"} 1")
            let waiting = Task { try await client.execute(uri: "/v1/captures/\(second)/preview.png?azimuth=10", method: .get) }
            try await Self.waitForMetric(client, "cloudgen_pool_queued{pool=\"export\"} 1")
            let deleted = try await client.execute(uri: "/v1/captures/\(ids[1])", method: .delete)
            XCTAssertEqual(deleted.status, .noContent)
            let answer = try await waiting.value
            XCTAssertEqual(answer.status, .notFound, String(buffer: answer.body))
            XCTAssertFalse(String(buffer: answer.body).contains(harness.data.path), String(buffer: answer.body))
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: harness.data.appendingPathComponent("captures/\(ids[1])").path),
                "the deleted capture's folder came back")
            let drawn = try await busy.value
            XCTAssertEqual(drawn.status, .ok)
        }
    }

    @discardableResult
    static func waitForMetric(_ client: some TestClientProtocol, _ line: String) async throws -> String {
        for _ in 0..<1200 {
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            if metrics.contains(line) { return metrics }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("/metrics never said \(line)")
        return ""
    }
}
