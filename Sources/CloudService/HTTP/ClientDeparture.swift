import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Notices a client that has gone: its side of the connection closed (curl's `-m`, a closed tab,
/// a dropped phone), or the whole connection. Hummingbird allows half-closed connections and
/// does not look at the socket while a handler runs, so without this a request's work (a fused
/// capture, filters, a 4096-pixel preview) would run on for no one and be stored anyway.
///
/// A client that half-closes on purpose after sending its request is taken as gone too: no
/// browser, curl or HTTP library does so, and the work it asked for is what an attacker would
/// leave behind.
final class ClientDeparture: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    private var promise: EventLoopPromise<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        promise = context.eventLoop.makePromise()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        departed()
    }

    func channelInactive(context: ChannelHandlerContext) {
        departed()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { departed() }
        context.fireUserInboundEventTriggered(event)
    }

    private func departed() {
        promise?.succeed()
        promise = nil
    }

    /// Completes when the client of `channel` has gone; nil for a channel without this handler
    /// (the tests' in-process router).
    static func departure(of channel: any Channel) async -> EventLoopFuture<Void>? {
        try? await channel.eventLoop.submit { () -> EventLoopFuture<Void>? in
            guard let handler = try? channel.pipeline.syncOperations.handler(type: ClientDeparture.self) else { return nil }
            // Already gone (the request's last bytes and the close came together).
            return handler.promise?.futureResult ?? channel.eventLoop.makeSucceededFuture(())
        }.get()
    }
}

/// The request context the application makes: Hummingbird's basic one, plus the connection,
/// which `DepartureAwareResponder` watches.
struct ConnectionContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Runs the router's answer to each request as a task that is cancelled when its client goes
/// (`ClientDeparture`). The routes see cancellation as Swift's: the worker pools take queued work
/// off their queues and tell running work to stop between its steps, and nothing is stored.
/// ProblemMiddleware counts such a request as 499, not as a server error.
struct DepartureAwareResponder<Routes: HTTPResponder>: HTTPResponder where Routes.Context == BasicRequestContext {
    typealias Context = ConnectionContext
    let routes: Routes

    func respond(to request: Request, context: ConnectionContext) async throws -> Response {
        let inner = BasicRequestContext(source: .init(channel: context.channel, logger: context.logger))
        guard let departure = await ClientDeparture.departure(of: context.channel) else {
            return try await routes.respond(to: request, context: inner)
        }
        let work = Task { try await routes.respond(to: request, context: inner) }
        departure.whenSuccess { work.cancel() }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }
}
