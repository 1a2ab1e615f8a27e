import Hummingbird
import NIOConcurrencyHelpers

/// Every route the service answers, registered on the router through here so that the service
/// also knows them: to answer 405 with `Allow` for a known path asked with another method
/// (Hummingbird's router says 404), and for the tests that hold /openapi.json to the routes.
public final class RouteTable: Sendable {
    public struct Route: Sendable, Hashable {
        public var method: HTTPRequest.Method
        /// OpenAPI's form: /v1/captures/{id}.
        public var path: String
    }

    private let entries = NIOLockedValueBox<[Route]>([])

    public var routes: [Route] { entries.withLockedValue { $0 } }

    fileprivate func record(_ method: HTTPRequest.Method, _ path: String) {
        entries.withLockedValue { $0.append(Route(method: method, path: path)) }
    }

    /// A controller's routes, on `router` and in the table.
    func add<Context: RequestContext>(_ collection: RouteCollection<Context>, to router: Router<Context>) {
        RecordingRouter(table: self, router: router).addRoutes(collection)
    }

    /// The methods some route takes at `path` (a request path, percent-encoded as received);
    /// HEAD wherever GET is (the router answers it).
    func methods(matching path: String) -> [HTTPRequest.Method] {
        let segments = Self.segments(path)
        let methods = routes.filter { route in
            let pattern = Self.segments(route.path)
            return pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }.map(\.method)
        return methods.contains(.get) ? methods + [.head] : methods
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}

/// The router as a `RouteCollection` is added to it, noting each route in the table on its way
/// (a collection does not show its routes).
private struct RecordingRouter<Context: RequestContext>: RouterMethods {
    let table: RouteTable
    let router: Router<Context>

    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        table.record(method, path.description)
        router.on(path, method: method, responder: responder)
        return self
    }

    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
