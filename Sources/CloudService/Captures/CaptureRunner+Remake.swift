import CloudCore
import CloudPipeline
import Foundation
import Prometheus

extension CaptureRunner {
    /// Makes a lazily stored capture's cloud and depth map from the inputs kept in its `folder`,
    /// as the upload would have written them. They are made in a staging folder (which a restart
    /// empties), checked against the record's point count and size (the 201 said them: a cloud
    /// that differs is refused, never served), flushed, and renamed into the capture's folder,
    /// the cloud last, so that a present cloud says both are there. Blocking: call it on a pool.
    func remake(_ record: CaptureRecord, in folder: URL, cancelled: CancellationFlag) throws {
        let parts = try CaptureInputs.parts(in: folder)
        let paths = ClientPaths(parts)
        let work = try store.makeStaging()
        defer { store.abandon(staging: work) }
        let report: CaptureReport
        do {
            report = try run(try CaptureRoutes.order(parts), into: work, observer: CollectingObserver(), cancelled: cancelled).0
        } catch let error as CloudError {
            throw paths.error(error)
        }
        guard let made = report.files.first, made.points == record.points, made.bytes == record.bytes else {
            let made = report.files.first
            throw CloudError.io(
                "the cloud made from the stored inputs has \(made?.points ?? 0) points in \(made?.bytes ?? 0) bytes; the upload counted \(record.points) in \(record.bytes)"
            )
        }
        let depthMap = work.appendingPathComponent(CaptureFiles.depthMap)
        let cloud = work.appendingPathComponent(CaptureFiles.cloud)
        try DurableFiles.sync(depthMap)
        try DurableFiles.sync(cloud)
        try DurableFiles.move(depthMap, to: folder.appendingPathComponent(CaptureFiles.depthMap))
        try DurableFiles.move(cloud, to: folder.appendingPathComponent(CaptureFiles.cloud))
        metrics.bytesWritten.increment(by: Int64(made.bytes + FileSize.of(folder.appendingPathComponent(CaptureFiles.depthMap).path)))
        metrics.cloudsMade.increment()
    }
}
