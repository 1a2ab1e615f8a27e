import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Prometheus

/// Makes each derived file (an encoding, a filtered export, a preview, the depth picture) once,
/// on the export pool, however many requests ask for it at the same moment: the first starts the
/// work, the others wait for it rather than drawing the same picture again each. When every
/// request waiting for a file has gone (their clients closed), its work is cancelled. Replicas
/// sharing the data folder make it once between them too: a lock file beside it (`FolderLock`).
///
/// The files live in their capture's `derived/` folder, named by the SHA-256 of their canonical
/// parameters, and all of them together are held to a byte budget: past it, the least recently
/// used go (a capture's stored cloud and depth map are never derived files). The budget and the
/// bytes held are in /metrics.
final class DerivedFiles: Sendable {
    private let pool: WorkerPool
    private let metrics: ServiceMetrics
    let budget: Int
    private let state: NIOLockedValueBox<State>

    private struct State {
        var inFlight: [String: Flight] = [:]
        /// Every derived file on disk: its bytes and when it was last served (a use count).
        var entries: [String: (bytes: Int, lastUse: UInt64)] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    private final class Flight: Sendable {
        let task: Task<Void, Error>
        let waiters = NIOLockedValueBox(0)
        init(task: Task<Void, Error>) { self.task = task }
    }

    /// `captures`: the store's captures folder, whose derived files (left by an earlier run) are
    /// counted from the start, oldest first.
    init(pool: WorkerPool, metrics: ServiceMetrics, budget: Int, captures: URL) {
        self.pool = pool
        self.metrics = metrics
        self.budget = budget
        var initial = State()
        let files = Self.existing(in: captures).sorted { $0.modified < $1.modified }
        for file in files {
            initial.uses += 1
            initial.entries[file.path] = (file.bytes, initial.uses)
            initial.bytes += file.bytes
        }
        state = NIOLockedValueBox(initial)
        metrics.derivedBudget.set(Double(budget))
        metrics.derivedBytes.set(Double(initial.bytes))
    }

    /// A name for the variant `parameters` describes, canonically (the same variant always has
    /// the same text): its SHA-256 in hex, with the file's extension.
    static func name(_ parameters: String, extension ext: String) -> String {
        "\(SHA256.hex(parameters)).\(ext)"
    }

    /// Ensures `name` exists in the capture `folder`'s derived/ folder, made by `make(path,
    /// cancelled)`, and returns its path. A capture deleted meanwhile is not found (404), and
    /// leaves no folder behind.
    func file(
        _ name: String, in folder: URL, capture: CaptureID,
        make: @escaping @Sendable (String, CancellationFlag) throws -> Void
    ) async throws -> String {
        let directory = folder.appendingPathComponent(CaptureFiles.derived)
        let path = directory.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) {
            touch(path)
            return path
        }
        // A flight cancelled by the last of its earlier waiters is not this request's to share:
        // it starts the work again (a few times at most; each one needs a client to leave).
        for _ in 0..<3 {
            let flight = join(path) {
                Task { [pool, metrics] in
                    try await pool.run { cancelled in
                        // Not with intermediate folders: a capture deleted before this point must
                        // not come back as an orphan derived/ folder.
                        do {
                            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
                        } catch CocoaError.fileWriteFileExists {}
                        // Once across the replicas sharing the folder too: one that waited for
                        // another's make finds the file made.
                        try FolderLock.withLock(directory.appendingPathComponent(".\(name).lock").path, cancelled: cancelled) {
                            guard !FileManager.default.fileExists(atPath: path) else { return }
                            try make(path, cancelled)
                            metrics.bytesWritten.increment(by: Int64(FileSize.of(path)))
                        }
                    }
                    self.record(path)
                }
            }
            do {
                defer { leave(path, flight) }
                try await withTaskCancellationHandler {
                    try await flight.task.value
                } onCancel: {
                    // The last one waiting has gone: no one will read the file.
                    if flight.waiters.withLockedValue({ $0 }) <= 1 { flight.task.cancel() }
                }
                return path
            } catch is CancellationError where !Task.isCancelled {
                continue
            } catch {
                if !FileManager.default.fileExists(atPath: folder.path) { throw Problem.notFound("capture \(capture) was deleted") }
                throw error
            }
        }
        throw Problem(
            .serviceUnavailable, "the work for this file was cancelled by other clients three times; retry", headers: [.retryAfter: "1"])
    }

    /// The flight making `path` (a new one from `start` when none runs, or only a cancelled one),
    /// with this request counted among its waiters.
    private func join(_ path: String, start: () -> Task<Void, Error>) -> Flight {
        state.withLockedValue { state in
            let flight: Flight
            if let running = state.inFlight[path], !running.task.isCancelled {
                flight = running
            } else {
                flight = Flight(task: start())
                state.inFlight[path] = flight
            }
            flight.waiters.withLockedValue { $0 += 1 }
            return flight
        }
    }

    private func leave(_ path: String, _ flight: Flight) {
        state.withLockedValue { state in
            let left = flight.waiters.withLockedValue { count -> Int in
                count -= 1
                return count
            }
            if left == 0, state.inFlight[path] === flight { state.inFlight[path] = nil }
        }
    }

    /// Forgets a deleted capture's files.
    func forget(folder: URL) {
        let prefix = folder.appendingPathComponent(CaptureFiles.derived).path + "/"
        state.withLockedValue { state in
            for (path, entry) in state.entries where path.hasPrefix(prefix) {
                state.entries[path] = nil
                state.bytes -= entry.bytes
            }
            metrics.derivedBytes.set(Double(state.bytes))
        }
    }

    private func touch(_ path: String) {
        state.withLockedValue { state in
            guard state.entries[path] != nil else { return }
            state.uses += 1
            state.entries[path]?.lastUse = state.uses
        }
    }

    /// Counts a new file and removes the least recently used others while over the budget.
    private func record(_ path: String) {
        let bytes = FileSize.of(path)
        let evicted = state.withLockedValue { state -> [String] in
            state.uses += 1
            state.entries[path] = (bytes, state.uses)
            state.bytes += bytes
            var evicted: [String] = []
            if state.bytes > budget {
                for (candidate, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where candidate != path {
                    guard state.bytes > budget else { break }
                    state.entries[candidate] = nil
                    state.bytes -= entry.bytes
                    evicted.append(candidate)
                }
            }
            metrics.derivedBytes.set(Double(state.bytes))
            return evicted
        }
        // A file being sent stays readable after its name is gone (it is open).
        for candidate in evicted { try? FileManager.default.removeItem(atPath: candidate) }
        metrics.derivedEvictions.increment(by: Int64(evicted.count))
    }

    private static func existing(in captures: URL) -> [(path: String, bytes: Int, modified: Date)] {
        let manager = FileManager.default
        guard let ids = try? manager.contentsOfDirectory(atPath: captures.path) else { return [] }
        var found: [(String, Int, Date)] = []
        for id in ids {
            let derived = captures.appendingPathComponent(id).appendingPathComponent(CaptureFiles.derived)
            // Not the lock files (".NAME.lock"): they are empty, and guard files, not hold them.
            for name in (try? manager.contentsOfDirectory(atPath: derived.path)) ?? [] where !name.hasPrefix(".") {
                let path = derived.appendingPathComponent(name).path
                guard let attributes = try? manager.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular
                else { continue }
                found.append(
                    (path, (attributes[.size] as? NSNumber)?.intValue ?? 0, attributes[.modificationDate] as? Date ?? .distantPast))
            }
        }
        return found
    }
}
