import CloudCore
import Foundation

/// What `CaptureStore.reconcile()` found and mended, for the server's start-up log.
public struct ReconcileReport: Equatable, Sendable, CustomStringConvertible {
    /// Entries left in staging/ by writes or removals that did not finish.
    public var stagingRemoved = 0
    /// Request bodies left in uploads/.
    public var uploadsRemoved = 0
    /// Folders under captures/ without a row: commits that stopped before their row.
    public var orphansRemoved = 0
    /// Rows whose folder or cloud file was missing, deleted.
    public var rowsRepaired = 0
    /// Jobs queued or running when the server stopped, now failed ("interrupted").
    public var jobsInterrupted = 0
    /// Folders under jobs/ of jobs that ended, or that have no row (a submit that stopped before it).
    public var jobFoldersRemoved = 0
    /// Leftovers and orphans kept because, with a shared index, they may be another live
    /// replica's work in flight (younger than `CaptureStore.sharedLeftoverAge`).
    public var leftoversKept = 0

    public init(
        stagingRemoved: Int = 0, uploadsRemoved: Int = 0, orphansRemoved: Int = 0, rowsRepaired: Int = 0, jobsInterrupted: Int = 0,
        jobFoldersRemoved: Int = 0, leftoversKept: Int = 0
    ) {
        self.stagingRemoved = stagingRemoved
        self.uploadsRemoved = uploadsRemoved
        self.orphansRemoved = orphansRemoved
        self.rowsRepaired = rowsRepaired
        self.jobsInterrupted = jobsInterrupted
        self.jobFoldersRemoved = jobFoldersRemoved
        self.leftoversKept = leftoversKept
    }

    public var description: String {
        "\(stagingRemoved) staging and \(uploadsRemoved) upload leftovers removed, \(orphansRemoved) orphan folders removed, "
            + "\(rowsRepaired) rows without files repaired, \(jobsInterrupted) jobs interrupted, "
            + "\(jobFoldersRemoved) folders of ended jobs removed"
            + (leftoversKept > 0 ? ", \(leftoversKept) recent leftovers kept (another replica's work in flight?)" : "")
    }
}

extension CaptureStore {
    /// With a shared index, the age (by modification time) past which a leftover is taken for a
    /// stopped server's. Another replica on the same folder writes a capture in staging/, renames
    /// it into captures/ and only then inserts its row; receives a body in uploads/; and a job
    /// keeps its upload folder while it runs. Each of these looks like a leftover to a replica
    /// starting meanwhile, and removing it would lose that replica's capture. An hour is far
    /// longer than a commit or an upload takes; a job that runs longer than that may lose its
    /// upload folder to a replica starting then (Docs/deploy.md).
    public static let sharedLeftoverAge: TimeInterval = 3600

    /// Brings files and rows back into agreement after a stop at any moment; run at start-up,
    /// before any request. Empties staging/ and uploads/, removes folders under captures/ that have
    /// no row, deletes rows whose folder or cloud file is missing, and fails unfinished jobs no
    /// live server runs (or, with a shared index, will take over), and removes the folders of jobs
    /// that ended. With a shared index (`CaptureIndex.isShared`), leftovers and orphans younger
    /// than `sharedLeftoverAge` are kept: they may be another replica's work in flight.
    /// Rows without their files are still repaired, since no replica makes one: a row is inserted
    /// only after its folder is in place, and removed before its folder goes.
    public func reconcile(now: Date = Date()) async throws -> ReconcileReport {
        var report = ReconcileReport()
        let cutoff: Date? = index.isShared ? now.addingTimeInterval(-Self.sharedLeftoverAge) : nil
        var kept = 0
        (report.stagingRemoved, kept) = try sweep(staging, before: cutoff)
        report.leftoversKept += kept
        (report.uploadsRemoved, kept) = try sweep(uploads, before: cutoff)
        report.leftoversKept += kept
        // Rows first: a folder committed after this read is young, so kept below.
        let rows = Set(try await index.allIDs())
        (report.orphansRemoved, kept) = try sweep(captures, before: cutoff) { CaptureID(validating: $0).map(rows.contains) ?? false }
        report.leftoversKept += kept
        for id in rows where !isComplete(id) {
            _ = try await index.delete(id)
            // A folder without its cloud (or a file in the folder's place) goes with the row.
            let item = captures.appendingPathComponent(id.rawValue)
            if (try? item.checkResourceIsReachable()) == true { try remove(item) }
            report.rowsRepaired += 1
        }
        report.jobsInterrupted = try await index.markUnfinishedJobsInterrupted(at: Date())
        // After the jobs that will never run again were failed: the unfinished ones left are run
        // (or taken over) from their folders. A folder without a row may be a submit in flight.
        let unfinished = Set(try await index.listJobs(limit: .max, after: nil, states: [.queued, .running]).map(\.id))
        (report.jobFoldersRemoved, kept) = try sweep(jobs, before: cutoff) { JobID(validating: $0).map(unfinished.contains) ?? false }
        report.leftoversKept += kept
        return report
    }

    /// Whether the capture's folder holds its cloud file, or the inputs it is made from.
    private func isComplete(_ id: CaptureID) -> Bool {
        folder(id).map(Self.holdsCloud) ?? false
    }

    /// Removes the entries of `folder` that are not `live`, or only those last modified before
    /// `cutoff`; how many entries were removed, and how many kept by the cutoff.
    private func sweep(
        _ folder: URL, before cutoff: Date?, live: (String) -> Bool = { _ in false }
    ) throws -> (removed: Int, kept: Int) {
        var counts = (removed: 0, kept: 0)
        for name in try entries(folder) where !live(name) {
            let item = folder.appendingPathComponent(name)
            if let cutoff, !isOlder(item, than: cutoff) {
                counts.kept += 1
                continue
            }
            try remove(item)
            counts.removed += 1
        }
        return counts
    }

    /// Whether `item` was last modified before `cutoff`; one that cannot be read (gone meanwhile) is not.
    private func isOlder(_ item: URL, than cutoff: Date) -> Bool {
        guard let modified = try? FileManager.default.attributesOfItem(atPath: item.path)[.modificationDate] as? Date else {
            return false
        }
        return modified < cutoff
    }

    private func entries(_ folder: URL) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw CloudError.io("\(folder.path): cannot list it: \(error.localizedDescription)")
        }
    }

    private func remove(_ item: URL) throws {
        do {
            try FileManager.default.removeItem(at: item)
        } catch {
            throw CloudError.io("\(item.path): cannot remove it: \(error.localizedDescription)")
        }
    }
}
