import CloudCapture
import CloudCore
import Foundation

/// What an archive job runs, made from its upload's parts as the request sent them: the archive,
/// the source kind its `source` field names, the capture order its fields ask for (every frame,
/// fused), the capture's labels and the client's names for the files. Made at upload to check the
/// fields (a bad one is a 4xx answer, not a failed job) and again by whichever replica runs it.
struct JobInputs: Sendable {
    let archive: UploadedParts.File
    let kind: String?
    let order: CaptureOrder
    let labels: CaptureLabels
    let files: [String: String]
    let paths: ClientPaths

    /// `folder`: the job's folder, which holds the parts.
    init(_ parts: UploadedParts, folder: URL) throws {
        guard let archive = parts.files["bundle"] else {
            throw CloudError.io("\(folder.path): the job's folder holds no archive")
        }
        self.archive = archive
        kind = parts.field("source")
        if let kind { _ = try ArchiveSource.spec(kind: kind, folder: folder.path) }
        // The source is the archive unpacked, known once it is (`ArchiveSource.spec`).
        var order = CaptureOrder(source: .bundle(directory: folder.path))
        order.fuse = true
        order.frameLimit = nil
        order.options.intrinsicsPath = parts.files["intrinsics"]?.path
        try order.applyImageFields(parts.fields)
        try order.check()
        self.order = order
        labels = try CaptureLabelFields.labels(parts.fields)
        files = parts.clientFileNames
        paths = ClientPaths(parts)
    }
}
