import CloudCore
import Foundation

/// The service's data folder (`--data DIR`):
///
///     DIR/index.sqlite     the capture index (rows of captures and jobs)
///     DIR/captures/ID/     the files of one capture, `cloud.ply` among them
///     DIR/staging/         captures being written, and removed ones on their way out
///     DIR/uploads/         request bodies being received
///     DIR/jobs/ID/         an unfinished archive job's upload, which any replica can run it from
///
/// A capture is written into a fresh staging folder, flushed, renamed into captures/ in one step,
/// and only then given its row: the row is the commit point. So a `kill -9` at any moment leaves
/// either a complete capture with its row, or files without a row, which `reconcile()` removes at
/// the next start. Every folder is on one file system, so each rename is atomic. Requests on
/// different ids can run at once: each works in its own folder, and the index serialises the rows.
public final class CaptureStore: Sendable {
    /// The stored cloud of a capture, inside its folder.
    public static let cloudFileName = "cloud.ply"
    /// The inputs an upload stored lazily keeps instead of its cloud, which is made from them on
    /// first read. A capture folder holding neither is incomplete.
    public static let inputsFolderName = "inputs"

    public let root: URL
    public let index: any CaptureIndex
    public let captures: URL
    public let staging: URL
    public let uploads: URL
    public let jobs: URL

    /// Opens the data folder `root`, creating it and its subfolders if needed, with `index` or
    /// else the SQLite index in root/index.sqlite. Call `reconcile()` before serving from it.
    public init(root: URL, index: (any CaptureIndex)? = nil) throws {
        self.root = root
        captures = root.appendingPathComponent("captures", isDirectory: true)
        staging = root.appendingPathComponent("staging", isDirectory: true)
        uploads = root.appendingPathComponent("uploads", isDirectory: true)
        jobs = root.appendingPathComponent("jobs", isDirectory: true)
        for folder in [root, captures, staging, uploads, jobs] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw CloudError.badInput("\(folder.path): not a folder; the data folder needs one here")
                }
                continue
            }
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw CloudError.io("\(folder.path): cannot create the folder: \(error.localizedDescription)")
            }
        }
        self.index = try index ?? SQLiteCaptureIndex(path: root.appendingPathComponent("index.sqlite").path)
    }

    /// A new empty folder under staging/ to write a capture's files into, then hand to `commit`.
    public func makeStaging() throws -> URL {
        let folder = staging.appendingPathComponent(CaptureID().rawValue, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        } catch {
            throw CloudError.io("\(folder.path): cannot create the staging folder: \(error.localizedDescription)")
        }
        return folder
    }

    /// Makes the files in `folder` (from `makeStaging`) the capture `record`: flushes them, renames
    /// the folder to captures/ID, flushes captures/, then inserts the row. On failure the files
    /// are removed (the staging folder, or the renamed one if the row cannot be inserted) and the
    /// error thrown; only the files of an insert whose fate is unknown (`IndexUnavailable.maybeApplied`)
    /// stay, for `reconcile()` to settle.
    public func commit(staging folder: URL, record: CaptureRecord) async throws {
        guard isStaging(folder) else { throw CloudError.io("\(folder.path): not a staging folder of \(root.path)") }
        let destination = captures.appendingPathComponent(record.id.rawValue, isDirectory: true)
        do {
            guard Self.holdsCloud(folder) else {
                throw CloudError.io(
                    "\(folder.path): holds neither \(Self.cloudFileName) nor \(Self.inputsFolderName)/; a capture is not committed without one"
                )
            }
            guard !FileManager.default.fileExists(atPath: destination.path) else {
                throw CloudError.io("\(destination.path): already exists; capture ids are never reused")
            }
            let captures = captures
            try await DurableFiles.offload {
                try DurableFiles.syncTree(folder)
                try DurableFiles.move(folder, to: destination)
                try DurableFiles.sync(captures)
            }
        } catch {
            abandon(staging: folder)
            throw error
        }
        do {
            try await index.insert(record)
        } catch {
            // A shared index whose connection failed after the row was sent may have committed
            // it: the files stay, so that a row never names a missing folder. If the row did not
            // land, the folder is an orphan no listing shows, which `reconcile()` removes later.
            if (error as? IndexUnavailable)?.maybeApplied != true {
                try? await DurableFiles.offload { self.discard(destination) }
            }
            throw error
        }
    }

    /// Whether a capture's folder holds its cloud file, or the inputs it is made from.
    static func holdsCloud(_ folder: URL) -> Bool {
        let cloud = try? folder.appendingPathComponent(cloudFileName).resourceValues(forKeys: [.isRegularFileKey])
        let inputs = try? folder.appendingPathComponent(inputsFolderName).resourceValues(forKeys: [.isDirectoryKey])
        return cloud?.isRegularFile == true || inputs?.isDirectory == true
    }

    /// Removes a staging folder whose capture will not be committed (the capture failed part-way).
    public func abandon(staging folder: URL) {
        guard isStaging(folder) else { return }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Whether `folder` is one that `makeStaging` makes: never a path elsewhere.
    private func isStaging(_ folder: URL) -> Bool {
        CaptureID(validating: folder.lastPathComponent) != nil
            && folder.deletingLastPathComponent().standardizedFileURL.path == staging.standardizedFileURL.path
    }

    /// Removes the capture: its row first (it is gone for readers from then on), then its folder,
    /// moved out of captures/ in one rename and deleted under staging/. Whether there was a row;
    /// a folder without one is left to `reconcile()` (it may be a commit in flight).
    public func remove(_ id: CaptureID) async throws -> Bool {
        guard try await index.delete(id) else { return false }
        let folder = captures.appendingPathComponent(id.rawValue, isDirectory: true)
        try await DurableFiles.offload { self.discard(folder) }
        return true
    }

    /// The capture's folder, if it exists. Only a capture with a row exists for clients: ask the
    /// index first.
    public func folder(_ id: CaptureID) -> URL? {
        let folder = captures.appendingPathComponent(id.rawValue, isDirectory: true)
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && isDirectory.boolValue ? folder : nil
    }

    /// Moves `folder` into staging/ under a fresh name, then deletes it there: captures/ never
    /// shows a half-deleted capture. A failure leaves it for `reconcile()`, which empties staging/.
    func discard(_ folder: URL) {
        let trash = staging.appendingPathComponent("removed-" + CaptureID().rawValue, isDirectory: true)
        guard (try? DurableFiles.move(folder, to: trash)) != nil else { return }
        try? FileManager.default.removeItem(at: trash)
    }
}
