import CloudArchives
import Foundation
import Hummingbird

/// GET /v1/captures/{id}/capture.zip: the whole capture as one archive, in a folder named after
/// it: `capture.json` (its document), `cloud.ply` (the stored cloud), `preview.png` (the default
/// view) and `depth.png` (the first frame's depth picture). The uploaded inputs a lazily stored
/// capture keeps are the server's, not part of the archive. Members are stored uncompressed and streamed; the
/// pictures are the same derived files the picture routes serve (drawn first if need be).
struct CaptureArchiveRoute {
    let store: CaptureStore
    /// Makes the cloud of a capture stored lazily before it is packed.
    let clouds: StoredClouds
    /// Where the pictures are drawn and kept.
    let derived: DerivedFiles

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        let pictures = CapturePictures(derived: derived)
        routes.get("/v1/captures/{id}/capture.zip") { request, context in
            try ExportQuery(request, allowed: []).finish()
            let (requested, folder) = try await store.requestedRecord(context.parameters.get("id"))
            let id = requested.id
            try await clouds.ensureCloud(requested, folder)
            let depth = try await pictures.depthImage(id, folder)
            let preview = try await pictures.preview(id, folder, azimuth: 0, elevation: 0, width: 640, height: 480).1
            // Looked up again once the pictures are drawn: a capture deleted meanwhile is gone.
            guard let record = try await store.index.capture(id) else { throw Problem.notFound("no capture \(id)") }
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
        return routes
    }
}
