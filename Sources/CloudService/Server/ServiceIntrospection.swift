import Foundation
import Hummingbird

/// What the service registers and documents, for the tests that hold /openapi.json to the
/// routes (OpenAPIDocumentTests). The routes are registered on a router of their own, over a store
/// in `configuration`'s data folder, by the same `registerRoutes` as the server's.
public enum ServiceIntrospection {
    /// The document GET /openapi.json serves.
    public static let openAPIDocument = OpenAPIDocument.json

    public static func routes(_ configuration: ServiceConfiguration) throws -> [RouteTable.Route] {
        let store = try CaptureStore(root: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true))
        let service = ServiceState(configuration: configuration, store: store)
        service.registerRoutes(on: Router(context: BasicRequestContext.self))
        return service.routes.routes
    }
}

extension ServiceState {
    /// Every route group of the service, on `router` and in `routes`.
    func registerRoutes(on router: Router<BasicRequestContext>) {
        routes.add(
            ServiceRoutes(index: store.index, metrics: metrics, capturePool: capturePool, exportPool: exportPool).collection, to: router)
        CaptureRoutes(service: self).register(on: router)
        routes.add(CaptureLabelRoute(index: store.index).collection, to: router)
        CaptureArchiveRoute(service: self).register(on: router)
        ExportRoutes(service: self).register(on: router)
        routes.add(MeasureRoute(store: store, derived: derived).collection, to: router)
        routes.add(CloudViewRoute(store: store, derived: derived).collection, to: router)
        routes.add(JobRoutes(index: store.index, board: jobs).collection, to: router)
        routes.add(JobListRoute(index: store.index).collection, to: router)
        ConvertRoute(service: self).register(on: router)
    }
}
