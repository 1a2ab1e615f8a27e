import CloudCore
import CloudImages
import CloudStream
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import NIOWebSocket
import SafeIO
import SharedTestData
import WSCore
import XCTest

@testable import CloudService

#if canImport(Glibc)
import Glibc
#endif

/// Streams under the limits uploads have: the memory of a request for every frame, the CPU of a
/// frame for its filters, a byte budget for recordings; a single frame from a source under the
/// request's memory too.
final class StreamBudgetTests: XCTestCase {
    private static let json: HTTPFields = [.contentType: "application/json"]

    private static func open(_ client: any TestClientProtocol, _ order: [String: Any]) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/streams", method: .post, headers: json, body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: order)))
    }

    /// CPU seconds this process has used, user and system.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// A pushed stream's filters are admitted as an upload's at POST, on its frames' size.
    func testAPushedStreamsFiltersThatNoFrameCouldAffordAreRefusedAtPost() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            let push = ["intrinsics": try StreamFixture.primesense()]
            let refused = try await Self.open(client, ["push": push, "filters": ["voxel=0.01", "sor=5000,1"]])
            XCTAssertEqual(refused.status, .unprocessableContent, String(buffer: refused.body))
            let detail = try XCTUnwrap(try refused.json()["detail"] as? String)
            XCTAssertTrue(detail.contains("sor=5000,1") && detail.contains("a frame of a live stream may take at most 1 s"), detail)
            let listed = try await client.execute(uri: "/v1/streams", method: .get).json()
            XCTAssertEqual((listed["streams"] as? [Any])?.count, 0, "nothing was opened")
            let light = try await Self.open(client, ["push": push, "filters": ["voxel=0.01"]])
            XCTAssertEqual(light.status, .created, String(buffer: light.body))
        }
    }

    /// A server-run source's frame is held to the same share per frame: the stream ends with the
    /// reason, and no thread goes on filtering after it (once, four such streams kept both cores
    /// busy for 20 minutes after they were deleted).
    func testASourceStreamWhoseFiltersCannotKeepUpEndsWithTheReasonAndWorkStops() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await Self.open(client, ["source": "synthetic", "filters": ["sor=5000,1"]])
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let (messages, close) = try await StreamSocket.watch("ws://127.0.0.1:\(port)/v1/streams/\(id)/live", seconds: 30) {
                $0.last?.header.event == "problem"
            }
            let last = try XCTUnwrap(messages.last)
            XCTAssertEqual(last.header.event, "problem")
            XCTAssertTrue(last.header.detail?.contains("a frame of a live stream may take at most 1 s") == true, last.header.detail ?? "")
            _ = close
            let before = Self.cpuSeconds()
            try await Task.sleep(for: .seconds(2))
            XCTAssertLessThan(Self.cpuSeconds() - before, 0.5, "the process still works for the ended stream")
        }
    }

    /// A deleted stream's frames stop between their filter steps: within a second of the DELETE
    /// the process is idle.
    func testADeletedStreamsFilterWorkStopsWithinASecond() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await Self.open(client, ["source": "synthetic:depth=640x480", "filters": ["sor=16,1"], "fps": 30])
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let viewer = Task {
                try await StreamSocket.watch("ws://127.0.0.1:\(port)/v1/streams/\(id)/live?points=1000", seconds: 60) { _ in false }
            }
            // Frames are being made.
            for _ in 0..<600 {
                if try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()["frames"] as? Int ?? 0 >= 2 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let deleted = try await client.execute(uri: "/v1/streams/\(id)", method: .delete)
            XCTAssertEqual(deleted.status, .noContent)
            _ = try await viewer.value
            try await Task.sleep(for: .seconds(1))
            let before = Self.cpuSeconds()
            try await Task.sleep(for: .seconds(1))
            XCTAssertLessThan(Self.cpuSeconds() - before, 0.3, "work went on a second after the stream was deleted")
        }
    }

    /// One frame from a source is held to the request's memory share, as a fused cloud is: a
    /// small request for a huge synthetic frame is refused before its buffers exist.
    func testASingleFrameIsHeldToTheRequestsMemory() async throws {
        let harness = try ServiceHarness { $0.maxRequestMemoryBytes = 256 << 20 }
        defer { harness.remove() }
        let reserved = MemoryLedger.reservedBytes
        try await harness.test { client in
            let body = try JSONSerialization.data(withJSONObject: ["source": "synthetic:depth=4096x4096"])
            let answer = try await client.execute(uri: "/v1/captures", method: .post, headers: Self.json, body: ByteBuffer(data: body))
            XCTAssertEqual(answer.status, .unprocessableContent, String(buffer: answer.body))
            let detail = try XCTUnwrap(try answer.json()["detail"] as? String)
            XCTAssertTrue(detail.contains("4096x4096") && detail.contains("--max-request-memory-mb"), detail)
            let small = try JSONSerialization.data(withJSONObject: ["source": "synthetic"])
            let stored = try await client.execute(uri: "/v1/captures", method: .post, headers: Self.json, body: ByteBuffer(data: small))
            XCTAssertEqual(stored.status, .created, String(buffer: stored.body))
        }
        XCTAssertEqual(MemoryLedger.reservedBytes, reserved, "every claim was given back")
    }

    /// A few KB of zstd that decode to 4096x4096 cannot fit a request's share: the push closes with
    /// 1009 and the reason, before the frame is decoded; the stream goes on.
    func testAPushedFrameOverTheRequestsMemoryClosesThePushWith1009() async throws {
        let harness = try ServiceHarness { $0.maxRequestMemoryBytes = 64 << 20 }
        defer { harness.remove() }
        let side = 4096
        let depth = try DepthFrameCodec.zstd.encode(
            [UInt16](repeating: 1000, count: side * side), width: side, height: side, origin: "test")
        let header = PushHeader(
            frame: 0, captured: StreamClock.now(), depth: .init(encoding: "zstd", width: side, height: side, bytes: depth.count),
            color: nil, pose: nil)
        let huge = try StreamMessage(header: header, payloads: [Data(depth)]).encoded
        XCTAssertLessThan(huge.count, 64 << 10)
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await Self.open(client, ["push": ["intrinsics": try StreamFixture.primesense()]])
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let close = try await StreamSocket.push("ws://127.0.0.1:\(port)/v1/streams/\(id)/push", [huge], refused: true)
            XCTAssertEqual(close.map { UInt16(webSocketErrorCode: $0.closeCode) }, 1009, String(describing: close))
            XCTAssertTrue(close?.reason?.contains("--max-request-memory-mb") == true, close?.reason ?? "no reason")
            let good = try StreamFixture.redwoodFrames()[0]
            let pushed = try await StreamSocket.push("ws://127.0.0.1:\(port)/v1/streams/\(id)/push", [good])
            XCTAssertNil(pushed, "a frame that fits is taken")
        }
    }

    /// A recording keeps frames up to its byte budget, says it is full, and stores what it kept.
    func testARecordingStopsKeepingFramesAtItsByteBudget() async throws {
        let harness = try ServiceHarness { $0.streams.maxRecordingBytes = 3 << 20 }
        defer { harness.remove() }
        let frames = try StreamFixture.redwoodFrames()
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await Self.open(client, ["push": ["intrinsics": try StreamFixture.primesense(), "depth_scale": 1000]])
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let on = try await client.execute(
                uri: "/v1/streams/\(id)/record", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"on": true}"#))
            XCTAssertEqual(on.status, .ok, String(buffer: on.body))
            try await StreamSocket.push("ws://127.0.0.1:\(port)/v1/streams/\(id)/push", frames)
            var stream: [String: Any] = [:]
            for _ in 0..<400 {
                stream = try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()
                if stream["frames"] as? Int == 5 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            // Each 640x480 frame keeps its 16-bit depth and RGB color: 1,536,000 bytes; two fit in 3 MiB.
            XCTAssertEqual(stream["recording"] as? Int, 2, "\(stream)")
            XCTAssertEqual(stream["recording_bytes"] as? Int, 2 * 1_536_000, "\(stream)")
            XCTAssertEqual(stream["recording_full"] as? Bool, true, "\(stream)")
            let off = try await client.execute(
                uri: "/v1/streams/\(id)/record", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"on": false}"#))
            XCTAssertEqual(off.status, .created, String(buffer: off.body))
            XCTAssertEqual(try off.json()["frames"] as? Int, 2)
        }
    }
}
