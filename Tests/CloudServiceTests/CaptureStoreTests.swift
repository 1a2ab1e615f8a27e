import CloudCore
import CloudService
import Foundation
import SharedTestData
import XCTest

final class CaptureStoreTests: XCTestCase {
    func testCommitPutsTheFilesInPlaceThenTheRow() async throws {
        let root = try scratchFolder()
        let store = try CaptureStore(root: root)
        XCTAssertEqual(
            try StoreFixture.entries(root),
            ["captures", "index.sqlite", "index.sqlite-shm", "index.sqlite-wal", "jobs", "staging", "uploads"])
        let record = try await StoreFixture.commitCapture(store)
        let problems = try await StoreFixture.problems(record.id, in: store)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(store.folder(record.id)?.path, root.appendingPathComponent("captures/\(record.id)").path)
        XCTAssertEqual(try StoreFixture.entries(store.staging), [], "the staging folder moved, not copied")
        XCTAssertNil(store.folder(CaptureID()))
    }

    func testAStagingFolderWithoutItsCloudIsNotCommitted() async throws {
        let store = try CaptureStore(root: try scratchFolder())
        let folder = try store.makeStaging()
        try Data("not a cloud".utf8).write(to: folder.appendingPathComponent("preview.png"))
        let record = StoreFixture.record(bytes: 3)
        do {
            try await store.commit(staging: folder, record: record)
            XCTFail("committed a capture without its cloud")
        } catch let error as CloudError {
            XCTAssertTrue(error.message.contains(CaptureStore.cloudFileName), error.message)
        }
        let storedCapture = try await store.index.capture(record.id)
        XCTAssertNil(storedCapture)
        XCTAssertEqual(try StoreFixture.entries(store.captures), [])
        XCTAssertEqual(try StoreFixture.entries(store.staging), [], "the failed capture's files are removed")
    }

    /// Only the folders `makeStaging` makes are committed or abandoned, never a path elsewhere.
    func testOnlyStagingFoldersAreTakenOrRemoved() async throws {
        let root = try scratchFolder()
        let store = try CaptureStore(root: root)
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
        try Data("cloud".utf8).write(to: elsewhere.appendingPathComponent(CaptureStore.cloudFileName))
        for folder in [elsewhere, store.staging.appendingPathComponent("../elsewhere"), store.staging, store.captures] {
            do {
                try await store.commit(staging: folder, record: StoreFixture.record(bytes: 5))
                XCTFail("committed \(folder.path)")
            } catch let error as CloudError {
                XCTAssertTrue(error.message.contains("not a staging folder"), error.message)
            }
            store.abandon(staging: folder)
        }
        XCTAssertEqual(try StoreFixture.entries(elsewhere), [CaptureStore.cloudFileName])
        XCTAssertEqual(
            try StoreFixture.entries(root),
            ["captures", "elsewhere", "index.sqlite", "index.sqlite-shm", "index.sqlite-wal", "jobs", "staging", "uploads"])
        let count = try await store.index.count()
        XCTAssertEqual(count, 0)
    }

    /// A row that cannot be inserted (here: its id is taken) takes its just-renamed folder with it.
    func testAFailedRowInsertRemovesTheFolder() async throws {
        let store = try CaptureStore(root: try scratchFolder())
        let first = try await StoreFixture.commitCapture(store)
        try FileManager.default.removeItem(at: XCTUnwrap(store.folder(first.id)))
        let folder = try store.makeStaging()
        try Data("cloud".utf8).write(to: folder.appendingPathComponent(CaptureStore.cloudFileName))
        do {
            try await store.commit(staging: folder, record: first)
            XCTFail("a second row with the same id was accepted")
        } catch is CloudError {}
        XCTAssertEqual(try StoreFixture.entries(store.captures), [])
        XCTAssertEqual(try StoreFixture.entries(store.staging), [])
    }

    func testRemoveDeletesRowAndFolder() async throws {
        let store = try CaptureStore(root: try scratchFolder())
        let kept = try await StoreFixture.commitCapture(store)
        let removed = try await StoreFixture.commitCapture(store)
        let removedRow = try await store.remove(removed.id)
        XCTAssertTrue(removedRow)
        let storedCapture = try await store.index.capture(removed.id)
        XCTAssertNil(storedCapture)
        XCTAssertNil(store.folder(removed.id))
        XCTAssertEqual(try StoreFixture.entries(store.captures), [kept.id.rawValue])
        XCTAssertEqual(try StoreFixture.entries(store.staging), [], "the trash is emptied")
        let removedAgain = try await store.remove(removed.id)
        XCTAssertFalse(removedAgain)
        let removedUnknown = try await store.remove(CaptureID())
        XCTAssertFalse(removedUnknown)
        let problems = try await StoreFixture.problems(kept.id, in: store)
        XCTAssertEqual(problems, [])
    }

