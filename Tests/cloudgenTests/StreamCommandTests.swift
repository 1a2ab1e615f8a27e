import CloudCapture
import CloudCore
import CloudImages
import CloudStream
import CloudStreamClient
import Foundation
import SharedTestData
import XCTest

/// `cloudgen stream` against a real `cloudgen serve`, watched by a `LiveViewer`: the Redwood frames
/// pushed over the wire come out as the clouds of their own depth, and every way the push can fail
/// ends in one line and exit 2.
final class StreamCommandTests: XCTestCase {
    var redwood: String { SharedData.path("open3d-rgbd") }

    func testPushedRedwoodFramesReachAViewerAsTheirClouds() async throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeProcess(data: dir.appendingPathComponent("data"))
        // Two frames a second: the viewer connects while the first frames are still to come.
        let push = Process()
        push.executableURL = CLI.executable
        push.arguments = ["stream", "--to", server.url, "--source", "redwood:\(redwood)", "--fps", "2"]
        let stdout = Pipe()
        let stderr = Pipe()
        push.standardOutput = stdout
        push.standardError = stderr
        try push.run()
        defer { if push.isRunning { kill(push.processIdentifier, SIGKILL) } }
        let page = try XCTUnwrap(firstLine(of: stdout), "cloudgen stream printed no page URL")
        XCTAssertTrue(page.hasPrefix("\(server.url)/live/"), page)
        let id = String(page.split(separator: "/").last!)

        // Each frame's total is the number of pixels with depth: the cloud of that frame, made by the service.
        let source = try SourceSpec(parsing: "redwood:\(redwood)").open()
        var valid: [Int] = []
        while let frame = try source.nextFrame() { valid.append(try RGBDFrame(decoding: frame, origin: "redwood").depth.validCount) }

        let live = "\(server.url.replacingOccurrences(of: "http://", with: "ws://"))/v1/streams/\(id)/live?points=2000&depth=1"
        let lastFrame = valid.count - 1
        let watching = Task {
            var received: [LiveMessage] = []
            for try await message in LiveViewer.messages(url: live, token: nil) {
                received.append(message)
                if message.header.frame == lastFrame { break }
            }
            return received
        }
        let timeout = Task {
            try await Task.sleep(nanoseconds: 60_000_000_000)
            watching.cancel()
        }
        let received = try await watching.value
        timeout.cancel()

        XCTAssertEqual(received.last?.header.frame, valid.count - 1, "the viewer saw \(received.map(\.header.frame))")
        // A viewer sees the newest frame when it comes, then each later one, in order.
        XCTAssertEqual(received.map(\.header.frame), received.map(\.header.frame).sorted())
        for message in received {
            let header = message.header
            XCTAssertNil(header.event, header.detail ?? "")
            XCTAssertEqual(header.total, valid[header.frame], "frame \(header.frame)")
            XCTAssertEqual(header.points, 2000)
            XCTAssertEqual(message.positions.count, 3 * header.points)
            XCTAssertEqual(message.colors.count, 3 * header.points)
            // Camera frame: every point in front of the camera, within the room.
            let depths = (0..<header.points).map { message.position($0).z }
            XCTAssertGreaterThan(depths.min() ?? 0, 0.2, "frame \(header.frame)")
            XCTAssertLessThan(depths.max() ?? 99, 6, "frame \(header.frame)")
            XCTAssertFalse(message.colors.allSatisfy { $0 == QuantisedCloud.uncolored }, "frame \(header.frame) has its colors")
            XCTAssertEqual(message.depthPNG?.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]), "frame \(header.frame)")
        }
        push.waitUntilExit()
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(push.terminationStatus, 0, said)
        XCTAssertTrue(said.contains("pushed 5 frames of redwood:"), said)
    }

    func testAFrameTheServiceRefusesEndsThePushWithItsReason() async throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeProcess(data: dir.appendingPathComponent("data"))
        let source = try SourceSpec(parsing: "redwood:\(redwood)").open()
        let frame = try XCTUnwrap(try source.nextFrame())
        let request = StreamRequest(intrinsics: frame.intrinsics, depthScale: PushFrame.depthScale(of: frame))
        let pusher = try await StreamPusher.start(on: try ServiceURL(server.url), token: nil, request: request, codec: .rvl)
        let taken = try await pusher.push(frame, origin: "redwood")
        XCTAssertTrue(taken)
        // The same frame with a pose that scales: the service closes the socket naming the frame.
        var message = try PushFrame.encode(frame, index: 1, captured: StreamClock.now(), depthScale: 1000, codec: .rvl, origin: "redwood")
        var header = try JSONDecoder.snakeCase.decode(PushHeader.self, from: message.header)
        header.pose = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1]
        message = try StreamMessage(header: header, payloads: message.payloads)
        do {
            // The refusal comes as a close after the frame: the next push or the finish reports it.
            try await pusher.push(message)
            try await Task.sleep(nanoseconds: 2_000_000_000)
            try await pusher.push(frame, origin: "redwood")
            try await pusher.finish()
            XCTFail("the service took a scaling pose")
        } catch let error as CloudError {
            XCTAssertEqual(error.kind, .badInput)
            XCTAssertTrue(error.message.contains("frame 1: the rotation is not a rotation"), error.message)
        }
    }

    func testUnreachableRefusedAndUnauthorisedPushesExit2WithOneLine() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = dir.appendingPathComponent("token")
        try Data("0123456789abcdef0123\n".utf8).write(to: token)
        let server = try ServeProcess(data: dir.appendingPathComponent("data"), arguments: ["--token-file", token.path])
        let source = ["--source", "redwood:\(redwood)", "--frames", "2", "--fps", "0"]
        let wrong = dir.appendingPathComponent("wrong")
        try Data("fedcba9876543210fedc\n".utf8).write(to: wrong)
        for (arguments, mentions) in [
            (["--to", server.url], "401"), (["--to", server.url, "--token-file", wrong.path], "did not accept the token"),
            (["--to", "http://127.0.0.1:1"], "cannot connect"), (["--to", "https://127.0.0.1:1"], "only http://"),
            (["--to", server.url, "--token-file", token.path, "--range", "0.3,4", "--fuse"], "--fuse"),
            (["--to", server.url, "--token-file", token.path, "--frame", "world", "--voxel", "0"], "voxel")
        ] {
            let result = try CLI.run(["stream"] + arguments + source, in: dir)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
        }
        // With the token, the same push goes through: two frames, and the stream's page on stdout.
        let result = try CLI.run(["stream", "--to", server.url, "--token-file", token.path] + source, in: dir)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("\(server.url)/live/"), result.stdout)
        XCTAssertTrue(result.stderr.contains("pushed 2 frames"), result.stderr)
    }

    /// The first line a process writes to `pipe`, waiting at most 30 s.
    private func firstLine(of pipe: Pipe) -> String? {
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("\n"), Date() < deadline {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text.split(separator: "\n").first.map(String.init)
    }
}

extension JSONDecoder {
    fileprivate static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
