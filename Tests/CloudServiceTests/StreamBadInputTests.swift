import CloudService
import CloudStream
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import NIOFoundationEssentialsCompat
import NIOWebSocket
import SharedTestData
import XCTest

/// What a push socket does with frames that lie, and a viewer that never reads: a close code and
/// a reason naming the problem, and the stream and the server go on.
final class StreamBadInputTests: XCTestCase {
    /// Until `count` viewers are attached to stream `id`, however long a busy machine takes
    /// (bounded at 90 s against a hang, which fails the test).
    static func waitForViewers(
        _ count: Int, of id: String, _ client: any TestClientProtocol, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(90)
        while try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()["viewers"] as? Int != count {
            guard ContinuousClock.now < deadline else {
                return XCTFail("\(count) viewer(s) were not attached within 90 s", file: file, line: line)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func withPushStream(
        _ body: @escaping @Sendable (_ client: any TestClientProtocol, _ port: Int, _ id: String) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let order = try JSONSerialization.data(withJSONObject: ["push": ["intrinsics": try StreamFixture.primesense()]])
        try await harness.test(.live) { client in
            let created = try await client.execute(
                uri: "/v1/streams", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: order))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            try await body(client, try XCTUnwrap(client.port), try XCTUnwrap(try created.json()["id"] as? String))
        }
    }

    func testEachLyingFrameClosesThePushWithItsProblemAndTheStreamGoesOn() async throws {
        let good = try StreamFixture.redwoodFrames()[0]
        let header = #"{"frame":3,"captured":1,"depth":{"encoding":"zstd","width":16384,"height":16384,"bytes":4}}"#
        let cases: [(name: String, message: Data, code: UInt16, reason: String)] = [
            ("truncated", Data([1, 0]), 1007, "shorter than its 4-byte header length"),
            ("lying length", Data([0xE8, 0x03, 0, 0]) + Data("{}".utf8), 1007, "the header says 1000 bytes, but only 2 follow"),
            ("not JSON", Self.framed(Data("frame 7".utf8), payload: Data()), 1007, "the header is not the JSON this message needs"),
            ("absurd depth", Self.framed(Data(header.utf8), payload: Data(count: 4)), 1007, "16384x16384"),
            ("short payload", good.prefix(good.count - 10), 1007, "bytes of payload"),
            (
                "bad codec",
                Self.framed(
                    Data(header.replacingOccurrences(of: "zstd", with: "lz4").replacingOccurrences(of: "16384", with: "64").utf8),
                    payload: Data(count: 4)), 1007, "lz4"
            )
        ]
        try await Self.withPushStream { client, port, id in
            let url = "ws://127.0.0.1:\(port)/v1/streams/\(id)/push"
            for bad in cases {
                let close = try await StreamSocket.push(url, [bad.message], refused: true)
                XCTAssertEqual(
                    close.map { UInt16(webSocketErrorCode: $0.closeCode) }, bad.code, "\(bad.name): \(String(describing: close))")
                XCTAssertTrue(close?.reason?.contains(bad.reason) == true, "\(bad.name): \(close?.reason ?? "no reason")")
                XCTAssertLessThanOrEqual(close?.reason?.utf8.count ?? 0, 123)
            }
            let text = try await WebSocketClient.connect(url: url, logger: StreamFixture.logger) { inbound, outbound, _ in
                try await outbound.write(.text("hello"))
                for try await _ in inbound {}
            }
            XCTAssertEqual(text.map { UInt16(webSocketErrorCode: $0.closeCode) }, 1003, "a text message: \(String(describing: text))")
            // After all that, a good frame still reaches a viewer.
            let viewer = Task { try await StreamSocket.watch("ws://127.0.0.1:\(port)/v1/streams/\(id)/live") { !$0.isEmpty } }
            try await Self.waitForViewers(1, of: id, client)
            let pushed = try await StreamSocket.push(url, [good])
            XCTAssertNil(pushed, "a good frame is not refused")
            let (messages, _) = try await viewer.value
            XCTAssertEqual(messages.first?.header.frame, 0)
            XCTAssertGreaterThan(messages.first?.header.points ?? 0, 1000)
        }
    }

    func testAViewerThatNeverReadsHoldsUpNeitherTheSourceNorTheOtherViewers() async throws {
        let frames = try StreamFixture.redwoodFrames()
        try await Self.withPushStream { client, port, id in
            // A viewer that asks for everything and then reads nothing.
            let stalled = try RawConnection(port: port, receiveBuffer: 4096)
            try stalled.send(
                "GET /v1/streams/\(id)/live?points=2000000&depth=1&color=1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            // 20 frames, cycling through the five, as fast as the socket takes them (a debug build
            // on a busy machine makes a few a second).
            let many = (0..<20).map { k in Self.renumbered(frames[k % 5], frame: k) }
            let watcher = Task {
                try await StreamSocket.watch("ws://127.0.0.1:\(port)/v1/streams/\(id)/live?points=5000") { $0.last?.header.frame == 19 }
            }
            try await Self.waitForViewers(2, of: id, client)
            let pushed = try await StreamSocket.push("ws://127.0.0.1:\(port)/v1/streams/\(id)/push", many)
            XCTAssertNil(pushed)
            let (messages, _) = try await watcher.value
            XCTAssertEqual(messages.last?.header.frame, 19, "the reading viewer got the last frame")
            let stream = try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()
            XCTAssertEqual(stream["frames"] as? Int, 20, "every pushed frame was made: \(stream)")
            XCTAssertEqual(stream["viewers"] as? Int, 1, "only the stalled viewer is left")
            stalled.closeNow()
        }
    }

    static func framed(_ header: Data, payload: Data) -> Data {
        var data = Data()
        withUnsafeBytes(of: UInt32(header.count).littleEndian) { data.append(contentsOf: $0) }
        return data + header + payload
    }

    /// `message` with its header's frame index replaced.
    static func renumbered(_ message: Data, frame: Int) -> Data {
        let (headerBytes, body) = try! StreamMessage.split(message, origin: "fixture")
        var header = try! JSONDecoder().decode(PushHeader.self, from: headerBytes)
        header.frame = frame
        let encoder = JSONEncoder()
        return framed(try! encoder.encode(header), payload: Data(body))
    }
}

/// Streams no one uses end by themselves, and the limits on streams and viewers answer clearly.
final class StreamLimitTests: XCTestCase {
    func testAStreamNoOneUsesEndsAfterTheIdleTime() async throws {
        let harness = try ServiceHarness { $0.streams.idleSeconds = 1 }
        defer { harness.remove() }
        let order = try JSONSerialization.data(withJSONObject: ["push": ["intrinsics": try StreamFixture.primesense()]])
        try await harness.test(.live) { client in
            let created = try await client.execute(
                uri: "/v1/streams", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: order))
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            var status = HTTPResponse.Status.ok
            for _ in 0..<100 where status == .ok {
                try await Task.sleep(for: .milliseconds(100))
                status = try await client.execute(uri: "/v1/streams/\(id)", method: .get).status
            }
            XCTAssertEqual(status, .notFound, "the unused stream ended")
        }
    }

    func testTheServersStreamAndViewerLimitsAreAnsweredWithTheirSetting() async throws {
        let harness = try ServiceHarness {
            $0.streams.maxStreams = 1
            $0.streams.maxViewers = 1
        }
        defer { harness.remove() }
        let order = try JSONSerialization.data(withJSONObject: ["push": ["intrinsics": try StreamFixture.primesense()]])
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let json: HTTPFields = [.contentType: "application/json"]
            let created = try await client.execute(uri: "/v1/streams", method: .post, headers: json, body: ByteBuffer(data: order))
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let second = try await client.execute(uri: "/v1/streams", method: .post, headers: json, body: ByteBuffer(data: order))
            XCTAssertEqual(second.status, .tooManyRequests)
            XCTAssertTrue(String(buffer: second.body).contains("--max-streams"), String(buffer: second.body))
            let live = "ws://127.0.0.1:\(port)/v1/streams/\(id)/live"
            let first = Task { try await StreamSocket.watch(live, seconds: 90) { _ in false } }
            // The second is refused only once the first is attached.
            try await StreamBadInputTests.waitForViewers(1, of: id, client)
            let (_, refused) = try await StreamSocket.watch(live, seconds: 30) { _ in false }
            XCTAssertEqual(refused.map { UInt16(webSocketErrorCode: $0.closeCode) }, 1013)
            XCTAssertTrue(refused?.reason?.contains("--max-viewers") == true, refused?.reason ?? "no reason")
            // Ending the stream closes its viewer normally, and its id is gone.
            let ended = try await client.execute(uri: "/v1/streams/\(id)", method: .delete)
            XCTAssertEqual(ended.status, .noContent)
            let (_, close) = try await first.value
            XCTAssertEqual(close.map { UInt16(webSocketErrorCode: $0.closeCode) }, 1000)
            let gone = try await client.execute(uri: "/v1/streams/\(id)", method: .get)
            XCTAssertEqual(gone.status, .notFound)
        }
    }
}

/// A server-run source that fails mid-way ends its stream with a problem event to its viewers.
final class StreamSourceFailureTests: XCTestCase {
    func testARecordingWithACorruptFrameEndsTheStreamWithItsProblem() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let scan = scratch.appendingPathComponent("scan")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: try sharedData("open3d-rgbd")), to: scan)
        let corrupt = scan.appendingPathComponent("depth/00002.png")
        try FileManager.default.removeItem(at: corrupt)
        try Data(repeating: 0x5A, count: 300).write(to: corrupt)
        let harness = try ServiceHarness { $0.allowedDirectories = [scratch.path] }
        defer { harness.remove() }
        let order = try JSONSerialization.data(withJSONObject: ["source": "redwood:\(scan.path)", "fps": 20])
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await client.execute(
                uri: "/v1/streams", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: order))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let (messages, close) = try await StreamSocket.watch("ws://127.0.0.1:\(port)/v1/streams/\(id)/live?points=1000") { _ in false }
            XCTAssertGreaterThanOrEqual(messages.count, 2, "a frame before the problem, and the problem")
            XCTAssertTrue(messages.dropLast().allSatisfy { $0.header.event == nil && $0.header.frame < 2 })
            let last = try XCTUnwrap(messages.last)
            XCTAssertEqual(last.header.event, "problem")
            XCTAssertTrue(last.header.detail?.contains("00002.png") == true, last.header.detail ?? "no detail")
            XCTAssertEqual(close.map { UInt16(webSocketErrorCode: $0.closeCode) }, 1011)
            let gone = try await client.execute(uri: "/v1/streams/\(id)", method: .get)
            XCTAssertEqual(gone.status, .notFound, "the failed stream is no longer listed")
        }
    }
}
