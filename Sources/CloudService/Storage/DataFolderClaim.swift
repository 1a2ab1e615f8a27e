import CloudCore
import Foundation
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// The capture index a data folder belongs to: its own SQLite file, or one PostgreSQL database,
/// known by its cluster's system identifier and its name (not by the address, which differs from
/// replica to replica behind a proxy or a DNS name).
public enum DataFolderOwner: Equatable, Sendable, CustomStringConvertible {
    case sqlite
    case postgresql(system: String, database: String)

    public var description: String {
        switch self {
        case .sqlite: return "its own SQLite index (index.sqlite)"
        case let .postgresql(system, database): return "the PostgreSQL index in database '\(database)' of cluster \(system)"
        }
    }

    /// What to start a server with to serve the folder.
    var remedy: String {
        switch self {
        case .sqlite: return "serve it without --index"
        case let .postgresql(_, database): return "serve it with --index naming database '\(database)' of that cluster"
        }
    }
}

/// A running server's hold on its data folder, taken before anything in it is read or cleaned up,
/// so that no second server removes what the first one stores:
///
/// - `owner.json` records which index the folder belongs to, written by the first server to use
///   it; a server with another index refuses to start. Captures' rows live in that index only, so
///   to any other index every capture folder is an orphan, which start-up would remove.
/// - `.server.lock` is held with flock(2) for the server's life: exclusively by a SQLite server
///   (one process per SQLite index), shared by replicas of one PostgreSQL index. The kernel drops
///   it when the process ends, however it ends, so a crashed server blocks no one.
///
/// A folder made before owners were recorded is claimed by the first server to start on it,
/// unless what is in it says it was another index's: captures without an index.sqlite are a
/// PostgreSQL index's; an index.sqlite beside captures is SQLite's.
public final class DataFolderClaim: Service, @unchecked Sendable {
    public static let ownerFileName = "owner.json"
    static let lockFileName = ".server.lock"

    public let owner: DataFolderOwner
    private let lock = NSLock()
    private var descriptor: Int32

    private init(owner: DataFolderOwner, descriptor: Int32) {
        self.owner = owner
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Claims `root` (made if missing) for `owner`; a `CloudError.badInput` naming the folder and
    /// who holds it when another server or another index has it.
    public static func take(_ root: URL, for owner: DataFolderOwner) throws -> DataFolderClaim {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw CloudError.io("\(root.path): cannot create the data folder: \(error.localizedDescription)")
        }
        let lockPath = root.appendingPathComponent(lockFileName).path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CloudError.io("\(lockPath): cannot open the data folder's lock: \(String(cString: strerror(errno)))")
        }
        let claim = DataFolderClaim(owner: owner, descriptor: descriptor)
        let mode = owner == .sqlite ? LOCK_EX : LOCK_SH
        while flock(descriptor, mode | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            guard errno == EWOULDBLOCK else {
                throw CloudError.io("\(lockPath): cannot lock the data folder: \(String(cString: strerror(errno)))")
            }
            let message =
                switch try? recordedOwner(in: root) {
                case let replicas?
                where replicas != .sqlite:
                    "replicas of \(replicas) are running on it; \(replicas.remedy), or give another --data folder"
                default:
                    "another cloudgen serve with its SQLite index is running on it; a SQLite index serves one server at a time (replicas share one PostgreSQL index: --index)"
                }
            throw CloudError.badInput("\(root.path): \(message)")
        }
        switch try recordedOwner(in: root) {
        case owner?:
            break
        case let other?:
            throw CloudError.badInput(
                "\(root.path): this data folder belongs to \(other), not to \(owner); \(other.remedy), or give another --data folder")
        case nil:
            if let sqlite = madeBySQLite(root), sqlite != (owner == .sqlite) {
                let earlier = sqlite ? "its own SQLite index (index.sqlite)" : "a PostgreSQL index (it has no index.sqlite)"
                throw CloudError.badInput(
                    "\(root.path): this data folder holds captures of \(earlier), not of \(owner); give another --data folder, or start with the index it was made with"
                )
            }
            try record(owner, in: root)
        }
        return claim
    }

    /// Lets the folder go when the server stops (a service of its group, stopped last).
    public func run() async throws {
        try? await gracefulShutdown()
        release()
    }

    private func release() {
        lock.withLock {
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
        }
    }

    // MARK: owner.json

    private struct OwnerFile: Codable {
        var index: String
        var system_identifier: String?
        var database: String?
    }

    static func recordedOwner(in root: URL) throws -> DataFolderOwner? {
        let path = root.appendingPathComponent(ownerFileName).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let bad = CloudError.badInput(
            "\(path): not the record of which index owns this data folder (expected {\"index\": \"sqlite\"} or {\"index\": \"postgresql\", ...})"
        )
        guard let data = FileManager.default.contents(atPath: path), data.count < 4096,
            let file = try? JSONDecoder().decode(OwnerFile.self, from: data)
        else { throw bad }
        switch (file.index, file.system_identifier, file.database) {
        case ("sqlite", nil, nil): return .sqlite
        case ("postgresql", let system?, let database?): return .postgresql(system: system, database: database)
        default: throw bad
        }
    }

    /// For a folder from before owner.json that holds captures, whether its index was SQLite (its
    /// index.sqlite is there) or PostgreSQL (captures without one); nil for a folder without captures.
    private static func madeBySQLite(_ root: URL) -> Bool? {
        let captures = root.appendingPathComponent("captures").path
        let holdsCaptures = ((try? FileManager.default.contentsOfDirectory(atPath: captures)) ?? []).contains { !$0.hasPrefix(".") }
        guard holdsCaptures else { return nil }
        return FileManager.default.fileExists(atPath: root.appendingPathComponent("index.sqlite").path)
    }

    /// Writes owner.json whole (a temporary renamed into place), so that a reader never sees half.
    private static func record(_ owner: DataFolderOwner, in root: URL) throws {
        let file: OwnerFile =
            switch owner {
            case .sqlite: OwnerFile(index: "sqlite")
            case let .postgresql(system, database): OwnerFile(index: "postgresql", system_identifier: system, database: database)
            }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let target = root.appendingPathComponent(ownerFileName)
        do {
            try (try encoder.encode(file) + Data("\n".utf8)).write(to: target, options: .atomic)
        } catch {
            throw CloudError.io("\(target.path): cannot record the data folder's index: \(error.localizedDescription)")
        }
    }
}
