import CloudCore
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOWebSocket

/// What the pusher and the viewer share about their WebSocket client: its configuration, and
/// its failures in one line naming the socket's URL.
enum SocketSupport {
    /// The client logs nothing: its failures reach the caller as errors.
    static let logger = Logger(label: "cloudgen.stream", factory: { _ in SwiftLogNoOpLogHandler() })

    /// `maxFrameSize` bounds the frames read (a server may send a message whole) and cuts the
    /// messages written into frames of that size, which every server accepts at its default (16 KiB).
    static func configuration(token: String?, maxFrameSize: Int = 1 << 14) -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration(maxFrameSize: maxFrameSize)
        if let token { configuration.additionalHeaders[.authorization] = "Bearer \(token)" }
        return configuration
    }

    /// A connection's failure as bad input about `url` (the CLI exits 2: the service or the address is wrong).
    static func failure(_ error: Error, url: String) -> CloudError {
        if let error = error as? CloudError { return error }
        if let error = error as? WebSocketClientError, error == .webSocketUpgradeFailed {
            return .badInput(
                "\(url): the service refused the WebSocket (no such stream, a stream already pushed to, or a token it does not accept)")
        }
        return .badInput("\(url): the connection failed (\(MessageText.shortened(String(describing: error), to: 120)))")
    }

    /// A close frame's code and reason, as a message says them: "4400 frame 3: ...".
    static func describe(_ close: WebSocketCloseFrame) -> String {
        let code = UInt16(webSocketErrorCode: close.closeCode)
        return close.reason.map { "\(code) \($0)" } ?? "\(code)"
    }

    /// Whether a close frame ends the socket without a fault: 1000 (done) or 1001 (the server is going away).
    static func isNormal(_ close: WebSocketCloseFrame?) -> Bool {
        guard let close else { return true }
        return [1000, 1001].contains(UInt16(webSocketErrorCode: close.closeCode))
    }
}

/// A value one task hands to another once: the first result given wins, later ones are dropped.
final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Value, Error>?
    private var waiter: CheckedContinuation<Value, Error>?

    func resolve(_ result: Result<Value, Error>) {
        lock.lock()
        guard self.result == nil else {
            lock.unlock()
            return
        }
        self.result = result
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(with: result)
    }

    var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { waiter in
                lock.lock()
                if let result {
                    lock.unlock()
                    waiter.resume(with: result)
                } else {
                    self.waiter = waiter
                    lock.unlock()
                }
            }
        }
    }
}

/// A switch one task turns on and others read.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var on = false

    func set() {
        lock.lock()
        on = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return on
    }
}
