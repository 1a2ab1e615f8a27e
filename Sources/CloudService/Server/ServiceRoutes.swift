import CloudCapture
import Foundation
import Hummingbird

/// The small routes: health, metrics, devices, the page and the API document.
struct ServiceRoutes {
    let service: ServiceState

    func register(on router: Router<BasicRequestContext>) {
        let routes = service.routes
        routes.add(.get, "/healthz", to: router) { _, _ in
            Response.json(Data("{\"status\":\"ok\"}".utf8), status: .ok)
        }
        routes.add(.get, "/metrics", to: router) { _, _ in
            let count = try await service.store.index.count()
            service.metrics.capturesStored.set(Double(count))
            service.metrics.recordLoad(of: service.capturePool)
            service.metrics.recordLoad(of: service.exportPool)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: service.metrics.text)))
        }
        routes.add(.get, "/v1/devices", to: router) { _, _ in
            let report = try await service.exportPool.run { try DeviceReport.discover() }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return Response.json(try encoder.encode(report), status: .ok)
        }
        routes.add(.get, "/openapi.json", to: router) { _, _ in
            Response.json(Data(OpenAPIDocument.json.utf8), status: .ok)
        }
        routes.add(.get, "/", to: router) { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: ServicePage.html)))
        }
    }
}
