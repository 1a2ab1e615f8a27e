import CloudArchives
import CloudCore
import Foundation
import Logging
import NIOConcurrencyHelpers

/// Uploaded archives become jobs: the request is answered 202 at once, and a worker unpacks the
/// archive, captures from it and stores the capture. A job's row says where it is (queued,
/// running with frames done of total, succeeded with its capture, failed with its problem), and
/// its subscribers hear each change as it happens (GET /v1/jobs/{id}/events). The jobs run
/// in `running`, which the server runs as a service so that a stop waits for them.
final class JobBoard: Sendable {
    let running = RunningJobs()
    private let service: JobServices
    private let listeners = NIOLockedValueBox<[String: [UUID: JobListener]]>([:])
    private let active = NIOLockedValueBox<(queued: Int, running: Int)>((0, 0))

    init(service: JobServices) {
        self.service = service
    }

    /// Checks the fields, records the job and starts it; `folder` (the request's upload folder,
    /// holding the archive) now belongs to the job, which removes it when done.
    func submit(archive: UploadedParts.File, parts: UploadedParts, folder: URL) async throws -> JobRecord {
        let kind = parts.field("source")
        if let kind { _ = try ArchiveSource.spec(kind: kind, folder: folder.path) }
        if let extra = parts.files.keys.sorted().first(where: { $0 != "bundle" && $0 != "intrinsics" }) {
            throw Problem.badRequest("part \(extra) cannot come with an archive: the archive holds the frames", field: extra)
        }
        // Checked now, so that a bad field is a 4xx answer rather than a failed job.
        var order = CaptureOrder(sourceSpec: "bundle:\(folder.path)")
        order.fuse = true
        order.frameLimit = nil
        order.options.intrinsicsPath = parts.files["intrinsics"]?.path
        try order.applyImageFields(parts.fields)
        try order.check()
        let labels = try CaptureLabelFields.labels(parts.fields)
        let files = parts.clientFileNames
        let load = service.capturePool.load
        if load.queued >= service.capturePool.queueLimit {
            throw Problem(
                .serviceUnavailable, "the server is busy (\(load.queued) captures waiting); retry shortly", headers: [.retryAfter: "5"])
        }
        let job = JobRecord(id: JobID(), state: .queued, created: Date(), updated: Date())
        try await service.store.index.insertJob(job)
        changeCounts(queued: 1)
        let paths = ClientPaths(parts)
        let started = running.start { [self, order] in
            await run(job, archive: archive.path, kind: kind, order: order, folder: folder, paths: paths, labels: labels, files: files)
        }
        guard started else {
            changeCounts(queued: -1)
            var stopped = job
            stopped.state = .failed
            stopped.problem = JobRecord.stoppedProblem
            try await record(stopped)
            throw Problem(.serviceUnavailable, "the server is stopping; retry once it is back", headers: [.retryAfter: "5"])
        }
        return job
    }

