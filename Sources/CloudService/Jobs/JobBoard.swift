import CloudArchives
import CloudCore
import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import Prometheus

/// Uploaded archives become jobs: the request is answered 202 at once, and a worker unpacks the
/// archive, captures from it and stores the capture. A job's row says where it is (queued,
/// running with frames done of total, succeeded with its capture, failed with its problem), and
/// its subscribers hear each change as it happens (GET /v1/jobs/{id}/events). The jobs run
/// in `running`, which the server runs as a service so that a stop waits for them.
///
/// A job runs from its folder (`CaptureStore.jobFolder`), so that with a shared index another
/// replica can run it too: one whose replica died is claimed when its lease runs out
/// (`takeOverAbandoned`, called by `JobTakeover`) and run again from the start. Its capture is
/// stored only by the replica that holds it, so it is stored once.
final class JobBoard: Sendable {
    let running = RunningJobs()
    private let service: JobServices
    private let listeners = NIOLockedValueBox<[String: [UUID: JobListener]]>([:])
    private let active = NIOLockedValueBox<(queued: Int, running: Int)>((0, 0))
    /// The jobs this replica is running: their states reach listeners here directly (`record`),
    /// so `follow` does not read them from the index.
    private let runningHere = NIOLockedValueBox<Set<JobID>>([])

    init(service: JobServices) {
        self.service = service
    }

    /// Checks the fields, makes the request's upload folder (holding the archive) the job's
    /// folder, records the job and starts it.
    func submit(_ parts: UploadedParts, folder: URL) async throws -> JobRecord {
        if let extra = parts.files.keys.sorted().first(where: { $0 != "bundle" && $0 != "intrinsics" }) {
            throw Problem.badRequest("part \(extra) cannot come with an archive: the archive holds the frames", field: extra)
        }
        // Checked now, so that a bad field is a 4xx answer rather than a failed job.
        _ = try JobInputs(parts, folder: folder)
        let load = service.capturePool.load
        if load.queued >= service.capturePool.queueLimit {
            throw Problem(
                .serviceUnavailable, "the server is busy (\(load.queued) captures waiting); retry shortly", headers: [.retryAfter: "5"])
        }
        let job = JobRecord(id: JobID(), state: .queued, created: Date(), updated: Date())
        let store = service.store
        try await DurableFiles.offload { try store.adoptJobFolder(folder, parts: parts, for: job.id) }
        do {
            try await store.index.insertJob(job)
        } catch {
            try? FileManager.default.removeItem(at: store.jobFolder(job.id))
            throw error
        }
        guard start(job) else {
            var stopped = job
            stopped.state = .failed
            stopped.problem = JobRecord.stoppedProblem
            try await record(stopped)
            try? FileManager.default.removeItem(at: store.jobFolder(job.id))
            throw Problem(.serviceUnavailable, "the server is stopping; retry once it is back", headers: [.retryAfter: "5"])
        }
        return job
    }

    /// Claims one abandoned job (a shared index's, whose replica died) and starts it here, unless
    /// captures are waiting for a worker already: a busy replica leaves them to an idle one, and
    /// one job per sweep spreads a dead replica's jobs over the live ones.
    func takeOverAbandoned() async {
        guard service.capturePool.load.queued == 0 else { return }
        let claimed: JobRecord?
        do {
            claimed = try await service.store.index.claimAbandonedJob(at: Date())
        } catch {
            service.logger.warning("jobs: cannot claim abandoned jobs: \(error)")
            return
        }
        guard let job = claimed else { return }
        service.logger.info("jobs: took over job \(job.id), abandoned by its replica")
        tell(job)
        if !start(job) { try? await service.store.index.releaseJob(job.id, at: Date()) }
    }

    /// Runs the job in `running`; false once the server is stopping.
    private func start(_ job: JobRecord) -> Bool {
        changeCounts(queued: 1)
        guard running.start({ [self] in await run(job) }) else {
            changeCounts(queued: -1)
            return false
        }
        return true
    }

