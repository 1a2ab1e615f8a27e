import CloudCore
import Foundation

/// A folder of outputs that appears under its name only when complete: files go into a hidden
/// sibling (same file system, so the final rename is atomic), `commit()` renames it into place,
/// and a staged folder dropped without `commit()` (an error part-way) is removed. A destination
/// that exists and is not empty is refused: other files are never mixed in or replaced.
public final class StagedDirectory {
    public let destination: String
    /// Where to write until `commit()`.
    public let staging: URL
    private let target: URL
    private var committed = false

    /// `what` names the folder's kind in messages ("bundle", "RGBD export").
    public init(_ destination: String, what: String) throws {
        self.destination = destination
        // Standardized, so that "." or "out/.." name the folder itself, with a real parent.
        target = URL(fileURLWithPath: destination).standardizedFileURL
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: destination, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? fm.contentsOfDirectory(atPath: destination))?.isEmpty == true else {
                throw CloudError.badInput("\(destination): already exists and is not an empty folder; a \(what) is written only where nothing is")
            }
        }
        staging = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).partial-\(UUID().uuidString)")
        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw CloudError.io("\(destination): cannot create the \(what) beside it: \(error.localizedDescription)")
        }
    }

    deinit {
        if !committed { try? FileManager.default.removeItem(at: staging) }
    }

    /// Creates `relative` (e.g. "frames") inside the staged folder.
    public func makeSubfolder(_ relative: String) throws {
        do {
            try FileManager.default.createDirectory(at: staging.appendingPathComponent(relative), withIntermediateDirectories: true)
        } catch {
            throw CloudError.io("\(destination): cannot create \(relative): \(error.localizedDescription)")
        }
    }

    /// Renames the staged folder into place. An empty folder in the way (as at init) is replaced;
    /// one that filled up meanwhile is kept, and the staged folder with it is dropped.
    public func commit() throws {
        precondition(!committed, "StagedDirectory.commit twice")
        let fm = FileManager.default
        do {
            if fm.fileExists(atPath: target.path) {
                guard try fm.contentsOfDirectory(atPath: target.path).isEmpty else {
                    throw CloudError.badInput("\(destination): files appeared in it while it was being written; nothing was written")
                }
                try fm.removeItem(at: target)
            }
            try fm.moveItem(at: staging, to: target)
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError.io("\(destination): cannot move the finished folder into place: \(error.localizedDescription)")
        }
        committed = true
    }
}
