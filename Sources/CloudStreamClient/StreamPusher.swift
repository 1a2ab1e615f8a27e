import CloudCore
import CloudImages
import CloudStream
import Foundation
import HummingbirdWSClient
import NIOCore

/// The pushing side of a stream: creates it on the service (`POST /v1/streams`), then sends each
/// frame as one binary message on its push socket (`PushFrame`). The server acknowledges nothing;
/// it closes the socket when it refuses a frame, which the next `push` or `finish` reports.
public final class StreamPusher: @unchecked Sendable {
    public let stream: CreatedStream
    public let depthScale: Double
    public let codec: DepthFrameCodec
    /// Frames sent so far.
    public private(set) var pushed = 0

    private let writer: WebSocketOutboundWriter
    /// Finishing it ends the socket's handler, which closes the socket normally.
    private let finishing: AsyncStream<Void>.Continuation
    private let connection: Task<WebSocketCloseFrame?, Error>
    private let serverClosed: Flag

    /// Creates a stream of `request`'s camera and options on `service`, and opens its push socket.
    /// The request is one blocking HTTP exchange (at most `HTTPPost.timeoutSeconds` a step).
    public static func start(
        on service: ServiceURL, token: String?, request: StreamRequest, codec: DepthFrameCodec
    ) async throws -> StreamPusher {
        let stream = try CreatedStream.create(on: service, token: token, request)
        return try await connect(to: stream, token: token, depthScale: request.depthScale, codec: codec)
    }

    /// Opens the push socket of a stream created already.
    public static func connect(
        to stream: CreatedStream, token: String?, depthScale: Double, codec: DepthFrameCodec
    ) async throws -> StreamPusher {
        let (finished, finishing) = AsyncStream<Void>.makeStream()
        let opened = OneShot<WebSocketOutboundWriter>()
        let serverClosed = Flag()
        let configuration = SocketSupport.configuration(token: token)
        let connection = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: stream.pushURL, configuration: configuration, logger: SocketSupport.logger
                ) {
                    inbound, outbound, _ in
                    opened.resolve(.success(outbound))
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        // The server sends nothing but its close, which ends the inbound frames;
                        // reading them also answers its pings.
                        group.addTask {
                            for try await _ in inbound {}
                            serverClosed.set()
                        }
                        group.addTask { for await _ in finished {} }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
                opened.resolve(.failure(CloudError.badInput("\(stream.pushURL): the service closed the push socket at once")))
                return close
            } catch {
                let failure = SocketSupport.failure(error, url: stream.pushURL)
                opened.resolve(.failure(failure))
                throw failure
            }
        }
        do {
            let writer = try await opened.value
            return StreamPusher(
                stream: stream, depthScale: depthScale, codec: codec, writer: writer, finishing: finishing, connection: connection,
                serverClosed: serverClosed)
        } catch {
            finishing.finish()
            throw error
        }
    }

    private init(
        stream: CreatedStream, depthScale: Double, codec: DepthFrameCodec, writer: WebSocketOutboundWriter,
        finishing: AsyncStream<Void>.Continuation, connection: Task<WebSocketCloseFrame?, Error>, serverClosed: Flag
    ) {
        self.stream = stream
        self.depthScale = depthScale
        self.codec = codec
        self.writer = writer
        self.finishing = finishing
        self.connection = connection
        self.serverClosed = serverClosed
    }

    /// Encodes `frame` as the next frame (numbered from 0) and sends it, acquired at `captured`
    /// (ns since the Unix epoch). False when the service has ended the stream normally (its owner
    /// deleted it): nothing more can be pushed. A refusal by the service (a close with a fault
    /// code) is `CloudError.badInput` with the service's reason.
    @discardableResult
    public func push(_ frame: CapturedFrame, captured: Int64 = StreamClock.now(), origin: String) async throws -> Bool {
        let message = try PushFrame.encode(frame, index: pushed, captured: captured, depthScale: depthScale, codec: codec, origin: origin)
        return try await push(message)
    }

    /// Sends a message as it is (the tests send broken ones). As `push(_:captured:origin:)`.
    @discardableResult
    public func push(_ message: StreamMessage) async throws -> Bool {
        if serverClosed.isSet { return try await ended() }
        do {
            try await writer.writeBinaryMessage(.init(bytes: message.encoded))
        } catch {
            return try await ended()
        }
        pushed += 1
        return true
    }

    /// Closes the push socket normally and waits until it is closed; throws when the service had
    /// closed it first with a fault.
    public func finish() async throws {
        finishing.finish()
        _ = try await ended()
    }

    /// Waits for the socket to end and says how it ended: false after a normal close, the
    /// service's reason as an error after any other.
    private func ended() async throws -> Bool {
        finishing.finish()
        let close: WebSocketCloseFrame?
        do {
            close = try await connection.value
        } catch {
            throw SocketSupport.failure(error, url: stream.pushURL)
        }
        if let close, !SocketSupport.isNormal(close) {
            throw CloudError.badInput("\(stream.pushURL): the service closed the stream: \(SocketSupport.describe(close))")
        }
        return false
    }
}
