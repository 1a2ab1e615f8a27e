import CloudCore
import CloudService
import Foundation
import SharedTestData
import XCTest

/// What sharing the index between replicas adds to `CaptureIndexContract`: one migration for
/// replicas starting together, jobs a live replica runs left alone, leftovers that may be another
/// replica's kept, and addresses and databases that cannot serve refused clearly.
final class PostgresIndexTests: XCTestCase {
    /// Four replicas opening one fresh database at once: one applies each step, the others wait
    /// for it under the advisory lock and then find the schema in place (without the lock, the
    /// second CREATE TABLE fails and so does that replica's start).
    func testReplicasStartingTogetherMigrateOnce() async throws {
        let cluster = try TestPostgres.shared()
        let address = try cluster.makeDatabase()
        let replicas = try await withThrowingTaskGroup(of: PostgresCaptureIndex.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresCaptureIndex.open(address) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let applied = try cluster.select("SELECT version, applied_by FROM schema_migration ORDER BY version", in: address)
        XCTAssertEqual(applied.map { $0.split(separator: "|").first.map(String.init) }, ["1"])
        let appliers = Set(applied.compactMap { $0.split(separator: "|").last.map(String.init) })
        XCTAssertEqual(appliers.count, 1)
        XCTAssertTrue(Set(replicas.map(\.replica)).isSuperset(of: appliers), "\(appliers)")
        XCTAssertEqual(Set(replicas.map(\.replica)).count, 4, "each replica has an id of its own")
        // What one wrote, another reads.
        let record = StoreFixture.record(bytes: 9)
        try await replicas[0].insert(record)
        let read = try await replicas[3].capture(record.id)
        XCTAssertEqual(read, record)
        for replica in replicas { await replica.close() }
        let reopened = try await PostgresCaptureIndex.open(address)
        let count = try await reopened.count()
        XCTAssertEqual(count, 1)
        await reopened.close()
    }

    /// A replica's running job is not failed by another replica starting, as long as its owner
    /// renews the lease (here a one-second lease, renewed every third of it); once the owner
    /// stops, the job is failed at the next start-up (or the next sweep of a live replica).
    func testAJobIsInterruptedOnlyOnceItsReplicaStopped() async throws {
        let address = try TestPostgres.shared().makeDatabase()
        let owner = try await PostgresCaptureIndex.open(address, lease: .seconds(1))
        let renewing = Task { await owner.run() }
        let job = JobRecord(id: JobID(), state: .running, created: Date(), updated: Date(), framesDone: 1)
        try await owner.insertJob(job)
        try await Task.sleep(for: .milliseconds(1500))
        let starting = try await PostgresCaptureIndex.open(address)
        let interruptedWhileLive = try await starting.markUnfinishedJobsInterrupted(at: Date())
        XCTAssertEqual(interruptedWhileLive, 0, "the job's lease outlived its first term: renewed")
        let stillRunning = try await starting.job(job.id)
        XCTAssertEqual(stillRunning, job)

        renewing.cancel()
        await renewing.value
        let interrupted = try await starting.markUnfinishedJobsInterrupted(at: Date())
        XCTAssertEqual(interrupted, 1)
        let stored = try await starting.job(job.id)
        XCTAssertEqual(stored?.state, .failed)
        XCTAssertEqual(stored?.problem, JobRecord.interruptedProblem)
        await starting.close()
    }

    /// With a shared index, start-up removes only leftovers older than an hour: a younger staging
    /// folder, upload or folder without a row may be another replica's write in flight.
    func testStartUpKeepsRecentLeftoversThatMayBeAnotherReplicas() async throws {
        let root = try scratchFolder()
        let index = try await PostgresCaptureIndex.open(try TestPostgres.shared().makeDatabase())
        let store = try CaptureStore(root: root, index: index)
        let committed = try await StoreFixture.commitCapture(store)
        let hoursAgo = Date().addingTimeInterval(-2 * 3600)
        var old: [URL] = []
        var recent: [URL] = []
        for folder in [store.staging, store.uploads, store.captures] {
            for age in ["old", "recent"] {
                let item = folder.appendingPathComponent(folder == store.captures ? CaptureID().rawValue : "\(age)-\(UUID())")
                try FileManager.default.createDirectory(at: item, withIntermediateDirectories: false)
                try Data("partial".utf8).write(to: item.appendingPathComponent(CaptureStore.cloudFileName))
                if age == "old" {
                    try FileManager.default.setAttributes([.modificationDate: hoursAgo], ofItemAtPath: item.path)
                    old.append(item)
                } else {
                    recent.append(item)
                }
            }
        }
        let report = try await store.reconcile()
        XCTAssertEqual(report, ReconcileReport(stagingRemoved: 1, uploadsRemoved: 1, orphansRemoved: 1, leftoversKept: 3))
        for item in old { XCTAssertFalse(FileManager.default.fileExists(atPath: item.path), item.path) }
        for item in recent { XCTAssertTrue(FileManager.default.fileExists(atPath: item.path), item.path) }
        let problems = try await StoreFixture.problems(committed.id, in: store)
        XCTAssertEqual(problems, [])
        await index.close()
    }

    /// A database nothing listens for: the index does not open, and says where it looked, within
    /// its wait limit rather than the driver's minute of retries.
    func testAnUnreachableDatabaseIsAnIOErrorNamingIt() async throws {
        let address = try PostgresIndexAddress(parsing: "postgresql://cloudgen:secret@127.0.0.1:\(try TestPostgres.freePort())/nowhere")
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try await PostgresCaptureIndex.open(address, waitLimit: .milliseconds(500))
            XCTFail("opened an index nothing serves")
        } catch let error as CloudError {
            XCTAssertEqual(error.kind, .deviceOrIO)
            XCTAssertTrue(error.message.contains("postgresql://cloudgen@127.0.0.1:"), error.message)
            XCTAssertFalse(error.message.contains("secret"), error.message)
        }
        XCTAssertLessThan(clock.now - started, .seconds(5))
    }

