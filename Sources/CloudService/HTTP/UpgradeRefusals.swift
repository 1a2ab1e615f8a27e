import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Answers a WebSocket upgrade that will be refused (a wrong Host or Origin, no token, no such
/// stream) with the problem document the same request gets over plain HTTP: 421, 403, 401 or
/// 404 with application/problem+json. Past the upgrade handler, a refused upgrade is a bare 400
/// with no body (the WebSocket channel's own answer), which tells a client nothing. It sits
/// between the HTTP decoder and the upgrade handler, looks at the first request head only, and
/// steps aside once that head has passed.
final class UpgradeRefusals: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The problem for an upgrade request, nil to let it through.
    private let refusal: @Sendable (HTTPRequest) -> Problem?
    /// Set once the request is refused: the rest of it is dropped.
    private var refused = false

    init(refusal: @escaping @Sendable (HTTPRequest) -> Problem?) {
        self.refusal = refusal
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        guard case .head(let head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        if head.headers["Upgrade"].first?.lowercased() == "websocket",
            let request = try? HTTPRequest(head, secure: false, splitCookie: false),
            let problem = refusal(request)
        {
            refused = true
            answer(problem, path: head.uri, context: context)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func answer(_ problem: Problem, path: String, context: ChannelHandlerContext) {
        let instance = String(path.prefix { $0 != "?" })
        let body = (try? problem.document(instance: instance)) ?? Data()
        var headers = HTTPHeaders(problem.headers.map { ($0.name.rawName, $0.value) })
        headers.replaceOrAdd(name: "Content-Type", value: "application/problem+json")
        headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        headers.replaceOrAdd(name: "Connection", value: "close")
        let status = HTTPResponseStatus(statusCode: problem.status.code, reasonPhrase: problem.status.reasonPhrase)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            FirstHeadDeadline.endInput(of: context.channel)
        }
    }
}

/// `inner`'s connections with `UpgradeRefusals` after their HTTP decoder.
struct UpgradeRefusalChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let refusal: @Sendable (HTTPRequest) -> Problem?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let value = inner.setup(channel: channel, logger: logger)
        do {
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(UpgradeRefusals(refusal: refusal), position: .after(decoder))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return value
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
