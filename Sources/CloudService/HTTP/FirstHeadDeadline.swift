import HummingbirdCore
import Logging
import NIOCore

/// A connection that may become a WebSocket has no HTTP idle timeout until its first request
/// head is whole: the upgrade handler reads that head before the HTTP handlers (and their idle
/// timeout) are added, so 20 clients trickling half a header each would hold 20 connections for
/// good. This closes a connection whose first head has not ended ("\r\n\r\n") within the idle
/// timeout, then steps aside; later requests are the HTTP handlers' to time, a WebSocket's its
/// pings'.
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

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }
}

/// `inner`'s connections, each with a `FirstHeadDeadline` in front.
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
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
