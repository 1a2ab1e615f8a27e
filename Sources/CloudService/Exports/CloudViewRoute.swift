import CloudCore
import CloudFiles
import CloudRender
import CloudStream
import Foundation
import Hummingbird
import SafeIO

/// A capture in the browser's 3D view: `GET /view/{id}` is the page (Resources/viewer.html), and
/// `GET /v1/captures/{id}/points[?points=N&width=W&height=H]` the cloud it draws, cut to a point
/// budget and packed as one message of the stream framing (StreamMessage: header, int16
/// positions, RGB8 colors). The header carries the camera that `cloudgen render` and the preview
/// route would use for a picture of W x H, so the view opens on the preview's framing. Each
/// budget and size is packed once, on the export pool, into `derived/`.
struct CloudViewRoute {
    let store: CaptureStore
    /// Makes the cloud of a capture stored lazily, once its request is found valid.
    let clouds: StoredClouds
    let derived: DerivedFiles

    /// What one request may ask for: a budget above the stored cloud's size gives all of it, and
    /// two million points (18 MB) is more than a browser draws smoothly.
    static let budgets = 1...2_000_000
    static let defaultBudget = 50_000

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.get("/view/{id}") { _, context in
            // The page holds no data (it fetches the points with the client's token), so it is
            // served to anyone, for any id; a wrong id is the points route's 404.
            _ = try CaptureID(path: context.parameters.get("id"), noun: "capture")
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: ViewerPage.html)))
        }
        routes.get("/v1/captures/{id}/points") { request, context in try await points(request, context) }
        return routes
    }

    private func points(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (record, folder) = try await store.requestedRecord(context.parameters.get("id"))
        let id = record.id
        var query = ExportQuery(request, allowed: ["points", "width", "height"])
        let budget = Int(
            try query.number(
                "points", default: Double(Self.defaultBudget),
                within: Double(Self.budgets.lowerBound)...Double(Self.budgets.upperBound), whole: true))
        let width = Int(try query.number("width", default: 640, within: 16...4096, whole: true))
        let height = Int(try query.number("height", default: 480, within: 16...4096, whole: true))
        try query.finish()
        try await clouds.ensureCloud(record, folder)
        let stored = folder.appendingPathComponent(CaptureFiles.cloud).path
        let name = DerivedFiles.name("points \(budget) \(width) \(height)", extension: "bin")
        let packed = try await derived.file(name, in: folder, capture: id) { path, _ in
            let message = try Self.message(reading: stored, capture: id.description, budget: budget, width: width, height: height)
            try AtomicFile.write(message.encoded, to: path)
        }
        return try await FileResponse.serve(
            packed, contentType: "application/octet-stream", etag: "\(id)-\(name.prefix(64))", request: request, context: context)
    }

    /// The stored cloud at `path` packed for the viewer, with the preview's camera for a W x H picture.
    static func message(reading path: String, capture: String, budget: Int, width: Int, height: Int) throws -> StreamMessage {
        let loaded = try CloudReader.read(path)
        var view = RenderView(width: width, height: height)
        if let camera = loaded.header.viewpoint { view = view.turned(fromCamera: camera) }
        let renderer = PointRenderer(cloud: loaded.cloud, origin: "capture \(capture)")
        let camera = try renderer.camera(for: view)
        let packed = QuantisedCloud(loaded.cloud, budget: budget)
        let header = CloudViewHeader(
            capture: capture, points: packed.count, total: packed.total,
            origin: [packed.origin.x, packed.origin.y, packed.origin.z], scale: packed.scale,
            camera: ViewCamera(camera),
            pointSize: RenderStyle.automaticPointSize(points: loaded.cloud.finiteCount, width: width, height: height))
        return try StreamMessage(header: header, payloads: packed.payloads)
    }
}

/// The header of a capture's packed cloud: after it come `points` x 3 int16 positions (steps of
/// `scale` metres from `origin`, little-endian) and `points` x 3 bytes of RGB.
struct CloudViewHeader: Codable, Equatable {
    var capture: String
    var points: Int
    /// Finite points in the stored cloud, of which `points` were kept.
    var total: Int
    var origin: [Float]
    var scale: Float
    var camera: ViewCamera
    /// The preview's point size for this picture size, in pixels.
    var pointSize: Int
}

extension ViewCamera {
    init(_ camera: OrbitCamera) {
        self.init(
            target: [camera.target.x, camera.target.y, camera.target.z], distance: camera.distance, azimuth: camera.azimuth,
            elevation: camera.elevation, fieldOfView: camera.fieldOfView, up: camera.up.description, width: camera.width,
            height: camera.height)
    }
}

/// GET /view/{id}: the 3D view, as the page's own file with the shared view written in.
enum ViewerPage {
    static let html = PointViewScript.inserted(into: PackageResources.viewer_html)
}

/// The 3D view both pages draw with (Resources/pointview.js), written into each page where it
/// says `/*POINTVIEW*/`: every page is one file, with nothing more to fetch.
enum PointViewScript {
    static let source = String(decoding: PackageResources.pointview_js, as: UTF8.self)

    static func inserted(into page: [UInt8]) -> String {
        String(decoding: page, as: UTF8.self).replacing("/*POINTVIEW*/", with: source, maxReplacements: 1)
    }
}
