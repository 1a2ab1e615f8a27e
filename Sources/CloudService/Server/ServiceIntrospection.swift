import Foundation
import Hummingbird

/// What the service registers and documents, for the tests that hold /openapi.json to the
/// routes (OpenAPIDocumentTests). The routes are registered on a router of their own, over a store
/// in `configuration`'s data folder, by the same `addRoutes` as the server's.
public enum ServiceIntrospection {
    /// The document GET /openapi.json serves.
    public static let openAPIDocument = OpenAPIDocument.json

    public static func routes(_ configuration: ServiceConfiguration) throws -> [RouteTable.Route] {
        let store = try CaptureStore(root: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true))
        let service = ServiceState(configuration: configuration, store: store)
        service.addRoutes(to: Router(context: BasicRequestContext.self))
        return service.routes.routes
    }
}
