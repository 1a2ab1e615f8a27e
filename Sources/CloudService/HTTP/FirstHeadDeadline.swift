import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// A connection that may become a WebSocket has no HTTP idle timeout until its first request
/// head is whole: the upgrade handler reads that head before the HTTP handlers (and their idle
/// timeout) are added, so 20 clients trickling half a header each would hold 20 connections for
/// good. This ends a connection whose first head has not ended ("\r\n\r\n") within the idle
/// timeout (the cut head then gets 408 from `FirstHeadErrors`), then steps aside; later requests
/// are the HTTP handlers' to time, a WebSocket's its pings'.
final class FirstHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?
    /// How many bytes of "\r\n\r\n" the data so far ends with.
    private var matched = 0

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        let ended = bytes.readableBytesView.contains { byte in
            let expected: UInt8 = matched % 2 == 0 ? 13 : 10
            matched = byte == expected ? matched + 1 : (byte == 13 ? 1 : 0)
            return matched == 4
        }
        context.fireChannelRead(data)
        if ended {
            timer?.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    /// Closes a connection whose first head never came whole. Closing outright would remove the
    /// upgrade handler while it still waits for that head, and Hummingbird logs the promise it
    /// then fails as a server error; told that the input ended, the upgrade handler closes the
    /// connection itself, the way Hummingbird expects of a client that leaves.
    static func endInput(of channel: any Channel) {
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        channel.close(promise: nil)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { Self.endInput(of: channel) }
    }
}

/// Answers a first request whose head the HTTP decoder refuses (a 200 KB header, too many
/// fields): before the upgrade decision no HTTP handler is there to answer it, and the connection
/// would hang. 431 for a head too large, 408 for one cut short by `FirstHeadDeadline`, 400 for
/// the rest, then the connection closes. It steps aside once a first head has passed, leaving
/// later requests to the HTTP handlers.
final class FirstHeadErrors: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let isHead = if case .head = unwrapInboundIn(data) { true } else { false }
        context.fireChannelRead(data)
        if isHead { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    /// An upgraded connection carries WebSocket frames from here on, which are not this handler's.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if event is HTTPServerUpgradeEvents { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parser = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        let status: HTTPResponseStatus =
            switch parser {
            case .headerOverflow: .requestHeaderFieldsTooLarge
            // The input ended inside the head: the deadline ran out (or the client half-closed).
            case .invalidEOFState: .requestTimeout
            default: .badRequest
            }
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            FirstHeadDeadline.endInput(of: context.channel)
        }
    }
}

/// `inner`'s connections, each with a `FirstHeadDeadline` in front and `FirstHeadErrors` behind.
struct FirstHeadDeadlineChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let deadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(FirstHeadDeadline(deadline: deadline), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let value = inner.setup(channel: channel, logger: logger)
        do {
            try channel.pipeline.syncOperations.addHandler(FirstHeadErrors())
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return value
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