    private func run(_ submitted: JobRecord) async {
        runningHere.withLockedValue { _ = $0.insert(submitted.id) }
        defer { runningHere.withLockedValue { _ = $0.remove(submitted.id) } }
        let started = NIOLockedValueBox(false)
        let lost = NIOLockedValueBox(false)
        let folder = service.store.jobFolder(submitted.id)
        let outcome: Result<CaptureID, Error>
        do {
            let inputs = try JobInputs(try service.store.jobParts(submitted.id), folder: folder)
            var staged = try await service.capturePool.run { [self] (cancelled: CancellationFlag) throws -> CaptureRunner.Staged in
                started.withLockedValue { $0 = true }
                changeCounts(queued: -1, running: 1)
                defer { changeCounts(running: -1) }
                var running = submitted
                running.state = .running
                try update(running)
                let unpacked = folder.appendingPathComponent("unpacked")
                // A job taken over may hold what its first replica had unpacked when it died.
                try? FileManager.default.removeItem(at: unpacked)
                try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: false)
                let summary = try ArchiveExtractor.extract(
                    archive: inputs.archive.path, into: unpacked.path, limits: service.archiveLimits, origin: "bundle")
                var order = inputs.order
                let root = summary.root
                order.source = try ArchiveSource.spec(kind: inputs.kind, folder: root)
                let progress = JobProgress(board: self, job: running) {
                    lost.withLockedValue { $0 = true }
                    cancelled.raise()
                }
                var paths = inputs.paths
                paths.archiveRoot = root
                return try service.runner.capture(
                    order, observer: CollectingObserver(cancelled: cancelled) { done, total in progress.advance(done, total) },
                    cancelled: cancelled, paths: paths)
            }
            staged.record.labels = inputs.labels
            staged.record.uploadedFiles = inputs.files
            // Stored only while the job is still this replica's (which renews its lease for far
            // longer than storing takes): one that lost it, paused past its lease, leaves the
            // capture to the replica that took the job over.
            guard try await service.store.index.holdsJob(submitted.id) else {
                service.store.abandon(staging: staged.folder)
                throw JobTakenOver()
            }
            outcome = .success(try await service.runner.store(staged).id)
        } catch {
            if error is JobTakenOver { lost.withLockedValue { $0 = true } }
            if !started.withLockedValue({ $0 }) { changeCounts(queued: -1) }
            // Stopped by the server's stop, however the work noticed it.
            outcome = .failure(Task.isCancelled ? CancellationError() : error)
        }
        if lost.withLockedValue({ $0 }) {
            service.logger.warning("jobs: job \(submitted.id) was taken over by another replica; this one's work on it is dropped")
            return
        }
        // A job cancelled by the server's stop must still save that it ended, and the index
        // refuses work asked for by a cancelled task: a task of its own does it.
        await Task { [self] in await finish(submitted, outcome) }.value
    }

    /// Saves how the job ended: its capture, or its problem; or, stopped with a shared index,
    /// hands it back to the queue for another replica. Then removes its folder, unless handed back.
    private func finish(_ submitted: JobRecord, _ outcome: Result<CaptureID, Error>) async {
        var job = submitted
        switch outcome {
        case .success(let capture):
            job = (try? await service.store.index.job(job.id)) ?? job
            job.state = .succeeded
            job.captureID = capture
        case .failure(is CancellationError) where service.store.index.isShared:
            do {
                try await service.store.index.releaseJob(job.id, at: Date())
                return
            } catch {
                job.state = .failed
                job.problem = JobRecord.stoppedProblem
            }
        case .failure(is CancellationError):
            job.state = .failed
            job.problem = JobRecord.stoppedProblem
        case .failure(let error):
            job.state = .failed
            job.problem = try? JobProblem(Problem.from(error)).stored()
        }
        // Before the final state is told, so that whoever waits for it finds the upload gone.
        try? FileManager.default.removeItem(at: service.store.jobFolder(job.id))
        try? await record(job)
    }

    /// `record`, from a worker-pool thread (a capture's progress, the job starting).
    func update(_ job: JobRecord) throws {
        try Blocking.wait { [self] in try await record(job) }
    }

    /// Saves the job's new state and tells its listeners; a terminal state ends their streams.
    /// Throws `JobTakenOver` when the job is no longer this replica's to write.
    func record(_ job: JobRecord) async throws {
        var snapshot = job
        // As the index keeps it, so that a listener can tell this state from the one it read there.
        snapshot.updated = Date().wholeMilliseconds
        guard try await service.store.index.updateJob(snapshot) else { throw JobTakenOver() }
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
    func events(_ id: JobID) async throws -> JobEvents? {
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
        if current.state.isFinished {
            listener.finish()
        } else if service.store.index.isShared {
            follow(id, key: key, listener: listener)
        }
        return JobEvents(stream: stream) { continuation.finish() }
    }

    /// With a shared index the job may run on another replica, whose states reach this one only
    /// through the index: reads it twice a second, while the job does not run here, until it
    /// ends or the stream does.
    private func follow(_ id: JobID, key: UUID, listener: JobListener) {
        Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                guard let self else { return }
                guard !runningHere.withLockedValue({ $0.contains(id) }),
                    let read = try? await service.store.index.job(id)
                else { continue }
                let ended = listeners.withLockedValue { all -> Bool in
                    // Gone: the stream ended, or a terminal state told here ended it.
                    guard all[id.description]?[key] != nil else { return true }
                    listener.deliver(read)
                    if read.state.isFinished { all[id.description]?[key] = nil }
                    return read.state.isFinished
                }
                if ended {
                    listener.finish()
                    return
                }
            }
        }
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
    let logger: Logger
}

