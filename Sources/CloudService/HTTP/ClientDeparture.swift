import Hummingbird
import NIOConcurrencyHelpers
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
    let presence = ConnectionPresence()

    func handlerRemoved(context: ChannelHandlerContext) {
        presence.depart()
    }

    func channelInactive(context: ChannelHandlerContext) {
        presence.depart()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { presence.depart() }
        context.fireUserInboundEventTriggered(event)
    }

    /// The presence of `channel`'s client; nil for a channel without this handler (the tests'
    /// in-process router).
    static func presence(of channel: any Channel) async -> ConnectionPresence? {
        try? await channel.eventLoop.submit {
            try? channel.pipeline.syncOperations.handler(type: ClientDeparture.self).presence
        }.get()
    }
}

/// Whether a connection's client is still there, and what to cancel when it goes: the request
/// being answered registers itself for as long as it runs (a keep-alive connection's earlier
/// requests leave nothing behind).
final class ConnectionPresence: Sendable {
    private let state = NIOLockedValueBox(State())

    /// The connection of the request this task answers (set by `DepartureAwareResponder`): what
    /// ProblemMiddleware asks when a handler fails, since a body cut off by the connection closing
    /// surfaces as an I/O error, which may reach it before the task's cancellation does.
    @TaskLocal static var current: ConnectionPresence?

    /// Whether the connection has closed (either side) or its client stopped sending.
    var isGone: Bool { state.withLockedValue { $0.gone } }

    private struct State {
        var gone = false
        var watchers: [Int: @Sendable () -> Void] = [:]
        var next = 0
    }

    /// Calls `cancel` when the client goes (at once if it has); the id undoes it.
    func watch(_ cancel: @escaping @Sendable () -> Void) -> Int? {
        let id = state.withLockedValue { state -> Int? in
            guard !state.gone else { return nil }
            state.next += 1
            state.watchers[state.next] = cancel
            return state.next
        }
        if id == nil { cancel() }
        return id
    }

    func unwatch(_ id: Int) {
        state.withLockedValue { _ = $0.watchers.removeValue(forKey: id) }
    }

    func depart() {
        let watchers = state.withLockedValue { state -> [@Sendable () -> Void] in
            state.gone = true
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        watchers.forEach { $0() }
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
        guard let presence = await ClientDeparture.presence(of: context.channel) else {
            return try await routes.respond(to: request, context: inner)
        }
        let work = Task {
            try await ConnectionPresence.$current.withValue(presence) { try await routes.respond(to: request, context: inner) }
        }
        let watch = presence.watch { work.cancel() }
        defer { if let watch { presence.unwatch(watch) } }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }
}
