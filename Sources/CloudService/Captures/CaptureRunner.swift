import CloudCapture
import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import Foundation
import Prometheus
import SafeIO

/// Runs a capture order into the store: the pipeline writes the cloud (binary PLY) and the first
/// frame's depth map into a staging folder (`capture`, blocking: call it on a worker pool), which
/// the store then renames into place and indexes (`store`). An upload stored lazily keeps its
/// inputs there instead, its cloud counted but not written (`remake` writes it on first read).
struct CaptureRunner: Sendable {
    let store: CaptureStore
    let metrics: ServiceMetrics
    let limits: WorkLimits
    /// Whether an upload's cloud is written with it, or made from its inputs when first read.
    let storing: CloudStoring

    /// A capture written to its staging folder, not yet in place.
    struct Staged: Sendable {
        var folder: URL
        var record: CaptureRecord
    }

    /// `paths` names the server's files in errors, warnings and the source's name as the client
    /// knows them (an upload's part names). The capture is held to the request's shares of CPU and
    /// memory, and stops (nothing staged) once `cancelled` is raised: its client has gone.
    /// `inputs`: the uploaded parts the order reads; stored lazily, they are kept in place of the
    /// cloud and the depth map.
    func capture(
        _ order: CaptureOrder, observer: CollectingObserver, cancelled: CancellationFlag,
        paths: ClientPaths = ClientPaths(), inputs: UploadedParts? = nil
    ) throws -> Staged {
        let staging = try store.makeStaging()
        do {
            let lazy = inputs != nil && storing == .lazy
            let (report, filters) = try run(order, into: staging, observer: observer, cancelled: cancelled, countOnly: lazy)
            if let inputs, lazy { try CaptureInputs.keep(inputs, in: staging) }
            let id = CaptureID()
            let document = try CaptureDocument(
                id: id.description, created: Date(), report: report, filters: filters,
                warnings: observer.warnings.map { FieldWording.line(paths.named($0)) }, describe: paths.source)
            let record = CaptureRecord(
                id: id, created: document.created, source: document.source, points: document.points,
                bounds: document.bounds, bytes: document.cloudBytes, frames: report.frames, report: document.json)
            return Staged(folder: staging, record: record)
        } catch {
            store.abandon(staging: staging)
            if let error = error as? CloudError { throw paths.error(error) }
            throw error
        }
    }

    /// Runs `order` with `folder` as the capture's folder: its cloud and depth map written there,
    /// or with `countOnly` only counted (the report says what the cloud holds either way).
    func run(
        _ order: CaptureOrder, into folder: URL, observer: CollectingObserver, cancelled: CancellationFlag, countOnly: Bool = false
    ) throws -> (CaptureReport, [FilterStepReport]) {
        let cloudPath = folder.appendingPathComponent(CaptureFiles.cloud).path
        // The depth picture is drawn when first asked for; the depth map it needs is kept as it is.
        let pictures = PreviewOutputs(
            previewPath: nil, depthImagePath: nil, depthBlend: nil,
            depthMapPath: folder.appendingPathComponent(CaptureFiles.depthMap).path)
        var pipeline = order.pipeline(outputs: [(cloudPath, .ply(.binary))], pictures: countOnly ? nil : pictures, observer: observer)
        pipeline.filters = limits.pipeline(order.steps, organized: order.organized, cancelled: cancelled)
        pipeline.memoryShare = limits.memoryShare
        pipeline.countOnly = countOnly
        // Every frame's buffers and every step's working set reserved in the server's ledger and
        // held to the request's share, single frames as much as fused clouds.
        let claim = MemoryClaim(share: limits.memoryShare)
        let (report, filters, lost) = try claim.run { try pipeline.run() }
        if cancelled.isRaised { throw CancellationError() }
        if let lost { throw lost }
        return (report, filters)
    }

    /// Puts a staged capture in place and indexes it: from here on it is listed and kept. (A
    /// commit that fails removes the files itself.)
    func store(_ staged: Staged) async throws -> CaptureRecord {
        let cloudWritten = FileManager.default.fileExists(atPath: staged.folder.appendingPathComponent(CaptureFiles.cloud).path)
        try await store.commit(staging: staged.folder, record: staged.record)
        if cloudWritten { metrics.bytesWritten.increment(by: Int64(staged.record.bytes)) }
        metrics.capturesStored.increment()
        return staged.record
    }
}

/// The files of one stored capture, by name inside its folder.
enum CaptureFiles {
    static let cloud = CaptureStore.cloudFileName
    /// The first frame's depth in metres (`DepthMapFile`), for depth.png.
    static let depthMap = "depth.f32"
    /// Derived files (other encodings, filtered exports, previews), made on first request.
    static let derived = "derived"
}

/// A capture's warnings, kept for its document, and its progress, passed on (a job's events);
/// it asks the capture to stop taking frames once its client has gone.
final class CollectingObserver: CaptureObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [CloudWarning] = []
    private let progress: (@Sendable (Int, Int?) -> Void)?
    private let cancelled: CancellationFlag?

    init(cancelled: CancellationFlag? = nil, progress: (@Sendable (Int, Int?) -> Void)? = nil) {
        self.cancelled = cancelled
        self.progress = progress
    }

    var warnings: [CloudWarning] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    func warning(_ warning: CloudWarning) {
        lock.lock()
        if !collected.contains(warning) { collected.append(warning) }
        lock.unlock()
    }

    func advanced(frames: Int, expected: Int?, points: Int) {
        progress?(frames, expected)
    }

    func finished(frames: Int, points: Int, seconds: Double) {}

    var stopRequested: Bool { cancelled?.isRaised ?? false }
}
