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

    public init(stagingRemoved: Int = 0, uploadsRemoved: Int = 0, orphansRemoved: Int = 0, rowsRepaired: Int = 0, jobsInterrupted: Int = 0)
    {
        self.stagingRemoved = stagingRemoved
        self.uploadsRemoved = uploadsRemoved
        self.orphansRemoved = orphansRemoved
        self.rowsRepaired = rowsRepaired
        self.jobsInterrupted = jobsInterrupted
    }

    public var description: String {
        "\(stagingRemoved) staging and \(uploadsRemoved) upload leftovers removed, \(orphansRemoved) orphan folders removed, "
            + "\(rowsRepaired) rows without files repaired, \(jobsInterrupted) jobs interrupted"
    }
}

extension CaptureStore {
    /// Brings files and rows back into agreement after a stop at any moment; run at start-up,
    /// before any request. Empties staging/ and uploads/, removes folders under captures/ that have
    /// no row, deletes rows whose folder or cloud file is missing, and fails unfinished jobs.
    public func reconcile() async throws -> ReconcileReport {
        var report = ReconcileReport()
        report.stagingRemoved = try empty(staging)
        report.uploadsRemoved = try empty(uploads)
        let rows = Set(try await index.allIDs())
        for name in try entries(captures) {
            if let id = CaptureID(validating: name), rows.contains(id) { continue }
            try remove(captures.appendingPathComponent(name))
            report.orphansRemoved += 1
        }
        for id in rows where !isComplete(id) {
            _ = try await index.delete(id)
            // A folder without its cloud (or a file in the folder's place) goes with the row.
            let item = captures.appendingPathComponent(id.rawValue)
            if (try? item.checkResourceIsReachable()) == true { try remove(item) }
            report.rowsRepaired += 1
        }
        report.jobsInterrupted = try await index.markUnfinishedJobsInterrupted(at: Date())
        return report
    }

    /// Whether the capture's folder holds its cloud file, or the inputs it is made from.
    private func isComplete(_ id: CaptureID) -> Bool {
        folder(id).map(Self.holdsCloud) ?? false
    }

    /// Removes everything inside `folder`; how many entries there were.
    private func empty(_ folder: URL) throws -> Int {
        let names = try entries(folder)
        for name in names { try remove(folder.appendingPathComponent(name)) }
        return names.count
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
