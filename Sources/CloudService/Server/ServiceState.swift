import CloudArchives
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging

/// What the route groups are made of, once per server: the store, the worker pools, the capture
/// runner, the jobs, the derived files, the request limits, the metrics and the table of routes.
/// Each group is a controller given only the parts it uses (`addRoutes`).
struct ServiceState: Sendable {
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
    /// The captures' clouds, made on first read for uploads stored lazily.
    let clouds: StoredClouds
    let limits: WorkLimits
    let streams: StreamHub
    let listening = ListeningAddress()
    /// Pushed frames' decoding and back-projection: live work that must not wait behind uploads.
    let streamPool: WorkerPool
    private let maxUploadBytes: Int
    private let allowedDirectories: [String]

    /// `logger`: where the jobs say what happens to them beyond their rows (a job taken over).
    init(configuration: ServiceConfiguration, store: CaptureStore, logger: Logger = Logger(label: "cloudgen")) {
        self.store = store
        capturePool = WorkerPool(name: "capture", threads: configuration.workers, queueLimit: configuration.workers * 8)
        exportPool = WorkerPool(name: "export", threads: max(1, configuration.workers / 2), queueLimit: 256)
        limits = WorkLimits(configuration: configuration)
        runner = CaptureRunner(store: store, metrics: metrics, limits: limits, storing: configuration.storeClouds)
        derived = DerivedFiles(pool: exportPool, metrics: metrics, budget: configuration.derivedCacheBytes, captures: store.captures)
        clouds = StoredClouds(store: store, runner: runner, pool: exportPool)
        // An archive may unpack to several times its size (PNG depth compresses well), not more.
        let archiveLimits = ArchiveLimits(maxTotalBytes: configuration.maxUploadBytes * 8, maxMembers: 100_000)
        jobs = JobBoard(
            service: JobServices(
                store: store, runner: runner, capturePool: capturePool, metrics: metrics, archiveLimits: archiveLimits, logger: logger))
        streams = StreamHub(limits: configuration.streams, work: limits, dataFolder: store.root)
        streamPool = WorkerPool(name: "stream", threads: max(1, configuration.workers / 2), queueLimit: configuration.streams.maxStreams)
        maxUploadBytes = configuration.maxUploadBytes
        allowedDirectories = configuration.allowedDirectories
    }

    var pools: [WorkerPool] { [capturePool, exportPool, streamPool] }

    /// Every route group of the service, on `router` and in `routes`.
    func addRoutes(to router: Router<BasicRequestContext>) {
        let index = store.index
        let groups = [
            ServiceRoutes(index: index, metrics: metrics, capturePool: capturePool, exportPool: exportPool, streamPool: streamPool)
                .collection,
            CaptureRoutes(
                store: store, runner: runner, capturePool: capturePool, jobs: jobs, derived: derived, metrics: metrics,
                maxUploadBytes: maxUploadBytes, allowedDirectories: allowedDirectories
            ).collection,
            CaptureLabelRoute(index: index).collection,
            CaptureArchiveRoute(store: store, clouds: clouds, derived: derived).collection,
            ExportRoutes(store: store, clouds: clouds, derived: derived, limits: limits).collection,
            MeasureRoute(store: store, clouds: clouds, derived: derived).collection,
            CloudViewRoute(store: store, clouds: clouds, derived: derived).collection,
            JobRoutes(index: index, board: jobs).collection,
            JobListRoute(index: index).collection,
            ConvertRoute(store: store, capturePool: capturePool, limits: limits, maxUploadBytes: maxUploadBytes).collection,
            StreamRoutes(
                hub: streams, store: store, runner: runner, capturePool: capturePool, streamPool: streamPool, metrics: metrics,
                allowedDirectories: allowedDirectories, listening: listening
            ).collection
        ]
        for group in groups { routes.add(group, to: router) }
    }

    /// The stream sockets, on the router that answers WebSocket upgrades.
    func addSockets(to router: Router<BasicWebSocketRequestContext>) {
        StreamSockets(hub: streams, pool: streamPool, metrics: metrics).addRoutes(to: router)
    }
}
