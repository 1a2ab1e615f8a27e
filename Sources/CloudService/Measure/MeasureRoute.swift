import CloudCore
import CloudFiles
import CloudMeasure
import CloudPipeline
import Foundation
import Hummingbird
import SafeIO

/// `GET /v1/captures/{id}/measure[?up=auto|x|y|z|-x|-y|-z&leaf=M]`: the room measured from the
/// capture's cloud, as `cloudgen measure --json` reports it (schema cloudgen.measure/1). Up is
/// found from the room's planes unless `up` says it (the stored cloud does not keep the source's
/// gravity). Measured once per parameter set on the export pool, kept in `derived/`.
struct MeasureRoute {
    let store: CaptureStore
    /// Makes the cloud of a capture stored lazily, once its request is found valid.
    let clouds: StoredClouds
    /// Where the reports are kept, made on the export pool.
    let derived: DerivedFiles

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.get("/v1/captures/{id}/measure") { request, context in try await measure(request, context) }
        return routes
    }

    private func measure(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (record, folder) = try await store.requestedRecord(context.parameters.get("id"))
        let id = record.id
        var query = ExportQuery(request, allowed: ["up", "leaf"])
        var settings = MeasureSettings()
        let upName = query.take("up") ?? UpChoice.auto.rawValue
        guard let up = UpChoice(rawValue: upName) else {
            throw Problem.badRequest(
                "up \(MessageTextShort.of(upName)): give \(UpChoice.allCases.map(\.rawValue).joined(separator: ", "))", field: "up")
        }
        settings.up = up.vector
        // To the millimetre, so that fractions cannot make endless distinct reports.
        settings.leaf = (try query.number("leaf", default: settings.leaf, within: 0.005...0.2) * 1000).rounded() / 1000
        try query.finish()
        try await clouds.ensureCloud(record, folder)
        let stored = folder.appendingPathComponent(CaptureFiles.cloud).path
        let key = "measure up=\(upName) leaf=\(settings.leaf)"
        let name = DerivedFiles.name(key, extension: "json")
        let report = try await derived.file(name, in: folder, capture: id) { [settings] path, _ in
            let measured = try RoomMeasurer.measure(try RoomScan.reading(stored, name: "capture \(id)"), settings: settings)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try AtomicFile.write(try encoder.encode(measured.report), to: path)
        }
        return try await FileResponse.serve(
            report, contentType: "application/json", etag: "\(id)-\(name.prefix(64))",
            request: request, context: context)
    }
}
