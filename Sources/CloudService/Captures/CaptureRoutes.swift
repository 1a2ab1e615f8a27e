import CloudCapture
import CloudCore
import CloudPipeline
import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import Prometheus

/// POST /v1/captures (an uploaded frame, a server-side source, or an uploaded archive as a job),
/// GET /v1/captures (paged), GET and DELETE /v1/captures/{id}.
struct CaptureRoutes {
    let store: CaptureStore
    /// Runs an order into staging on the capture pool, then stores it.
    let runner: CaptureRunner
    let capturePool: WorkerPool
    /// Where an uploaded archive goes: a job.
    let jobs: JobBoard
    /// A deleted capture's derived files leave the cache's byte count with it.
    let derived: DerivedFiles
    let metrics: ServiceMetrics
    let maxUploadBytes: Int
    /// The folders a JSON request's source may name.
    let allowedDirectories: [String]

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.post("/v1/captures") { request, _ in try await create(request) }
        routes.get("/v1/captures") { request, _ in try await list(request) }
        routes.get("/v1/captures/{id}") { _, context in
            let id = try CaptureID(path: context.parameters.get("id"), noun: "capture")
            guard let record = try await store.index.capture(id) else { throw Problem.notFound("no capture \(id)") }
            return Response.json(try record.document(), status: .ok, headers: [.eTag: record.documentETag])
        }
        routes.delete("/v1/captures/{id}") { _, context in
            let id = try CaptureID(path: context.parameters.get("id"), noun: "capture")
            let folder = store.folder(id)
            guard try await store.remove(id) else { throw Problem.notFound("no capture \(id)") }
            if let folder { derived.forget(folder: folder) }
            metrics.capturesStored.decrement()
            return Response(status: .noContent)
        }
        return routes
    }

    private func create(_ request: Request) async throws -> Response {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("application/json") { return try await createFromJSON(request) }
        guard type.hasPrefix("multipart/form-data") else {
            throw Problem.unsupportedMediaType(
                "POST /v1/captures takes multipart/form-data (uploaded images or an archive) or application/json (a server-side source)")
        }
        let folder = try store.makeUploadFolder()
        var handedOver = false
        defer { if !handedOver { try? FileManager.default.removeItem(at: folder) } }
        // The images, the archive and the photo are files; so is the intrinsics option's value.
        let fileParts: Set<String> = ["depth", "color", "intrinsics", "bundle", "photo"]
        let upload = MultipartUpload(
            fileParts: fileParts,
            fieldNames: OptionCatalogue.fields(of: .captureForm).subtracting(fileParts).union(CaptureLabelFields.names),
            limit: maxUploadBytes)
        let parts = try await upload.receive(request, into: folder.path)
        metrics.bytesWritten.increment(by: Int64(parts.files.values.reduce(0) { $0 + $1.bytes }))
        if parts.files["bundle"] != nil {
            let job = try await jobs.submit(parts, folder: folder)
            handedOver = true
            return Response.json(try job.json(), status: .accepted, headers: [.location: "/v1/jobs/\(job.id)"])
        }
        let order = try Self.order(parts)
        let labels = try CaptureLabelFields.labels(parts.fields)
        return try await store(order, paths: ClientPaths(parts), labels: labels, files: parts.clientFileNames, inputs: parts)
    }

    /// An uploaded photo's order, or else an uploaded frame's: what the upload asks for, and what
    /// a lazily stored capture's kept inputs are made into again.
    static func order(_ parts: UploadedParts) throws -> CaptureOrder {
        try parts.files["photo"].map { try PhotoUpload.order($0, parts) } ?? uploadOrder(parts)
    }

    /// An uploaded frame: depth (required), color, intrinsics (required), and the fields.
    static func uploadOrder(_ parts: UploadedParts) throws -> CaptureOrder {
        guard let depth = parts.files["depth"] else {
            throw Problem.badRequest(
                "part depth is required: the depth image (16-bit PNG, TIFF or PGM, float TIFF, PCLZF); or send a photo part (an iPhone HEIC or JPEG with depth)",
                field: "depth")
        }
        guard let intrinsics = parts.files["intrinsics"] else {
            throw Problem.badRequest(
                "part intrinsics is required: the camera's calibration (Open3D JSON, PCL grabber XML or cloudgen JSON)", field: "intrinsics"
            )
        }
        if let source = parts.field("source") {
            throw Problem.badRequest(
                "field source \(MessageTextShort.of(source)) names a server-side source; send it as a JSON body, not beside uploaded images",
                field: "source")
        }
        var order = CaptureOrder(source: .rgbd(color: parts.files["color"]?.path, depth: depth.path))
        order.options.intrinsicsPath = intrinsics.path
        try order.applyImageFields(parts.fields)
        try order.check()
        return order
    }

    /// A JSON body: a source on the server's side (the simulated camera, a device, an allowed folder).
    private func createFromJSON(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 << 10)
        let capture = try JSONBody.decode(CaptureRequestJSON.self, from: Data(buffer: body))
        let order = try capture.order(allowed: allowedDirectories)
        let labels = try capture.labels.applied(to: CaptureLabels())
        do {
            return try await store(order, paths: ClientPaths(), labels: labels, files: [:])
        } catch let error as CloudError where error.kind == .deviceOrIO && order.source?.isDevice == true {
            // A camera that is not attached, busy or gone is the request's to fix, not the server's.
            throw Problem.unprocessable(FieldWording.detail(error), field: "source")
        }
    }

    /// `inputs`: the uploaded parts the order reads, which a lazily stored capture keeps instead
    /// of its cloud; nil for a source on the server's side.
    private func store(
        _ order: CaptureOrder, paths: ClientPaths, labels: CaptureLabels, files: [String: String], inputs: UploadedParts? = nil
    ) async throws -> Response {
        var staged = try await capturePool.run { cancelled in
            try runner.capture(
                order, observer: CollectingObserver(cancelled: cancelled), cancelled: cancelled, paths: paths, inputs: inputs)
        }
        // A client gone while the last step ran: nothing of its capture is kept.
        if Task.isCancelled {
            store.abandon(staging: staged.folder)
            throw CancellationError()
        }
        staged.record.labels = labels
        staged.record.uploadedFiles = files
        let record = try await runner.store(staged)
        return Response.json(try record.document(), status: .created, headers: [.location: "/v1/captures/\(record.id)"])
    }

    private func list(_ request: Request) async throws -> Response {
        let page = try CaptureListQuery(request)
        let records = try await store.index.list(page.query)
        // A full page may have a next one; a shorter one is the last.
        let next = records.count == page.query.limit ? records.last.map { page.link(after: $0.id) } : nil
        let body = JSONValue.object(["captures": .array(try records.map { try $0.documentValue() }), "next": JSONValue(next)])
        return Response.json(try body.encoded(), status: .ok)
    }
}
