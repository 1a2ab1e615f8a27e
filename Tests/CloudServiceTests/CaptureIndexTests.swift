import CloudCore
import CloudService
import Foundation
import SharedTestData
import XCTest

final class CaptureIndexTests: XCTestCase {
    private func openIndex(_ folder: URL) throws -> SQLiteCaptureIndex {
        try SQLiteCaptureIndex(path: folder.appendingPathComponent("index.sqlite").path)
    }

    /// SQLite marks a WAL database in its file header (bytes 18 and 19, the write and read format
    /// versions, are 2; 1 in rollback mode), and keeps the log beside it while open.
    func testIndexIsInWALMode() async throws {
        let folder = try scratchFolder()
        let index = try openIndex(folder)
        try await index.insert(StoreFixture.record(bytes: 10))
        let header = try XCTUnwrap(FileManager.default.contents(atPath: index.path)).prefix(20)
        XCTAssertEqual(String(decoding: header.prefix(15), as: UTF8.self), "SQLite format 3")
        XCTAssertEqual(Array(header.suffix(2)), [2, 2])
        XCTAssertTrue(FileManager.default.fileExists(atPath: index.path + "-wal"))
        try index.close()
    }

    func testRowsSurviveClosingAndReopening() async throws {
        let folder = try scratchFolder()
        var index = try openIndex(folder)
        let captures = [StoreFixture.record(bytes: 1001), StoreFixture.record(bytes: 1002), StoreFixture.record(bytes: 0)]
        for capture in captures { try await index.insert(capture) }
        let created = Date(timeIntervalSince1970: 1_764_000_000.123_456)
        let jobs = [
            JobRecord(
                id: JobID(), state: .running, created: created, updated: created.addingTimeInterval(2), framesDone: 3, framesTotal: 9),
            JobRecord(
                id: JobID(), state: .succeeded, created: created, updated: created, framesDone: 9, framesTotal: 9,
                captureID: captures[0].id),
            JobRecord(id: JobID(), state: .queued, created: created, updated: created)
        ]
        for job in jobs { try await index.insertJob(job) }
        try index.close()

        index = try openIndex(folder)
        for capture in captures {
            let stored = try await index.capture(capture.id)
            XCTAssertEqual(stored, capture)
        }
        XCTAssertNotNil(captures[0].bounds)
        let emptyBounds = try await index.capture(captures[2].id)?.bounds
        XCTAssertNil(emptyBounds, "an empty cloud's bounds stay nil")
        for job in jobs {
            let stored = try await index.job(job.id)
            XCTAssertEqual(stored, job)
        }
        let count = try await index.count()
        XCTAssertEqual(count, 3)
        let allIDs = try await index.allIDs()
        XCTAssertEqual(allIDs, captures.map(\.id).sorted())
        let unknownCapture = try await index.capture(CaptureID())
        XCTAssertNil(unknownCapture)
        let unknownJob = try await index.job(JobID())
        XCTAssertNil(unknownJob)
        try index.close()
    }

    /// 250 captures made a second apart, inserted in random order, read in pages of 64: every one
    /// once, newest first, and a page after the oldest is empty.
    func testPagesListNewestFirstWithoutGapsOrDuplicates() async throws {
        let index = try openIndex(try scratchFolder())
        let start = Date(timeIntervalSince1970: 1_764_000_000)
        let captures = (0..<250).map { i -> CaptureRecord in
            let created = start.addingTimeInterval(Double(i))
            return StoreFixture.record(CaptureID(date: created), created: created, bytes: i)
        }
        for capture in captures.shuffled() { try await index.insert(capture) }
        let count = try await index.count()
        XCTAssertEqual(count, 250)

        var listed: [CaptureRecord] = []
        var pages: [Int] = []
        var after: CaptureID? = nil
        while true {
            let page = try await index.list(limit: 64, after: after)
            if page.isEmpty { break }
            pages.append(page.count)
            listed += page
            after = page.last?.id
        }
        XCTAssertEqual(pages, [64, 64, 64, 58])
        XCTAssertEqual(listed, captures.reversed())
        XCTAssertEqual(Set(listed.map(\.id)).count, 250)
        let newest = try await index.list(limit: 10, after: nil).map(\.id)
        XCTAssertEqual(newest, captures.suffix(10).reversed().map(\.id))
        let nothing = try await index.list(limit: 0, after: nil)
        XCTAssertEqual(nothing, [])
        try index.close()
    }

    func testDeleteSaysWhetherThereWasARow() async throws {
        let index = try openIndex(try scratchFolder())
        let kept = StoreFixture.record(bytes: 5)
        let gone = StoreFixture.record(bytes: 6)
        try await index.insert(kept)
        try await index.insert(gone)
        let deleted = try await index.delete(gone.id)
        XCTAssertTrue(deleted)
        let deletedAgain = try await index.delete(gone.id)
        XCTAssertFalse(deletedAgain)
        let goneCapture = try await index.capture(gone.id)
        XCTAssertNil(goneCapture)
        let allIDs = try await index.allIDs()
        XCTAssertEqual(allIDs, [kept.id])
        try index.close()
    }