/// One subscriber's states of a job (`JobBoard.events`), which `end()` ends early: a server
/// stopping does not wait for a job that may run for hours.
struct JobEvents: AsyncSequence, Sendable {
    typealias Element = JobRecord
    let stream: AsyncStream<JobRecord>
    let end: @Sendable () -> Void

    func makeAsyncIterator() -> AsyncStream<JobRecord>.AsyncIterator { stream.makeAsyncIterator() }
}

/// Another replica took the job over (this one was paused past its lease): its rows are no
/// longer this replica's to write, nor its capture to store.
struct JobTakenOver: Error {}

/// Frames done, written to the job's row at most a few times a second; `lost` is called when the
/// row is no longer this replica's, to stop the work.
private final class JobProgress: @unchecked Sendable {
    private let board: JobBoard
    private var job: JobRecord
    private var last = ContinuousClock.now - .seconds(1)
    private let lock = NSLock()
    private let lost: @Sendable () -> Void

    init(board: JobBoard, job: JobRecord, lost: @escaping @Sendable () -> Void) {
        self.board = board
        self.job = job
        self.lost = lost
    }

    func advance(_ done: Int, _ total: Int?) {
        lock.lock()
        defer { lock.unlock() }
        job.framesDone = done
        job.framesTotal = total
        let now = ContinuousClock.now
        guard now - last >= .milliseconds(200) || done == total else { return }
        last = now
        do {
            try board.update(job)
        } catch is JobTakenOver {
            lost()
        } catch {
            // A progress row that cannot be written now is written by the next one.
        }
    }
}

/// One subscriber's stream and what it has carried, touched only under the board's lock.
private final class JobListener: @unchecked Sendable {
    private let continuation: AsyncStream<JobRecord>.Continuation
    private var last: JobRecord?

    init(_ continuation: AsyncStream<JobRecord>.Continuation) {
        self.continuation = continuation
    }

    /// A state the board saved after this listener was registered, or one read from a shared
    /// index: in order (an older one read late is dropped), each once.
    func deliver(_ snapshot: JobRecord) {
        guard snapshot != last, snapshot.updated >= last?.updated ?? snapshot.updated else { return }
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
