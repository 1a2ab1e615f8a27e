import CloudCore
import Foundation

/// A folder of outputs that appears under its name only when complete: files go into a hidden
/// sibling `.NAME.partial-PID-RANDOM` (same file system, so the final rename is atomic; a stale
/// one of a killed run is removed like a stale temporary file), `commit()` renames it into place
/// (inside `OutputSet.all`, together with the run's other outputs), and a staged folder dropped
/// without `commit()` (an error part-way) is removed. A destination that exists and is not empty
/// is refused: other files are never mixed in or replaced.
public final class StagedDirectory {
    public let destination: String
    /// Where to write until `commit()`.
    public let staging: URL
    private let target: URL
    private let what: String
    private var committed = false

    /// `what` names the folder's kind in messages ("bundle", "RGBD export").
    public init(_ destination: String, what: String) throws {
        self.destination = destination
        self.what = what
        // Standardized, so that "." or "out/.." name the folder itself, with a real parent.
        target = URL(fileURLWithPath: destination).standardizedFileURL
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: destination, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? fm.contentsOfDirectory(atPath: destination))?.isEmpty == true else {
                throw CloudError.badInput(
                    .file(destination), "already exists and is not an empty folder; a \(what) is written only where nothing is")
            }
        }
        let parent = target.deletingLastPathComponent().path
        staging = URL(
            fileURLWithPath: Temporaries.name(
                for: target.lastPathComponent, in: parent.hasSuffix("/") ? parent : parent + "/",
                kind: .folder))
        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw CloudError.io(.file(destination), "cannot create the \(what) beside it: \(error.localizedDescription)")
        }
        Self.live(insert: staging.path)
    }

    deinit {
        if !committed {
            Self.live(remove: staging.path)
            try? FileManager.default.removeItem(at: staging)
        }
    }

    /// Creates `relative` (e.g. "frames") inside the staged folder.
    public func makeSubfolder(_ relative: String) throws {
        do {
            try FileManager.default.createDirectory(at: staging.appendingPathComponent(relative), withIntermediateDirectories: true)
        } catch {
            throw CloudError.io(.file(destination), "cannot create \(relative): \(error.localizedDescription)")
        }
    }

    /// Runs `body`, which writes into the staged folder, so that errors about its files name the
    /// destination ("out/r/frames") rather than the hidden staging folder ("out/.r.partial-123-4f/frames").
    public func naming<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CloudError {
            // Its subject, and any file its reason names besides.
            let (root, name) = (staging.path, destination)
            let moved = { (subject: CloudError.Subject) in subject.moved(from: root, to: name) ?? subject }
            throw CloudError(error.kind, subject: error.subject.map(moved), error.reason.renaming(moved))
        }
    }

    /// Renames the staged folder into place (or hands it to the current `OutputSet`). An empty
    /// folder in the way (as at init) is replaced; one that filled up meanwhile is kept, and the
    /// staged folder with it is dropped.
    public func commit() throws {
        precondition(!committed, "StagedDirectory.commit twice")
        committed = true
        Self.live(remove: staging.path)
        let item = OutputSet.Item.folder(staging: staging.path, destination: target.path, what: what)
        if let set = OutputSet.current {
            set.add(item)
        } else {
            try OutputSet.commit([item])
        }
    }

    // MARK: - Staged folders being filled

    private static let lock = NSLock()
    nonisolated(unsafe) private static var stagings: Set<String> = []

    private static func live(insert path: String) {
        lock.lock()
        stagings.insert(path)
        lock.unlock()
    }

    private static func live(remove path: String) {
        lock.lock()
        stagings.remove(path)
        lock.unlock()
    }

    /// Whether `path` lies in a staged folder still being filled: a file written there is
    /// renamed into the staging at once, since the folder lands as a whole.
    static func contains(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return stagings.contains { path.hasPrefix($0 + "/") }
    }
}
