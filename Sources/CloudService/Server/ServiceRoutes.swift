import CloudCapture
import Foundation
import Hummingbird
import Prometheus

/// The small routes: health, metrics, devices, the page and the API document.
struct ServiceRoutes {
    let index: any CaptureIndex
    let metrics: ServiceMetrics
    let capturePool: WorkerPool
    /// Device discovery runs here, with the other short work.
    let exportPool: WorkerPool
    let streamPool: WorkerPool

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.get("/healthz") { _, _ in
            Response.json(Data("{\"status\":\"ok\"}".utf8), status: .ok)
        }
        routes.get("/metrics") { _, _ in
            // Scraped most when something is wrong: with the index unreachable, the gauge keeps
            // its last count and the rest is still served.
            if let count = try? await index.count() { metrics.capturesStored.set(Double(count)) }
            metrics.recordLoad(of: capturePool)
            metrics.recordLoad(of: exportPool)
            metrics.recordLoad(of: streamPool)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.text)))
        }
        routes.get("/v1/devices") { _, _ in
            let report = try await exportPool.run { try DeviceReport.discover() }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return Response.json(try encoder.encode(report), status: .ok)
        }
        routes.get("/openapi.json") { _, _ in
            Response.json(Data(OpenAPIDocument.json.utf8), status: .ok)
        }
        routes.get("/") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: ServicePage.html)))
        }
        return routes
    }
}
