import CloudCore
import CloudStream
import Foundation
import HummingbirdWSClient
import NIOCore

/// A viewer of a stream: connects to its live URL (`GET /v1/streams/{id}/live?points=N&depth=1&color=1`)
/// and yields each message decoded (`LiveMessage`), a "problem" event included.
public enum LiveViewer {
    /// The largest message taken: 16 M points' positions and colors, and a depth picture.
    public static let maxMessageBytes = 256 << 20

    /// The messages of the live socket at `url`, as they arrive. The sequence ends when the service
    /// closes the socket normally (1000, or 1001 when it shuts down), and throws
    /// `CloudError.badInput` with the service's code and reason when it closes with a fault, or
    /// when a message is not what the framing says. Cancelling the task that reads it closes the socket.
    public static func messages(url: String, token: String?) -> AsyncThrowingStream<LiveMessage, Error> {
        AsyncThrowingStream { continuation in
            let connection = Task {
                do {
                    // The server may send a message as one frame of any size it chooses.
                    let configuration = SocketSupport.configuration(token: token, maxFrameSize: maxMessageBytes)
                    let close = try await WebSocketClient.connect(url: url, configuration: configuration, logger: SocketSupport.logger) {
                        inbound, _, _ in
                        for try await message in inbound.messages(maxSize: maxMessageBytes) {
                            guard case .binary(let buffer) = message else { continue }
                            continuation.yield(try LiveMessage.decode(Data(buffer.readableBytesView), origin: url))
                        }
                    }
                    if let close, !SocketSupport.isNormal(close) {
                        throw CloudError.badInput("\(url): the service closed the live socket: \(SocketSupport.describe(close))")
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: SocketSupport.failure(error, url: url))
                }
            }
            continuation.onTermination = { _ in connection.cancel() }
        }
    }
}
