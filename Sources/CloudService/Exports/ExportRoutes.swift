import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import Foundation
import Hummingbird

/// A capture's files: the cloud as PLY or PCD in any encoding, optionally filtered on the way
/// out; a rendered preview from any angle; the depth map as a colormap. The stored binary PLY and
/// depth picture are served as they are; every other variant is made once, on the export pool,
/// into the capture's `derived/` folder and served from there (captures never change, so a
/// variant never goes stale, and repeated downloads cost a file read).
struct ExportRoutes {
    let store: CaptureStore
    /// Makes the cloud of a capture stored lazily, once its request is found valid.
    let clouds: StoredClouds
    /// Where the variants are made, on the export pool, and kept.
    let derived: DerivedFiles
    /// A filtered export's steps are admitted against the request's shares of CPU and memory.
    let limits: WorkLimits

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        // Each download is an attachment named after the capture and the variant (DownloadName).
        for container in CloudContainer.all {
            routes.get("/v1/captures/{id}/cloud.\(container.name)") { request, context in
                try await attachment(try await cloud(request, context, container: container), context) {
                    DownloadName.cloud($0, container: container.name, query: request.orderedQuery)
                }
            }
        }
        routes.get("/v1/captures/{id}/preview.png") { request, context in
            try await attachment(try await preview(request, context), context) {
                DownloadName.preview($0, query: request.orderedQuery)
            }
        }
        routes.get("/v1/captures/{id}/depth.png") { request, context in
            try await attachment(try await depthImage(request, context), context) { $0 + "-depth.png" }
        }
        return routes
    }

    /// The pictures, drawn where the capture's zip finds them too.
    private var pictures: CapturePictures { CapturePictures(derived: derived) }

    private func attachment(_ response: Response, _ context: BasicRequestContext, file: (String) -> String) async throws -> Response {
        try await DownloadName.attachment(response, capture: context.parameters.get("id"), in: store.index, file: file)
    }

    private func cloud(_ request: Request, _ context: BasicRequestContext, container: CloudContainer) async throws -> Response {
        let (record, folder) = try await store.requestedRecord(context.parameters.get("id"))
        let id = record.id
        // `format` is the older name of `encoding` here, still taken.
        var query = ExportQuery(request, allowed: OptionCatalogue.fields(of: .export).union(["format"]))
        // `encoding`, as convert and the CLI call it; `format` is its older name here, still taken.
        let (spelled, older) = (query.take("encoding"), query.take("format"))
        if spelled != nil && older != nil {
            throw Problem.badRequest("format is the older name of encoding: give one of them", field: "format")
        }
        let formatName = spelled ?? older ?? "binary"
        guard let format = container.format(formatName) else {
            throw Problem.badRequest(
                "encoding \(MessageTextShort.of(formatName)): \(container.refusal(formatName))",
                field: spelled == nil ? "format" : "encoding")
        }
        try query.finish()
        try WorkLimits.checkStepCount(query.remaining.count, field: query.remaining.first?.name ?? "filters")
        let steps = try query.remaining.map { try CaptureOrder.step($0.name, $0.value.isEmpty ? nil : $0.value) }
        // Refused before it is queued: the stored cloud's points are known, made or not.
        try limits.admit(steps, points: record.points, field: query.remaining.first?.name)
        try await clouds.ensureCloud(record, folder)
        let stored = folder.appendingPathComponent(CaptureFiles.cloud).path
        let contentType = container.mimeType
        if format == .ply(.binary) && steps.isEmpty {
            return try await FileResponse.serve(stored, contentType: contentType, etag: "\(id)-cloud", request: request, context: context)
        }
        // The steps as values, not as the client spelled them: voxel=0.010 and voxel=0.01 are one file.
        let key = ([container.name, formatName] + steps.map { "\($0.filter)" }).joined(separator: " ")
        let name = DerivedFiles.name(key, extension: container.name)
        let variant = try await derived.file(name, in: folder, capture: id) { path, cancelled in
            var warnings: [CloudWarning] = []
            // A step that empties the stored cloud is the query's to change: its parameter is at fault.
            let conversion = try CloudConversion(stored, filters: limits.pipeline(steps, cancelled: cancelled), warnings: &warnings) {
                _, step, points in
                Problem.unprocessable(
                    "\(FieldWording.text(step.option)) kept none of the capture's \(points) points", field: FieldWording.field(step.option))
            }
            _ = try conversion.write(to: [(path, format)])
        }
        return try await FileResponse.serve(
            variant, contentType: contentType, etag: "\(id)-\(name.prefix(64))", request: request, context: context)
    }

    /// The first frame's depth as a jet picture over a scale bar (as `capture --depth-image`).
    private func depthImage(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (record, folder) = try await store.requestedRecord(context.parameters.get("id"))
        let id = record.id
        try ExportQuery(request, allowed: []).finish()
        try await clouds.ensureCloud(record, folder)
        let variant = try await pictures.depthImage(id, folder)
        return try await FileResponse.serve(variant, contentType: "image/png", etag: "\(id)-depth", request: request, context: context)
    }

    private func preview(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (record, folder) = try await store.requestedRecord(context.parameters.get("id"))
        let id = record.id
        var query = ExportQuery(request, allowed: ["azimuth", "elevation", "width", "height"])
        // To the quarter degree (the cloud's edge moves about a pixel at the default 640 pixels
        // wide), so that angles a viewer cannot tell apart share one file; the picture is drawn,
        // and named, at the quantised angles. The derived files' byte budget bounds the rest.
        let azimuth = Self.quantised(try query.number("azimuth", default: 0, within: -360...360))
        let elevation = Self.quantised(try query.number("elevation", default: 0, within: -90...90))
        let width = Int(try query.number("width", default: 640, within: 16...4096, whole: true))
        let height = Int(try query.number("height", default: 480, within: 16...4096, whole: true))
        try query.finish()
        try await clouds.ensureCloud(record, folder)
        let (name, variant) = try await pictures.preview(id, folder, azimuth: azimuth, elevation: elevation, width: width, height: height)
        return try await FileResponse.serve(
            variant, contentType: "image/png", etag: "\(id)-\(name.prefix(64))", request: request, context: context)
    }

    /// An angle to the nearest quarter degree, -0 as 0 (one name for one picture).
    static func quantised(_ degrees: Double) -> Double {
        let value = (degrees * 4).rounded() / 4
        return value == 0 ? 0 : value
    }
}
