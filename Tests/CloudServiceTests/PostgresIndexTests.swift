import CloudCore
import Foundation
import SharedTestData
import XCTest

@testable import CloudService

/// What sharing the index between replicas adds to `CaptureIndexContract`: one migration for
/// replicas starting together and for a database of an earlier release, jobs a live replica runs
/// left alone and a dead one's taken over, leftovers that may be another replica's kept, and
/// addresses and databases that cannot serve refused clearly.
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
        XCTAssertEqual(applied.map { $0.split(separator: "|").first.map(String.init) }, ["1", "2"])
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

    /// A replica's running job is left alone by the others as long as its owner renews the lease
    /// (here one second, renewed every third of it). One whose owner stopped renewing (it died, or
    /// stalled past its lease) is claimed by another replica, once: the owner's writes then change
    /// nothing, and it no longer holds the job. A job whose lease ran out on its last attempt
    /// (`JobRecord.maxAttempts`) is failed as interrupted instead of claimed again.
    func testAJobIsTakenOverOnceItsReplicaStopsRenewingAndFailsAfterItsLastAttempt() async throws {
        let address = try TestPostgres.shared().makeDatabase()
        let live = try await PostgresCaptureIndex.open(address, lease: .seconds(1))
        let renewing = Task { await live.run() }
        let kept = JobRecord(id: JobID(), state: .running, created: Date(), updated: Date(), framesDone: 1)
        try await live.insertJob(kept)
        let stalled = try await PostgresCaptureIndex.open(address, lease: .seconds(1))
        var job = JobRecord(id: JobID(), state: .running, created: Date(), updated: Date(), framesDone: 1)
        try await stalled.insertJob(job)

        let other = try await PostgresCaptureIndex.open(address, lease: .seconds(1))
        let claimed = try await firstClaim(by: other)
        XCTAssertEqual(claimed?.id, job.id, "the stalled replica's job, not the live one's")
        XCTAssertEqual(claimed?.state, .queued)
        let claimedAgain = try await other.claimAbandonedJob(at: Date())
        XCTAssertNil(claimedAgain, "each job is claimed once while its claimer holds it")
        job.state = .succeeded
        let stalledWrote = try await stalled.updateJob(job)
        XCTAssertFalse(stalledWrote, "a job taken over is no longer its first replica's to write")
        let stalledHolds = try await stalled.holdsJob(job.id)
        let otherHolds = try await other.holdsJob(job.id)
        XCTAssertEqual([stalledHolds, otherHolds], [false, true])
        let stored = try await other.job(job.id)
        XCTAssertEqual(stored?.state, .queued)

        // `other` stalls too, and a third replica claims the job on its last attempt; once that
        // lease runs out as well, the job fails rather than take a fourth replica down with it.
        let third = try await PostgresCaptureIndex.open(address, lease: .seconds(1))
        let lastAttempt = try await firstClaim(by: third)
        XCTAssertEqual(lastAttempt?.id, job.id)
        var interrupted = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while interrupted == 0 && ContinuousClock.now < deadline {
            let noMore = try await third.claimAbandonedJob(at: Date())
            XCTAssertNil(noMore, "a job on its last attempt is never claimed again")
            interrupted = try await third.markUnfinishedJobsInterrupted(at: Date())
            if interrupted == 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        XCTAssertEqual(interrupted, 1, "the last attempt's lease ran out within 20 s")
        let failed = try await third.job(job.id)
        XCTAssertEqual(failed?.state, .failed)
        XCTAssertEqual(failed?.problem, JobRecord.interruptedProblem)
        let stillRunning = try await third.job(kept.id)
        XCTAssertEqual(stillRunning, kept, "the live replica's job was never claimed nor failed")

        renewing.cancel()
        await renewing.value
        for index in [stalled, other, third] { await index.close() }
    }

    /// The first abandoned job `index` claims, asked again and again for up to 20 s: a lease runs
    /// out on the database's clock, which no sleep here can be sure to have passed.
    private func firstClaim(by index: PostgresCaptureIndex) async throws -> JobRecord? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let claimed = try await index.claimAbandonedJob(at: Date()) { return claimed }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// A database as the first release left it (schema version 1) with a job whose replica died
    /// meanwhile: the next release applies step 2 once as it opens it, and the old job, counted as
    /// tried once, is taken over like any other: the upgrade of a running deployment.
    func testADatabaseOfTheFirstSchemaIsMigratedAndItsJobsTakenOver() async throws {
        let cluster = try TestPostgres.shared()
        let address = try cluster.makeDatabase()
        let first = try XCTUnwrap(PostgresMigrations.steps.first { $0.version == 1 })
        let job = JobID()
        let previousRelease =
            [
                """
                CREATE TABLE schema_migration (
                    version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL)
                """
            ] + first.sql + [
                "INSERT INTO schema_migration (version, applied_by) VALUES (1, 'cloudgen 0.1.0')",
                """
                INSERT INTO job (id, state, created, updated, frames_done, frames_total, replica, lease_until)
                VALUES ('\(job.rawValue)', 'running', 1764000000000, 1764000000000, 3, 5, 'old/1/gone', now() - interval '1 minute')
                """
            ]
        _ = try cluster.select(previousRelease.joined(separator: ";\n"), in: address)

        let index = try await PostgresCaptureIndex.open(address)
        let versions = try cluster.select("SELECT version FROM schema_migration ORDER BY version", in: address)
        XCTAssertEqual(versions, ["1", "2"])
        let claimed = try await index.claimAbandonedJob(at: Date())
        XCTAssertEqual(claimed?.id, job)
        XCTAssertEqual(claimed?.framesDone, 0)
        let attempts = try cluster.select("SELECT attempts FROM job", in: address)
        XCTAssertEqual(attempts, ["2"])
        await index.close()
        let reopened = try await PostgresCaptureIndex.open(address)
        XCTAssertEqual(try cluster.select("SELECT count(*) FROM schema_migration", in: address), ["2"], "each step once")
        await reopened.close()
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
