import Foundation
import NIOConcurrencyHelpers

/// Makes each derived file (an encoding, a filtered export, a preview, the depth picture) once,
/// on the export pool, however many requests ask for it at the same moment: the first starts the
/// work, the others wait for it rather than drawing the same picture again each.
final class DerivedFiles: Sendable {
    private let pool: WorkerPool
    private let metrics: ServiceMetrics
    private let inFlight = NIOLockedValueBox<[String: Task<Void, Error>]>([:])

    init(pool: WorkerPool, metrics: ServiceMetrics) {
        self.pool = pool
        self.metrics = metrics
    }

    /// Ensures `name` exists in the capture `folder`'s derived/ folder, made by `make(path)`, and
    /// returns its path. A capture deleted meanwhile is not found (404), not a failure to write.
    func file(_ name: String, in folder: URL, capture: CaptureID,
              make: @escaping @Sendable (String) throws -> Void) async throws -> String {
        let directory = folder.appendingPathComponent(CaptureFiles.derived)
        let path = directory.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) { return path }
        let work = inFlight.withLockedValue { tasks -> Task<Void, Error> in
            if let running = tasks[path] { return running }
            let task = Task { [pool, metrics] in
                try await pool.run {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    try make(path)
                    metrics.bytesWritten.increment(by: Int64(FileSize.of(path)))
                }
            }
            tasks[path] = task
            return task
        }
        defer { inFlight.withLockedValue { _ = $0.removeValue(forKey: path) } }
        do {
            try await work.value
        } catch {
            if !FileManager.default.fileExists(atPath: folder.path) { throw Problem.notFound("capture \(capture) was deleted") }
            throw error
        }
        return path
    }
}
