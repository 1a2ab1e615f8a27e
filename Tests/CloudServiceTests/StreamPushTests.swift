import CloudCapture
import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import CloudStream
import Foundation
import Hummingbird
import HummingbirdTesting
import SharedTestData
import XCTest

/// Frames pushed into a stream and watched: each viewer's cloud against the CLI's cloud of the
/// same frame, and a recording against `cloudgen capture` of the same frames.
final class StreamPushTests: XCTestCase {
    /// `capture --source rgbd:color,depth --intrinsics primesense --frames 1` of Redwood frame `k`.
    static func cliFrame(_ k: Int, scratch: URL) throws -> PointCloud {
        let folder = try sharedData("open3d-rgbd")
        let name = String(format: "%05d", k)
        let path = scratch.appendingPathComponent("frame\(k).ply").path
        _ = try CapturePipeline(
            sourceSpec: "rgbd:\(folder)/color/\(name).jpg,\(folder)/depth/\(name).png",
            sourceOptions: SourceOptions(intrinsicsPath: folder + "/camera_primesense.json"), frameLimit: 1,
            outputs: [(path, .ply(.binary))], filters: FilterPipeline(steps: [], organized: false), observer: SilentObserver()
        ).run()
        return try CloudReader.read(path).cloud
    }

    func testTwoViewersEachGetTheCLIsCloudOfEveryFrameTheyReceive() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let frames = try StreamFixture.redwoodFrames()
        let expected = try (0..<5).map { try Self.cliFrame($0, scratch: scratch) }
        let order = try JSONSerialization.data(withJSONObject: ["push": ["intrinsics": try StreamFixture.primesense(), "depth_scale": 1000]]
        )
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await client.execute(
                uri: "/v1/streams", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: order))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let answer = try created.json()
            let id = try XCTUnwrap(answer["id"] as? String)
            // The test client names the server "localhost" (no port) in its Host.
            XCTAssertEqual(answer["push_url"] as? String, "ws://localhost/v1/streams/\(id)/push")
            XCTAssertEqual(answer["page"] as? String, "http://localhost/live/\(id)")
            let live = "ws://127.0.0.1:\(port)/v1/streams/\(id)/live?points=20000"
            // Each viewer waits for the last frame; the server sends the newest, so it may skip some.
            let viewers = (0..<2).map { _ in
                Task { try await StreamSocket.watch(live) { $0.last?.header.frame == 4 } }
            }
            for _ in 0..<200 {
                let stream = try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()
                if stream["viewers"] as? Int == 2 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            try await StreamSocket.push("ws://127.0.0.1:\(port)/v1/streams/\(id)/push", frames)
            for viewer in viewers {
                let (messages, _) = try await viewer.value
                XCTAssertEqual(messages.last?.header.frame, 4, "the viewer saw the last frame")
                for message in messages {
                    let header = message.header
                    let cloud = expected[header.frame]
                    let packed = QuantisedCloud(cloud, budget: 20000)
                    XCTAssertEqual(header.total, packed.total, "frame \(header.frame): the CLI's count of points")
                    XCTAssertEqual(header.points, packed.count)
                    XCTAssertEqual(message.colors, packed.colors, "frame \(header.frame): the colors of the same points")
                    // The same points packed the same way: the CLI's cloud within the int16 step,
                    // which is the quantisation of the cloud itself (0.02 mm here).
                    XCTAssertEqual(message.positions, packed.positions, "frame \(header.frame): the positions")
                    XCTAssertEqual(header.origin, [packed.origin.x, packed.origin.y, packed.origin.z])
                    XCTAssertEqual(header.scale, packed.scale)
                    XCTAssertLessThan(header.scale, 1e-4)
                    XCTAssertGreaterThanOrEqual(header.received, header.captured)
                    XCTAssertGreaterThanOrEqual(header.sent, header.received)
                }
            }
        }
    }
}
