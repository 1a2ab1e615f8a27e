import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import Foundation
import Hummingbird

/// POST /v1/convert: `convert` over HTTP. A PLY or PCD (`cloud` part) comes back as PLY or PCD
/// (`format`, `encoding`), through the filters given as fields, in their order; nothing is kept.
struct ConvertRoute {
    /// The upload's folder is made in the store's.
    let store: CaptureStore
    /// The conversion runs here, with the other long work.
    let capturePool: WorkerPool
    let limits: WorkLimits
    let maxUploadBytes: Int

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.post("/v1/convert") { request, _ in try await convert(request) }
        return routes
    }

    private func convert(_ request: Request) async throws -> Response {
        let folder = try store.makeUploadFolder()
        var handedOver = false
        defer { if !handedOver { try? FileManager.default.removeItem(at: folder) } }
        let upload = MultipartUpload(
            fileParts: ["cloud"], fieldNames: OptionCatalogue.fields(of: .convert),
            limit: maxUploadBytes)
        let parts = try await upload.receive(request, into: folder.path)
        guard let input = parts.files["cloud"] else {
            throw Problem.badRequest("part cloud is required: the PLY or PCD file to convert", field: "cloud")
        }
        let containerName = parts.field("format") ?? "ply"
        guard let container = CloudContainer.named(containerName) else {
            throw Problem.badRequest(
                "format \(MessageTextShort.of(containerName)): needs \(CloudContainer.all.map(\.name).joined(separator: " or "))",
                field: "format")
        }
        let encodingName = parts.field("encoding") ?? "binary"
        guard let format = container.format(encodingName) else {
            throw Problem.badRequest("encoding \(MessageTextShort.of(encodingName)): \(container.refusal(encodingName))", field: "encoding")
        }
        let stepFields = parts.fields.filter { !["format", "encoding"].contains($0.name) }
        try WorkLimits.checkStepCount(stepFields.count, field: stepFields.first?.name ?? "filters")
        let steps = try stepFields.map { field -> FilterStep? in
            if field.name == "foreground" {
                guard try CaptureOrder.boolean(field.value, field: field.name) else { return nil }
                return try CaptureOrder.step(field.name, nil)
            }
            return try CaptureOrder.step(field.name, field.value.isEmpty ? nil : field.value)
        }.compactMap { $0 }
        let output = folder.appendingPathComponent("converted.\(container.name)").path
        do {
            try await capturePool.run { cancelled in
                // The answer is the file alone: what does not carry over is not told.
                var warnings: [CloudWarning] = []
                let conversion = try CloudConversion(input.path, filters: limits.pipeline(steps, cancelled: cancelled), warnings: &warnings)
                _ = try conversion.write(to: [(output, format)])
            }
        } catch let error as CloudError where error.kind != .deviceOrIO {
            // Whatever the steps refuse, the uploaded cloud is what they refuse it for.
            var problem = Problem.from(ClientPaths(parts).error(error))
            problem.field = "cloud"
            throw problem
        }
        // The folder goes once the file has been sent.
        handedOver = true
        let name = (input.filename.map { ($0 as NSString).deletingPathExtension } ?? "cloud").filter {
            $0.isLetter || $0.isNumber || "-_.".contains($0)
        }
        return try TemporaryFileResponse.stream(
            output, removing: folder, contentType: container.mimeType,
            filename: "\(name.isEmpty ? "cloud" : name).\(container.name)")
    }
}
