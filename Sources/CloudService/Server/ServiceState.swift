import CloudArchives
import Foundation
import Hummingbird

/// Everything the routes share: settings, the store and its index, the worker pools, the jobs,
/// the metrics and the route table.
final class ServiceState: Sendable {
    let configuration: ServiceConfiguration
    let store: CaptureStore
    let metrics = ServiceMetrics()
    let routes = RouteTable()
    /// Uploads, server-side captures, archive jobs and conversions: the long work.
    let capturePool: WorkerPool
    /// Filtered exports and previews: short work that must not wait behind uploads.
    let exportPool: WorkerPool
    let runner: CaptureRunner
    let jobs: JobBoard
    let derived: DerivedFiles
    let limits: WorkLimits

    init(configuration: ServiceConfiguration, store: CaptureStore) {
        self.configuration = configuration
        self.store = store
        capturePool = WorkerPool(name: "capture", threads: configuration.workers, queueLimit: configuration.workers * 8)
        exportPool = WorkerPool(name: "export", threads: max(1, configuration.workers / 2), queueLimit: 256)
        limits = WorkLimits(configuration: configuration)
        runner = CaptureRunner(store: store, metrics: metrics, limits: limits)
        derived = DerivedFiles(pool: exportPool, metrics: metrics, budget: configuration.derivedCacheBytes, captures: store.captures)
        // An archive may unpack to several times its size (PNG depth compresses well), not more.
        let limits = ArchiveLimits(maxTotalBytes: configuration.maxUploadBytes * 8, maxMembers: 100_000)
        jobs = JobBoard(
            service: JobServices(store: store, runner: runner, capturePool: capturePool, metrics: metrics, archiveLimits: limits))
    }

    /// A capture id from the path (404 for anything else).
    func captureID(_ text: String?) throws -> CaptureID {
        try CaptureID(path: text, noun: "capture")
    }

    func record(_ text: String?) async throws -> CaptureRecord {
        let id = try captureID(text)
        guard let record = try await store.index.capture(id) else { throw Problem.notFound("no capture \(id)") }
        return record
    }

    func captureFolder(_ text: String?) async throws -> (CaptureID, URL) {
        try await store.requested(text)
    }
}
