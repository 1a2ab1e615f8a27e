import CloudService
import Foundation
import XCTest

/// An index written by the first schema (before names, tags, notes and file names) opens with
/// its captures and jobs intact, and they take labels afterwards.
final class IndexMigrationTests: XCTestCase {
    /// The first schema as GRDB left it: the tables of migration "v1" and its migrations table,
    /// with a capture and a job as that version wrote them.
    private static let firstSchema = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1');
        CREATE TABLE capture (
            id TEXT NOT NULL PRIMARY KEY, created INTEGER NOT NULL, source TEXT NOT NULL, points INTEGER NOT NULL,
            minX REAL, minY REAL, minZ REAL, maxX REAL, maxY REAL, maxZ REAL,
            bytes INTEGER NOT NULL, frames INTEGER NOT NULL, report TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE job (
            id TEXT NOT NULL PRIMARY KEY,
            state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
            created INTEGER NOT NULL, updated INTEGER NOT NULL, framesDone INTEGER NOT NULL, framesTotal INTEGER,
            captureID TEXT, problem TEXT
        ) WITHOUT ROWID;
        CREATE INDEX job_unfinished ON job (state) WHERE state IN ('queued', 'running');
        INSERT INTO capture VALUES ('06f1r8h2k3m4n5p6q7r8s9t0vw', 1764000000123, 'rgbd:color,depth', 1234,
                                    -1.5, -0.25, 0.5, 2, 1.125, 4.75, 20000, 1, '{"id":"06f1r8h2k3m4n5p6q7r8s9t0vw","points":1234}');
        INSERT INTO capture VALUES ('06f1r8h2k3m4n5p6q7r8s9t0wx', 1764000000456, 'synthetic:seed=3', 0,
                                    NULL, NULL, NULL, NULL, NULL, NULL, 300, 2, '{"points":0}');
        INSERT INTO job VALUES ('06f1r8h2k3m4n5p6q7r8s9t0xy', 'succeeded', 1764000000000, 1764000000456, 5, 5,
                                '06f1r8h2k3m4n5p6q7r8s9t0wx', NULL);
        """

    func testAnIndexOfTheFirstSchemaOpensWithItsCapturesAndTakesLabels() async throws {
        let path = try scratchFolder().appendingPathComponent("index.sqlite").path
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", path, Self.firstSchema]
        try sqlite.run()
        sqlite.waitUntilExit()
        XCTAssertEqual(sqlite.terminationStatus, 0)

        let index = try SQLiteCaptureIndex(path: path)
        let first = try XCTUnwrap(CaptureID(validating: "06f1r8h2k3m4n5p6q7r8s9t0vw"))
        let second = try XCTUnwrap(CaptureID(validating: "06f1r8h2k3m4n5p6q7r8s9t0wx"))
        let ids = try await index.allIDs()
        XCTAssertEqual(ids, [first, second])
        let kept = try await index.capture(first)
        XCTAssertEqual(
            kept,
            CaptureRecord(
                id: first, created: Date(timeIntervalSince1970: 1_764_000_000.123), source: "rgbd:color,depth",
                points: 1234, bounds: .init(min: SIMD3(-1.5, -0.25, 0.5), max: SIMD3(2, 1.125, 4.75)),
                bytes: 20000, frames: 1, report: #"{"id":"06f1r8h2k3m4n5p6q7r8s9t0vw","points":1234}"#))
        let job = try await index.job(try XCTUnwrap(JobID(validating: "06f1r8h2k3m4n5p6q7r8s9t0xy")))
        XCTAssertEqual(job?.captureID, second)

        let labelled = try await index.updateLabels(second, CaptureLabels(name: "old room", tags: ["legacy"], note: nil))
        XCTAssertEqual(labelled?.labels.name, "old room")
        XCTAssertEqual(labelled?.revision, 1)
        let tagged = try await index.list(CaptureQuery(limit: 10, tags: ["legacy"]))
        XCTAssertEqual(tagged.map(\.id), [second])
        let byPoints = try await index.list(CaptureQuery(limit: 10, sort: .mostPoints))
        XCTAssertEqual(byPoints.map(\.id), [first, second])
        // Deleting a capture takes its tags along.
        _ = try await index.delete(second)
        let none = try await index.list(CaptureQuery(limit: 10, tags: ["legacy"]))
        XCTAssertEqual(none, [])
        try index.close()

        // Opened again, the migration is not run twice.
        let reopened = try SQLiteCaptureIndex(path: path)
        let count = try await reopened.count()
        XCTAssertEqual(count, 1)
        try reopened.close()
    }
}
