import CloudCapture
import CloudCore
import CloudFiles
import CloudImages
import CloudPCL
import CloudPipeline
import CloudStream
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
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
            source: try SourceSpec(parsing: "rgbd:\(folder)/color/\(name).jpg,\(folder)/depth/\(name).png"),
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

/// A recording: the pushed frames become one capture, the CLI's fused capture of the same folder.
final class StreamRecordTests: XCTestCase {
    func testARecordingOfTheRedwoodFramesIsTheCLIsFusedCapturePointForPoint() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let frames = try StreamFixture.redwoodFrames(codec: .rvl)
        let reference = scratch.appendingPathComponent("reference.ply").path
        _ = try CapturePipeline(
            source: try SourceSpec(parsing: "redwood:\(try sharedData("open3d-rgbd"))"), sourceOptions: SourceOptions(), frame: .world,
            frameLimit: nil,
            fuse: true, outputs: [(reference, .ply(.binary))], filters: FilterPipeline(steps: [], organized: false),
            observer: SilentObserver()
        ).run()
        let expected = try CloudReader.read(reference).cloud
        let order = try JSONSerialization.data(withJSONObject: [
            "push": ["intrinsics": try StreamFixture.primesense(), "depth_scale": 1000], "name": "kitchen"
        ])
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await client.execute(
                uri: "/v1/streams", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: order))
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let json: HTTPFields = [.contentType: "application/json"]
            let on = try await client.execute(
                uri: "/v1/streams/\(id)/record", method: .post, headers: json, body: ByteBuffer(string: #"{"on": true}"#))
            XCTAssertEqual(on.status, .ok, String(buffer: on.body))
            let again = try await client.execute(
                uri: "/v1/streams/\(id)/record", method: .post, headers: json, body: ByteBuffer(string: #"{"on": true}"#))
            XCTAssertEqual(again.status, .conflict)
            try await StreamSocket.push("ws://127.0.0.1:\(port)/v1/streams/\(id)/push", frames)
            // The frames are made one after another after they arrive: wait for the fifth to be kept.
            for _ in 0..<400 {
                let stream = try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()
                if stream["recording"] as? Int == 5 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let off = try await client.execute(
                uri: "/v1/streams/\(id)/record", method: .post, headers: json, body: ByteBuffer(string: #"{"on": false}"#))
            XCTAssertEqual(off.status, .created, String(buffer: off.body))
            let answer = try off.json()
            XCTAssertEqual(answer["frames"] as? Int, 5)
            let capture = try XCTUnwrap(answer["capture"] as? String)
            let document = try await client.execute(uri: "/v1/captures/\(capture)", method: .get).json()
            XCTAssertEqual(document["fused"] as? Bool, true)
            XCTAssertEqual(document["name"] as? String, "kitchen")
            XCTAssertEqual(document["source"] as? String, "bundle:bundle")
            let ply = try await client.execute(uri: "/v1/captures/\(capture)/cloud.ply", method: .get)
            let cloud = try Data(buffer: ply.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: "cloud.ply") }.cloud
            XCTAssertEqual(cloud.count, expected.count)
            XCTAssertEqual(cloud.positions, expected.positions, "the same points, in the same order")
            XCTAssertEqual(cloud.colors, expected.colors)
            // The stream goes on, no longer recording.
            let stream = try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()
            XCTAssertTrue(stream["recording"] is NSNull, "\(stream)")
        }
    }
}

/// The other real frames of ../shared/data pushed: TUM's (5000 units a metre, its PNG color sent as
/// JPEG) and SUN's (depth stored with its bits rotated, `depth_encoding` sun).
final class StreamPushFormatTests: XCTestCase {
    func testTheTUMAndSUNFramesArriveAsTheCLIsCloudsOfThem() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = try sharedData("open3d-rgbd/other_formats")
        let cases: [(name: String, scale: Double, encoding: DepthFileEncoding, color: String, depth: String)] = [
            ("TUM", 5000, .standard, "TUM_color.png", "TUM_depth.png"), ("SUN", 1000, .sun, "SUN_color.jpg", "SUN_depth.png")
        ]
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            for frame in cases {
                let colorPath = "\(folder)/\(frame.color)"
                let reference = scratch.appendingPathComponent("\(frame.name).ply").path
                _ = try CapturePipeline(
                    source: try SourceSpec(parsing: "rgbd:\(colorPath),\(folder)/\(frame.depth)"),
                    sourceOptions: SourceOptions(
                        intrinsicsPath: try sharedData("open3d-rgbd/camera_primesense.json"), depthUnitsPerMetre: frame.scale,
                        depthEncoding: frame.encoding),
                    frameLimit: 1, outputs: [(reference, .ply(.binary))], filters: FilterPipeline(steps: [], organized: false),
                    observer: SilentObserver()
                ).run()
                let expected = try CloudReader.read(reference).cloud
                // A JPEG as stored goes as it is; a PNG is sent as the JPEG a client would make of it.
                let color = try ImageFile.read(colorPath).colorImage(origin: colorPath)
                let jpeg =
                    colorPath.hasSuffix(".jpg")
                    ? try Data(contentsOf: URL(fileURLWithPath: colorPath))
                    : Data(try JPEGWriter.encode(color.rgb, width: color.width, height: color.height, channels: 3, origin: colorPath))
                let message = try StreamFixture.message(frame: 0, depthPNG: "\(folder)/\(frame.depth)", codec: .png, color: jpeg, pose: nil)
                let order = try JSONSerialization.data(withJSONObject: [
                    "push": [
                        "intrinsics": try StreamFixture.primesense(), "depth_scale": frame.scale, "depth_encoding": frame.encoding.rawValue
                    ]
                ])
                let created = try await client.execute(
                    uri: "/v1/streams", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: order))
                XCTAssertEqual(created.status, .created, String(buffer: created.body))
                let id = try XCTUnwrap(try created.json()["id"] as? String)
                let viewer = Task {
                    try await StreamSocket.watch("ws://127.0.0.1:\(port)/v1/streams/\(id)/live?points=2000000") { !$0.isEmpty }
                }
                for _ in 0..<200 {
                    if try await client.execute(uri: "/v1/streams/\(id)", method: .get).json()["viewers"] as? Int == 1 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                try await StreamSocket.push("ws://127.0.0.1:\(port)/v1/streams/\(id)/push", [message])
                let watched = try await viewer.value.messages
                let received = try XCTUnwrap(watched.first, frame.name)
                let packed = QuantisedCloud(expected, budget: 2_000_000)
                XCTAssertEqual(received.header.total, expected.finiteCount, "\(frame.name): every point of the CLI's cloud")
                XCTAssertEqual(received.positions, packed.positions, "\(frame.name): the CLI's positions, packed")
                let differences = zip(received.colors, packed.colors).map { abs(Int($0) - Int($1)) }
                let mean = Double(differences.reduce(0, +)) / Double(max(1, differences.count))
                if colorPath.hasSuffix(".jpg") {
                    XCTAssertEqual(received.colors, packed.colors, "\(frame.name): the stored JPEG's colors")
                } else {
                    XCTAssertLessThan(mean, 3, "\(frame.name): the colors within the JPEG's error")
                }
                _ = try await client.execute(uri: "/v1/streams/\(id)", method: .delete)
            }
        }
    }
}