    func testAnIDIsInsertedOnce() async throws {
        let index = try openIndex(try scratchFolder())
        let capture = StoreFixture.record(bytes: 5)
        try await index.insert(capture)
        do {
            try await index.insert(capture)
            XCTFail("a second row with the same id was accepted")
        } catch let error as CloudError {
            XCTAssertTrue(error.message.contains(index.path), error.message)
        }
        let count = try await index.count()
        XCTAssertEqual(count, 1)
        try index.close()
    }

    func testUnfinishedJobsBecomeInterruptedFailures() async throws {
        let index = try openIndex(try scratchFolder())
        let then = Date(timeIntervalSince1970: 1_764_000_000)
        var running = JobRecord(id: JobID(), state: .queued, created: then, updated: then)
        let queued = JobRecord(id: JobID(), state: .queued, created: then, updated: then)
        let failed = JobRecord(id: JobID(), state: .failed, created: then, updated: then, problem: #"{"title":"bad bundle"}"#)
        let succeeded = JobRecord(
            id: JobID(), state: .succeeded, created: then, updated: then, framesDone: 4, framesTotal: 4,
            captureID: CaptureID())
        for job in [running, queued, failed, succeeded] { try await index.insertJob(job) }
        running.state = .running
        running.framesDone = 2
        running.framesTotal = 5
        running.updated = then.addingTimeInterval(1)
        let updated = try await index.updateJob(running)
        XCTAssertTrue(updated)
        let storedRunning = try await index.job(running.id)
        XCTAssertEqual(storedRunning, running)
        let updatedUnknown = try await index.updateJob(JobRecord(id: JobID(), state: .running, created: then, updated: then))
        XCTAssertFalse(updatedUnknown)

        let restart = then.addingTimeInterval(60)
        let interrupted = try await index.markUnfinishedJobsInterrupted(at: restart)
        XCTAssertEqual(interrupted, 2)
        for job in [running, queued] {
            let stored = try await index.job(job.id)
            XCTAssertEqual(stored?.state, .failed)
            XCTAssertEqual(stored?.problem, JobRecord.interruptedProblem)
            XCTAssertEqual(stored?.updated, restart)
            XCTAssertEqual(stored?.framesDone, job.framesDone, "the progress made stays visible")
        }
        let storedFailed = try await index.job(failed.id)
        XCTAssertEqual(storedFailed, failed)
        let storedSucceeded = try await index.job(succeeded.id)
        XCTAssertEqual(storedSucceeded, succeeded)
        let interruptedAgain = try await index.markUnfinishedJobsInterrupted(at: restart)
        XCTAssertEqual(interruptedAgain, 0)
        let problem = try JSONSerialization.jsonObject(with: Data(JobRecord.interruptedProblem.utf8)) as? [String: String]
        XCTAssertEqual(problem?["title"], "interrupted")
        try index.close()
    }

    func testAFileThatIsNotADatabaseIsRefusedNamingIt() throws {
        let path = try scratchFolder().appendingPathComponent("index.sqlite").path
        FileManager.default.createFile(atPath: path, contents: Data(String(repeating: "not a database\n", count: 300).utf8))
        assertCloudError(.badInput, naming: path, containing: "not an SQLite database") { try SQLiteCaptureIndex(path: path) }
        XCTAssertEqual(FileManager.default.contents(atPath: path)?.count, 15 * 300, "the file is left as it was")
    }

    /// A real index whose table pages were overwritten: its header is intact, so only the check
    /// at opening finds the damage, before any request would.
    func testADamagedDatabaseIsRefusedNamingIt() async throws {
        let folder = try scratchFolder()
        let index = try openIndex(folder)
        for i in 0..<300 { try await index.insert(StoreFixture.record(bytes: i)) }
        try index.close()
        let path = index.path
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        guard bytes.count > 8 * 4096 else { return XCTFail("the closed index holds only \(bytes.count) bytes") }
        var random = SplitMix64(seed: 11)
        for i in 4096..<(bytes.count - 4096) where i % 4096 < 512 { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
        try bytes.write(to: URL(fileURLWithPath: path))
        assertCloudError(.badInput, naming: path) { try SQLiteCaptureIndex(path: path) }
    }

    func testAMissingFolderIsAnIOErrorNamingTheFile() throws {
        let path = try scratchFolder().appendingPathComponent("no/such/index.sqlite").path
        assertCloudError(.deviceOrIO, naming: path) { try SQLiteCaptureIndex(path: path) }
    }
}
