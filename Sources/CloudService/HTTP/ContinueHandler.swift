import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` (RFC 9110 10.1.1) with `100 Continue` as soon as the request's
/// head is in, when the request can be taken: curl sends it before any body over 1 MiB and then
/// waits a second for it, so without this every large upload lost a second. A request that will
/// be refused (too large, without the token, from a foreign page) gets no 100: its final answer
/// comes without the body ever being sent.
final class ContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart
    private let accepts: @Sendable (HTTPRequest) -> Bool

    init(accepts: @escaping @Sendable (HTTPRequest) -> Bool) {
        self.accepts = accepts
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), head.headerFields[.expect]?.lowercased() == "100-continue", accepts(head) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
