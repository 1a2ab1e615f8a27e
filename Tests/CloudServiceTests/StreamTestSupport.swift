import CloudCapture
import CloudCore
import CloudImages
import CloudStream
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// Frames of ../shared/data as a client pushes them, and a test's ends of the stream sockets.
enum StreamFixture {
    /// The Redwood frames' push messages: 16-bit depth in `codec`, the color JPEG as stored, and
    /// the trajectory's pose (camera to world, row-major).
    static func redwoodFrames(codec: DepthFrameCodec = .zstd) throws -> [Data] {
        let folder = try sharedData("open3d-rgbd")
        let poses = try TrajectoryLog.read(folder + "/trajectory.log")
        return try (0..<5).map { k in
            let name = String(format: "%05d", k)
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/color/\(name).jpg"))
            return try message(
                frame: k, depthPNG: "\(folder)/depth/\(name).png", codec: codec, color: jpeg, pose: PushFrame.rowMajor(poses[k]))
        }
    }

    static func message(frame: Int, depthPNG path: String, codec: DepthFrameCodec, color: Data?, pose: [Double]?) throws -> Data {
        let image = try ImageFile.read(path)
        guard case .uint16(let samples) = image.samples else { throw PageError("\(path) is not 16-bit") }
        let depth = try codec.encode(samples, width: image.width, height: image.height, origin: path)
        let header = PushHeader(
            frame: frame, captured: StreamClock.now(),
            depth: .init(encoding: codec.rawValue, width: image.width, height: image.height, bytes: depth.count),
            color: color.map { .init(encoding: "jpeg", bytes: $0.count) }, pose: pose)
        return try StreamMessage(header: header, payloads: [Data(depth)] + (color.map { [$0] } ?? [])).encoded
    }

    /// The Open3D intrinsics of ../shared/data as a JSON object.
    static func primesense() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: try sharedData("open3d-rgbd/camera_primesense.json"))))
    }

    static let logger = Logger(label: "stream-test")
}

enum StreamSocket {
    /// Pushes `messages` in order and closes; the server's close frame, when it sent one first.
    /// `refused`: the server is expected to close the socket, and is waited for as long as a busy
    /// machine takes (30 s at most); otherwise half a second of silence after the last message
    /// ends the push (a refusal later than that is missed, so a test that expects none checks its
    /// frames arrived as well).
    @discardableResult
    static func push(_ url: String, _ messages: [Data], headers: [String: String] = [:], refused: Bool = false) async throws
        -> WebSocketCloseFrame?
    {
        var configuration = WebSocketClientConfiguration(maxFrameSize: 64 << 20)
        for (name, value) in headers { configuration.additionalHeaders[.init(name)!] = value }
        return try await WebSocketClient.connect(url: url, configuration: configuration, logger: StreamFixture.logger) {
            inbound, outbound, _ in
            for message in messages { try await outbound.write(.binary(ByteBuffer(data: message))) }
            let ended = Ended()
            let answer = Task {
                defer { ended.raise() }
                for try await _ in inbound {}
            }
            let deadline = ContinuousClock.now + (refused ? Duration.seconds(30) : .milliseconds(500))
            while !ended.isRaised && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            answer.cancel()
        }
    }

    /// Raised when the server's side of a socket has ended.
    private final class Ended: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false
        var isRaised: Bool { lock.withLock { raised } }
        func raise() { lock.withLock { raised = true } }
    }

    /// The messages a viewer receives until `done` says it has what it waited for, the socket
    /// closes, or `seconds` pass (then the test fails rather than hangs).
    static func watch(_ url: String, seconds: Double = 120, until done: @escaping @Sendable ([LiveMessage]) -> Bool) async throws -> (
        messages: [LiveMessage], close: WebSocketCloseFrame?
    ) {
        let box = Collected()
        let close = try await withThrowingTaskGroup(of: WebSocketCloseFrame?.self) { group in
            group.addTask {
                try await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: 64 << 20), logger: StreamFixture.logger) {
                    inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 64 << 20) {
                        guard case .binary(let buffer) = message else { continue }
                        if done(box.append(try LiveMessage.decode(Data(buffer: buffer), origin: "live"))) { return }
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                XCTFail("the viewer waited \(seconds) s; it had \(box.all.map(\.header.frame))")
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        return (box.all, close)
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [LiveMessage] = []

        func append(_ message: LiveMessage) -> [LiveMessage] {
            lock.withLock {
                messages.append(message)
                return messages
            }
        }

        var all: [LiveMessage] { lock.withLock { messages } }
    }
}