    private func run(
        _ submitted: JobRecord, archive: String, kind: String?, order: CaptureOrder, folder: URL, paths: ClientPaths,
        labels: CaptureLabels, files: [String: String]
    ) async {
        let started = NIOLockedValueBox(false)
        let outcome: Result<CaptureID, Error>
        do {
            var staged = try await service.capturePool.run { [self] (cancelled: CancellationFlag) throws -> CaptureRunner.Staged in
                started.withLockedValue { $0 = true }
                changeCounts(queued: -1, running: 1)
                defer { changeCounts(running: -1) }
                var running = submitted
                running.state = .running
                try update(running)
                let unpacked = folder.appendingPathComponent("unpacked")
                try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: false)
                let summary = try ArchiveExtractor.extract(
                    archive: archive, into: unpacked.path, limits: service.archiveLimits, origin: "bundle")
                var order = order
                let root = summary.root
                order.sourceSpec = try ArchiveSource.spec(kind: kind, folder: root)
                let progress = JobProgress(board: self, job: running)
                var paths = paths
                paths.archiveRoot = root
                return try service.runner.capture(
                    order, observer: CollectingObserver(cancelled: cancelled) { done, total in progress.advance(done, total) },
                    cancelled: cancelled, paths: paths)
            }
            staged.record.labels = labels
            staged.record.uploadedFiles = files
            outcome = .success(try await service.runner.store(staged).id)
        } catch {
            if !started.withLockedValue({ $0 }) { changeCounts(queued: -1) }
            // Stopped by the server's stop, however the work noticed it.
            outcome = .failure(Task.isCancelled ? CancellationError() : error)
        }
        // Before the final state is told, so that whoever waits for it finds the upload gone.
        try? FileManager.default.removeItem(at: folder)
        // A job cancelled by the server's stop must still save that it ended, and the index
        // refuses work asked for by a cancelled task: a task of its own does it.
        await Task { [self] in await finish(submitted, outcome) }.value
    }

    /// Saves how the job ended: its capture, or its problem.
    private func finish(_ submitted: JobRecord, _ outcome: Result<CaptureID, Error>) async {
        var job = submitted
        switch outcome {
        case .success(let capture):
            job = (try? await service.store.index.job(job.id)) ?? job
            job.state = .succeeded
            job.captureID = capture
        case .failure(is CancellationError):
            job.state = .failed
            job.problem = JobRecord.stoppedProblem
        case .failure(let error):
            job.state = .failed
            job.problem = try? JobProblem(Problem.from(error)).stored()
        }
        try? await record(job)
    }

    /// `record`, from a worker-pool thread (a capture's progress, the job starting).
    func update(_ job: JobRecord) throws {
        try Blocking.wait { [self] in try await record(job) }
    }

    /// Saves the job's new state and tells its listeners; a terminal state ends their streams.
    func record(_ job: JobRecord) async throws {
        var snapshot = job
        // As the index keeps it, so that a listener can tell this state from the one it read there.
        snapshot.updated = Date().wholeMilliseconds
        _ = try await service.store.index.updateJob(snapshot)
        tell(snapshot)
    }

    /// Hands a saved state to the job's listeners, under the lock `events` registers them with; a
    /// terminal state ends their streams (after the lock: ending a stream runs its termination
    /// handler, which takes the lock).
    private func tell(_ snapshot: JobRecord) {
        let finished = snapshot.state.isFinished
        let told = listeners.withLockedValue { all -> [JobListener] in
            let told = Array((all[snapshot.id.description] ?? [:]).values)
            for listener in told { listener.deliver(snapshot) }
            if finished { all[snapshot.id.description] = nil }
            return told
        }
        if finished { told.forEach { $0.finish() } }
    }

    /// The job's states from now on, starting with the current one; ends with the terminal state.
    ///
    /// The listener is registered before the current state is read: read first, a state saved
    /// between the read and the registration (a bad archive fails within milliseconds) would be
    /// heard by nobody, and a stream waiting for a terminal state already past would never end.
    /// Registered first, every state saved after the read reaches the listener, and one saved
    /// before it is the current state or older: the current state goes first unless a newer one
    /// already went out, and a state the stream carries already is not sent again.
    func events(_ id: JobID) async throws -> AsyncStream<JobRecord>? {
        let key = UUID()
        let (stream, continuation) = AsyncStream<JobRecord>.makeStream()
        let listener = JobListener(continuation)
        listeners.withLockedValue { $0[id.description, default: [:]][key] = listener }
        continuation.onTermination = { [weak self] _ in
            self?.listeners.withLockedValue { _ = $0[id.description]?.removeValue(forKey: key) }
        }
        // Finishing a stream that is not returned unregisters its listener.
        let read: JobRecord?
        do {
            read = try await service.store.index.job(id)
        } catch {
            continuation.finish()
            throw error
        }
        guard let current = read else {
            continuation.finish()
            return nil
        }
        listeners.withLockedValue { all in
            listener.deliverFirst(current)
            if current.state.isFinished { all[id.description]?[key] = nil }
        }
        if current.state.isFinished { listener.finish() }
        return stream
    }

    private func changeCounts(queued: Int = 0, running: Int = 0) {
        let now = active.withLockedValue { counts -> (Int, Int) in
            counts.queued += queued
            counts.running += running
            return (counts.queued, counts.running)
        }
        service.metrics.jobsQueued.set(Double(now.0))
        service.metrics.jobsRunning.set(Double(now.1))
    }
}

/// What jobs use of the service.
struct JobServices: Sendable {
    let store: CaptureStore
    let runner: CaptureRunner
    let capturePool: WorkerPool
    let metrics: ServiceMetrics
    let archiveLimits: ArchiveLimits
}

/// Frames done, written to the job's row at most a few times a second.
private final class JobProgress: @unchecked Sendable {
    private let board: JobBoard
    private var job: JobRecord
    private var last = ContinuousClock.now - .seconds(1)
    private let lock = NSLock()

    init(board: JobBoard, job: JobRecord) {
        self.board = board
        self.job = job
    }

    func advance(_ done: Int, _ total: Int?) {
        lock.lock()
        defer { lock.unlock() }
        job.framesDone = done
        job.framesTotal = total
        let now = ContinuousClock.now
        guard now - last >= .milliseconds(200) || done == total else { return }
        last = now
        try? board.update(job)
    }
}

/// One subscriber's stream and what it has carried, touched only under the board's lock.
private final class JobListener: @unchecked Sendable {
    private let continuation: AsyncStream<JobRecord>.Continuation
    private var last: JobRecord?

    init(_ continuation: AsyncStream<JobRecord>.Continuation) {
        self.continuation = continuation
    }

    /// A state the board saved after this listener was registered: in order, each once.
    func deliver(_ snapshot: JobRecord) {
        guard snapshot != last else { return }
        last = snapshot
        continuation.yield(snapshot)
    }

    /// The state read from the index after registering: first on the stream unless a newer one
    /// already went out (then this one is older or the same).
    func deliverFirst(_ current: JobRecord) {
        if last == nil { deliver(current) }
    }

    /// Ends the stream after a terminal state; called outside the board's lock, and safe twice.
    func finish() {
        continuation.finish()
    }
}

extension JobRecord.State {
    /// Succeeded or failed: nothing about the job changes any more.
    var isFinished: Bool { self == .succeeded || self == .failed }
}
