import CloudArchives
import Foundation
import Hummingbird

/// GET /v1/captures/{id}/capture.zip: the whole capture as one archive, in a folder named after
/// it: `capture.json` (its document), `cloud.ply` (the stored cloud), `preview.png` (the default
/// view) and `depth.png` (the first frame's depth picture). The store does not keep the uploaded
/// inputs, so the archive cannot hold them. Members are stored uncompressed and streamed; the
/// pictures are the same derived files the picture routes serve (drawn first if need be).
struct CaptureArchiveRoute {
    let service: ServiceState

    func register(on router: Router<BasicRequestContext>) {
        service.routes.add(.get, "/v1/captures/{id}/capture.zip", to: router) { request, context in
            try ExportQuery(request, allowed: []).finish()
            let (id, folder) = try await service.captureFolder(context.parameters.get("id"))
            let exports = ExportRoutes(service: service)
            let depth = try await exports.depthImageFile(id, folder)
            let preview = try await exports.previewFile(id, folder, azimuth: 0, elevation: 0, width: 640, height: 480).1
            guard let record = try await service.store.index.capture(id) else { throw Problem.notFound("no capture \(id)") }
            let base = DownloadName.base(record)
            let zip = StoredZip(modified: record.created)
            try zip.add("\(base)/capture.json", bytes: Array(try record.document()))
            try zip.add("\(base)/cloud.ply", file: folder.appendingPathComponent(CaptureFiles.cloud).path)
            try zip.add("\(base)/preview.png", file: preview)
            try zip.add("\(base)/depth.png", file: depth)
            let body = ResponseBody(contentLength: zip.size) { writer in
                try await zip.write { try await writer.write(ByteBuffer(bytes: $0)) }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "application/zip", .contentLength: String(zip.size),
                    .contentDisposition: DownloadName.contentDisposition(base + ".zip")
                ], body: body)
        }
    }
}
