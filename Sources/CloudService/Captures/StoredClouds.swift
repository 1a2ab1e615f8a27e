import CloudCore
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A capture's cloud and depth map in its folder, for the routes that read them. An upload stored
/// lazily has neither until a route first reads it; then they are made from its kept inputs
/// (`CaptureRunner.remake`), once however many requests ask at the same moment (on this server,
/// or on replicas sharing the folder: `FolderLock`), on the export pool, and kept for good: they
/// are the capture's own files from then on, never a derived file that the cache's budget could
/// remove.
final class StoredClouds: Sendable {
    private let store: CaptureStore
    private let runner: CaptureRunner
    private let pool: WorkerPool
    /// The makes running, by capture: later requests wait for the first one's.
    private let making = NIOLockedValueBox<[CaptureID: Task<Void, Error>]>([:])

    init(store: CaptureStore, runner: CaptureRunner, pool: WorkerPool) {
        self.store = store
        self.runner = runner
        self.pool = pool
    }

    /// Makes sure the capture's folder holds its cloud and depth map: at once for one stored
    /// eagerly or already made; else made from its inputs. Call it once the request is found
    /// valid, so that a refused request starts no work.
    func ensureCloud(_ record: CaptureRecord, _ folder: URL) async throws {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(CaptureFiles.cloud).path) { return }
        let id = record.id
        let task = making.withLockedValue { making in
            if let running = making[id] { return running }
            // Not the request's own task: a client that leaves does not stop the make the others wait for.
            let task = Task { [runner, pool] in
                defer { self.making.withLockedValue { $0[id] = nil } }
                try await pool.run { cancelled in
                    // Once across the replicas sharing the folder too: one that waited for
                    // another's make finds the cloud made.
                    try FolderLock.withLock(folder.appendingPathComponent(".cloud.lock").path, cancelled: cancelled) {
                        guard !FileManager.default.fileExists(atPath: folder.appendingPathComponent(CaptureFiles.cloud).path) else {
                            return
                        }
                        try runner.remake(record, in: folder, cancelled: cancelled)
                    }
                }
            }
            making[id] = task
            return task
        }
        do {
            try await task.value
        } catch {
            if store.folder(id) == nil { throw Problem.notFound("capture \(id) was deleted") }
            if let problem = error as? Problem, problem.status == .serviceUnavailable { throw problem }
            // The inputs were checked at upload: whatever fails now is the server's disk, not the request.
            let detail = (error as? CloudError).map(FieldWording.detail) ?? (error as? Problem)?.detail ?? "\(error)"
            throw Problem(.internalServerError, "capture \(id): its cloud cannot be made from its stored inputs: \(detail)")
        }
    }
}