    /// Every state a stop can leave, crafted by hand, and the report that says what was mended.
    func testReconcileMendsEveryLeftoverState() async throws {
        let root = try scratchFolder()
        var store = try CaptureStore(root: root)
        let complete = try await StoreFixture.commitCapture(store)
        // A commit stopped after its rename, before its row; and a folder that is no capture at all.
        let orphan = try await StoreFixture.commitCapture(store)
        let deleted = try await store.index.delete(orphan.id)
        XCTAssertTrue(deleted)
        try FileManager.default.createDirectory(at: store.captures.appendingPathComponent("not-an-id"), withIntermediateDirectories: false)
        // A row whose folder is gone, and one whose folder lost its cloud.
        try await store.index.insert(StoreFixture.record(bytes: 77))
        let cloudless = try await StoreFixture.commitCapture(store)
        try FileManager.default.removeItem(at: XCTUnwrap(store.folder(cloudless.id)).appendingPathComponent(CaptureStore.cloudFileName))
        // Half-written captures and a request body.
        try Data("half".utf8).write(to: store.makeStaging().appendingPathComponent(CaptureStore.cloudFileName))
        _ = try store.makeStaging()
        try Data("body".utf8).write(to: store.uploads.appendingPathComponent("upload-1"))
        // Jobs cut short, and finished ones that stay as they are.
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        let running = JobRecord(id: JobID(), state: .running, created: now, updated: now, framesDone: 1, framesTotal: 3)
        let queued = JobRecord(id: JobID(), state: .queued, created: now, updated: now)
        let done = JobRecord(
            id: JobID(), state: .succeeded, created: now, updated: now, framesDone: 3, framesTotal: 3, captureID: complete.id)
        for job in [running, queued, done] { try await store.index.insertJob(job) }
        // The folder of the job cut short, and one its replica did not get to remove.
        for job in [running, done] {
            try FileManager.default.createDirectory(at: store.jobFolder(job.id), withIntermediateDirectories: false)
            try Data("zip".utf8).write(to: store.jobFolder(job.id).appendingPathComponent("bundle"))
        }
        try (store.index as? SQLiteCaptureIndex)?.close()

        store = try CaptureStore(root: root)
        let report = try await store.reconcile()
        XCTAssertEqual(
            report,
            ReconcileReport(
                stagingRemoved: 2, uploadsRemoved: 1, orphansRemoved: 2, rowsRepaired: 2, jobsInterrupted: 2, jobFoldersRemoved: 2))
        let allIDs = try await store.index.allIDs()
        XCTAssertEqual(allIDs, [complete.id])
        XCTAssertEqual(try StoreFixture.entries(store.captures), [complete.id.rawValue])
        XCTAssertEqual(try StoreFixture.entries(store.staging), [])
        XCTAssertEqual(try StoreFixture.entries(store.uploads), [])
        XCTAssertEqual(try StoreFixture.entries(store.jobs), [])
        let problems = try await StoreFixture.problems(complete.id, in: store)
        XCTAssertEqual(problems, [])
        for job in [running, queued] {
            let stored = try await store.index.job(job.id)
            XCTAssertEqual(stored?.state, .failed)
            XCTAssertEqual(stored?.problem, JobRecord.interruptedProblem)
        }
        let storedDone = try await store.index.job(done.id)
        XCTAssertEqual(storedDone, done)
        let secondReport = try await store.reconcile()
        XCTAssertEqual(secondReport, ReconcileReport(), "a second pass finds nothing to mend")
        XCTAssertEqual(
            report.description,
            "2 staging and 1 upload leftovers removed, 2 orphan folders removed, 2 rows without files repaired, 2 jobs interrupted, "
                + "2 folders of ended jobs removed")
    }

    /// 8 tasks committing 50 captures each into one store at once: every row, every folder, every byte.
    func testConcurrentCommitsAllLand() async throws {
        let store = try CaptureStore(root: try scratchFolder())
        let ids = try await withThrowingTaskGroup(of: [CaptureID].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var ids: [CaptureID] = []
                    for _ in 0..<50 { ids.append(try await StoreFixture.commitCapture(store).id) }
                    return ids
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertEqual(Set(ids).count, 400)
        let count = try await store.index.count()
        XCTAssertEqual(count, 400)
        let allIDs = try await store.index.allIDs()
        XCTAssertEqual(allIDs, ids.sorted())
        XCTAssertEqual(try StoreFixture.entries(store.captures), ids.map(\.rawValue).sorted())
        for id in ids {
            let problems = try await StoreFixture.problems(id, in: store)
            XCTAssertEqual(problems, [])
        }
        XCTAssertEqual(try StoreFixture.entries(store.staging), [])
    }

    func testAFileWhereTheDataFolderGoesIsRefused() throws {
        let root = try scratchFolder().appendingPathComponent("data")
        _ = FileManager.default.createFile(atPath: root.path, contents: Data("x".utf8))
        assertCloudError(.badInput, naming: root.path) { try CaptureStore(root: root) }
    }
}
