import CloudCore
import Foundation
import GRDB

/// The capture index in one SQLite file (DIR/index.sqlite), through a GRDB `DatabasePool`: WAL
/// mode, so that listing and downloads read while an upload's row is written, and a `kill -9`
/// loses no committed transaction. The SQL is plain so that a PostgreSQL index can follow it.
public final class SQLiteCaptureIndex: CaptureIndex {
    public let path: String
    let pool: DatabasePool
    /// One server's: its start-up takes every leftover in the data folder for its own crash's.
    public var isShared: Bool { false }

    /// Opens (or creates) the index at `path` and brings its tables up to date. A file that is not
    /// an SQLite database, or a damaged one, is an error naming it: the server refuses to start
    /// rather than treat every stored capture as an orphan.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        // Another process (a second server on the same folder, the sqlite3 shell) waits, not fails.
        configuration.busyMode = .timeout(5)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // The pool asks for WAL; a file system that cannot share memory maps keeps another mode.
            let mode = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            guard mode == "wal" else {
                throw CloudError.io(
                    "\(path): SQLite cannot use WAL mode here (journal mode \(mode ?? "unknown")); put the data folder on a local disk")
            }
            let problems = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard problems == ["ok"] else {
                throw CloudError.badInput("\(path): the capture index is damaged (\(problems.prefix(3).joined(separator: "; ")))")
            }
            try Self.migrator.migrate(pool)
        } catch let error as DatabaseError {
            throw Self.openFailure(path, error)
        }
    }

    /// Moves the log into the database file, so that a stopped server leaves one self-contained
    /// file (a plain copy is a backup), and closes the connections; the index must not be used
    /// afterwards.
    public func close() throws {
        _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try pool.close()
    }

    private static func openFailure(_ path: String, _ error: DatabaseError) -> CloudError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return .badInput(
                "\(path): not an SQLite database, or a damaged one (\(error.message ?? "\(error.resultCode)")); the capture index cannot be opened"
            )
        default:
            return .io("\(path): cannot open the capture index: \(error.message ?? "\(error.resultCode)")")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Times are milliseconds since 1970 (INTEGER). WITHOUT ROWID keeps each table ordered by its
            // id, which is time-ordered: the list query (id < ? ORDER BY id DESC LIMIT ?) walks
            // the primary key and needs no other index.
            try db.execute(
                sql: """
                    CREATE TABLE capture (
                        id TEXT NOT NULL PRIMARY KEY,
                        created INTEGER NOT NULL,
                        source TEXT NOT NULL,
                        points INTEGER NOT NULL,
                        minX REAL, minY REAL, minZ REAL, maxX REAL, maxY REAL, maxZ REAL,
                        bytes INTEGER NOT NULL,
                        frames INTEGER NOT NULL,
                        report TEXT NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE job (
                        id TEXT NOT NULL PRIMARY KEY,
                        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
                        created INTEGER NOT NULL,
                        updated INTEGER NOT NULL,
                        framesDone INTEGER NOT NULL,
                        framesTotal INTEGER,
                        captureID TEXT,
                        problem TEXT
                    ) WITHOUT ROWID;
                    -- Start-up looks for the unfinished jobs only.
                    CREATE INDEX job_unfinished ON job (state) WHERE state IN ('queued', 'running');
                    """)
        }
        migrator.registerMigration("v2-labels") { db in
            // A capture's name, note and uploaded file names (JSON: part -> name), its tags in the
            // order given (JSON) and once more one per row, for ?tag=. Older rows get no labels.
            try db.execute(
                sql: """
                    ALTER TABLE capture ADD COLUMN name TEXT;
                    ALTER TABLE capture ADD COLUMN note TEXT;
                    ALTER TABLE capture ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
                    ALTER TABLE capture ADD COLUMN files TEXT NOT NULL DEFAULT '{}';
                    ALTER TABLE capture ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE capture_tag (
                        captureID TEXT NOT NULL REFERENCES capture (id) ON DELETE CASCADE,
                        tag TEXT NOT NULL,
                        PRIMARY KEY (captureID, tag)
                    ) WITHOUT ROWID;
                    CREATE INDEX capture_tag_by_tag ON capture_tag (tag, captureID);
                    -- The listing's other orders walk these as the newest-first order walks the key; a
                    -- page starts with a seek on (key, id), which a plain column allows and an
                    -- expression does not: the name's sort key is a column computed from it.
                    ALTER TABLE capture ADD COLUMN sortName TEXT COLLATE NOCASE GENERATED ALWAYS AS (COALESCE(name, '')) VIRTUAL;
                    CREATE INDEX capture_by_points ON capture (points, id);
                    CREATE INDEX capture_by_name ON capture (sortName, id);
                    """)
        }
        return migrator
    }

    /// Runs `body` on a reader, with SQLite's errors as `CloudError`s naming the file.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as DatabaseError {
            throw CloudError.io("\(path): \(error.message ?? "\(error.resultCode)")")
        }
    }

    /// Runs `body` in a write transaction, with SQLite's errors as `CloudError`s naming the file.
    func writing<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(body)
        } catch let error as DatabaseError {
            throw CloudError.io("\(path): \(error.message ?? "\(error.resultCode)")")
        }
    }
}