    func testIndexAddressesAreReadAsLibpqWritesThemAndBadOnesRefused() throws {
        let full = try PostgresIndexAddress(parsing: "postgresql://scanner:p%2Fss@db.example:6543/clouds?sslmode=require")
        XCTAssertEqual(full.user, "scanner")
        XCTAssertEqual(full.password, "p/ss")
        XCTAssertEqual(full.host, "db.example")
        XCTAssertEqual(full.port, 6543)
        XCTAssertEqual(full.database, "clouds")
        XCTAssertEqual(full.tls, .require)
        XCTAssertEqual(full.description, "postgresql://scanner@db.example:6543/clouds", "never the password")
        let plain = try PostgresIndexAddress(parsing: "postgres://cloudgen@[::1]/index")
        XCTAssertEqual(plain.host, "::1")
        XCTAssertEqual(plain.port, 5432)
        XCTAssertNil(plain.password)
        XCTAssertEqual(plain.tls, .prefer)
        for (text, mention) in [
            ("sqlite:///tmp/x", "only postgresql://"), ("postgresql://db/clouds", "no user"), ("postgresql://u@/clouds", "no host"),
            ("postgresql://u@db", "no database"), ("postgresql://u:pw@db/clouds?sslmode=verify", "sslmode verify"),
            ("postgresql://u@db/clouds?connect_timeout=3", "unknown parameter connect_timeout"), ("not a url", "--index")
        ] {
            assertCloudError(.badInput, naming: "--index", containing: mention) { try PostgresIndexAddress(parsing: text) }
        }
        var configuration = ServiceConfiguration()
        configuration.index = "postgresql://u:hunter2@db/clouds?sslmode=maybe"
        assertCloudError(.badInput, naming: "postgresql://u:***@db/clouds", containing: "sslmode maybe") { try configuration.validate() }
    }
}
