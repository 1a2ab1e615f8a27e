import CloudCore
import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

@testable import CloudService

/// A data folder belongs to one index: a second server with another index, or a second SQLite
/// server, refuses to start before it touches anything, and the server using the folder loses nothing.
final class DataFolderOwnerTests: XCTestCase {
    func testASecondSQLiteServerRefusesToStartAndTheFirstLosesNothing() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        let captures = harness.data.appendingPathComponent("captures")
        let id: String = try await harness.test(.live) { client in
            let stored = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(stored.status, .created, String(buffer: stored.body))
            let id = try XCTUnwrap(try stored.json()["id"] as? String)
            do {
                _ = try await CloudServer.application(harness.configuration, logger: harness.logger)
                XCTFail("a second SQLite server started on a folder in use")
            } catch let error as CloudError {
                XCTAssertEqual(error.kind, .badInput)
                XCTAssertTrue(error.message.hasPrefix(harness.data.path + ": another cloudgen serve"), error.message)
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: captures.path), [id])
            let cloud = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(cloud.status, .ok, "the first server still serves the capture")
            return id
        }
        // The folder is free once its server has stopped, and its next server has the capture.
        try await harness.test(.router) { client in
            let document = try await client.execute(uri: "/v1/captures/\(id)", method: .get)
            XCTAssertEqual(document.status, .ok, String(buffer: document.body))
        }
    }

    /// Replicas of one PostgreSQL index share the folder; a SQLite server, or a server on another
    /// database, is refused with the owner named, and the replicas' captures stay.
    func testAPostgreSQLFolderIsRefusedToSQLiteAndToAnotherDatabaseAndSharedByReplicas() async throws {
        let cluster = try TestPostgres.shared()
        let database = try cluster.makeDatabase().database
        let other = try cluster.makeDatabase().database
        let harness = try ServiceHarness { $0.index = cluster.url(database) }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        let captures = harness.data.appendingPathComponent("captures")
        try await harness.test(.live) { client in
            var ids: [String] = []
            for _ in 0..<3 {
                let stored = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
                XCTAssertEqual(stored.status, .created, String(buffer: stored.body))
                ids.append(try XCTUnwrap(try stored.json()["id"] as? String))
            }
            var sqlite = harness.configuration
            sqlite.index = nil
            var elsewhere = harness.configuration
            elsewhere.index = cluster.url(other)
            for (name, configuration, expected) in [
                ("SQLite", sqlite, "replicas of the PostgreSQL index in database '\(database)'"),
                ("another database", elsewhere, "belongs to the PostgreSQL index in database '\(database)'")
            ] {
                do {
                    _ = try await CloudServer.application(configuration, logger: harness.logger)
                    XCTFail("\(name): a server started on a folder of another index")
                } catch let error as CloudError {
                    XCTAssertTrue(error.message.hasPrefix(harness.data.path + ": "), "\(name): \(error.message)")
                    XCTAssertTrue(error.message.contains(expected), "\(name): \(error.message)")
                }
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: captures.path).sorted(), ids.sorted())
            // Another replica of the same database shares the folder, and sees every capture.
            var replica = harness.configuration
            replica.port = 0
            let second = try await CloudServer.application(replica, logger: harness.logger)
            let stored = ids
            try await second.test(.router) { other in
                for id in stored {
                    let cloud = try await other.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
                    XCTAssertEqual(cloud.status, .ok, "replica: \(id)")
                }
            }
            for id in ids {
                let cloud = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
                XCTAssertEqual(cloud.status, .ok, id)
            }
        }
        // With every replica stopped the folder still belongs to the database: SQLite is refused.
        var sqlite = harness.configuration
        sqlite.index = nil
        do {
            _ = try await CloudServer.application(sqlite, logger: harness.logger)
            XCTFail("a SQLite server took a PostgreSQL index's folder")
        } catch let error as CloudError {
            XCTAssertTrue(error.message.contains("belongs to the PostgreSQL index in database '\(database)'"), error.message)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: captures.path).count, 3)
    }

    /// A folder from before owners were recorded is told by what is in it.
    func testAFolderWithoutARecordedOwnerIsToldByItsContents() throws {
        let root = try scratchFolder()
        let captures = root.appendingPathComponent("captures/0000000000000000000000000a")
        try FileManager.default.createDirectory(at: captures, withIntermediateDirectories: true)
        // Captures without an index.sqlite were indexed elsewhere.
        XCTAssertThrowsError(try DataFolderClaim.take(root, for: .sqlite)) { error in
            XCTAssertTrue("\(error)".contains("a PostgreSQL index"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent(DataFolderClaim.ownerFileName).path))
        let postgres = DataFolderOwner.postgresql(system: "7300000000000000001", database: "scans")
        XCTAssertEqual(try DataFolderClaim.take(root, for: postgres).owner, postgres)
        XCTAssertEqual(try DataFolderClaim.recordedOwner(in: root), postgres)
        // An index.sqlite beside captures is SQLite's.
        let other = try scratchFolder()
        try FileManager.default.createDirectory(
            at: other.appendingPathComponent("captures/0000000000000000000000000b"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: other.appendingPathComponent("index.sqlite").path, contents: Data())
        XCTAssertThrowsError(try DataFolderClaim.take(other, for: postgres)) { error in
            XCTAssertTrue("\(error)".contains("its own SQLite index"), "\(error)")
        }
        XCTAssertNoThrow(try DataFolderClaim.take(other, for: .sqlite))
        // A record that is not one is refused, not overwritten.
        let lying = try scratchFolder()
        try Data(#"{"index":"mysql"}"#.utf8).write(to: lying.appendingPathComponent(DataFolderClaim.ownerFileName))
        XCTAssertThrowsError(try DataFolderClaim.take(lying, for: .sqlite)) { error in
            XCTAssertTrue("\(error)".contains("owner.json: not the record"), "\(error)")
        }
    }
}
