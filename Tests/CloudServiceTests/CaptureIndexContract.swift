import CloudCore
import CloudService
import Foundation
import SharedTestData
import XCTest

/// Where a contract test keeps its rows: opens index instances on one store (a file, a database),
/// so that what one wrote another reads, as after a restart or on another replica.
protocol IndexStorage: Sendable {
    /// What the index's errors name (the file's path, the database's address).
    var location: String { get }
    func open() async throws -> any CaptureIndex
    func close(_ index: any CaptureIndex) async throws
}

/// What every `CaptureIndex` does, whatever keeps its rows: `SQLiteIndexContractTests` and
/// `PostgresIndexContractTests` run each of these on their own storage, so that the shared index
/// answers exactly as the single-machine one does.
struct CaptureIndexContract {
    let storage: any IndexStorage

    func rowsSurviveClosingAndReopening() async throws {
        var index = try await storage.open()
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
        try await storage.close(index)

        index = try await storage.open()
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
        try await storage.close(index)
    }

    /// 250 captures made a second apart, inserted in random order, read in pages of 64: every one
    /// once, newest first, and a page after the oldest is empty.
    func pagesListNewestFirstWithoutGapsOrDuplicates() async throws {
        let index = try await storage.open()
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
        try await storage.close(index)
    }

    func deleteSaysWhetherThereWasARow() async throws {
        let index = try await storage.open()
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
        try await storage.close(index)
    }

    func anIDIsInsertedOnce() async throws {
        let index = try await storage.open()
        let capture = StoreFixture.record(bytes: 5)
        try await index.insert(capture)
        do {
            try await index.insert(capture)
            XCTFail("a second row with the same id was accepted")
        } catch let error as CloudError {
            XCTAssertEqual(error.kind, .deviceOrIO)
            XCTAssertTrue(error.message.contains(storage.location), error.message)
        }
        let count = try await index.count()
        XCTAssertEqual(count, 1)
        try await storage.close(index)
    }

    /// Jobs a stopped server left queued or running fail as interrupted at the next start, or,
    /// with a shared index, are taken over by the next server to claim them (each by one, queued
    /// again from nothing); the finished ones, and the progress made, stay as they were.
    func unfinishedJobsOfAStoppedServerAreInterruptedOrTakenOver() async throws {
        let before = try await storage.open()
        let then = Date(timeIntervalSince1970: 1_764_000_000)
        var running = JobRecord(id: JobID(), state: .queued, created: then, updated: then)
        let queued = JobRecord(id: JobID(), state: .queued, created: then, updated: then)
        let failed = JobRecord(id: JobID(), state: .failed, created: then, updated: then, problem: #"{"title":"bad bundle"}"#)
        let succeeded = JobRecord(
            id: JobID(), state: .succeeded, created: then, updated: then, framesDone: 4, framesTotal: 4,
            captureID: CaptureID())
        for job in [running, queued, failed, succeeded] { try await before.insertJob(job) }
        running.state = .running
        running.framesDone = 2
        running.framesTotal = 5
        running.updated = then.addingTimeInterval(1)
        let updated = try await before.updateJob(running)
        XCTAssertTrue(updated)
        let storedRunning = try await before.job(running.id)
        XCTAssertEqual(storedRunning, running)
        let updatedUnknown = try await before.updateJob(JobRecord(id: JobID(), state: .running, created: then, updated: then))
        XCTAssertFalse(updatedUnknown)
        try await storage.close(before)

        let index = try await storage.open()
        let restart = then.addingTimeInterval(60)
        if index.isShared {
            try await takeOver([running, queued], by: index, at: restart)
            try await storage.close(index)
            return
        }
        let claimed = try await index.claimAbandonedJob(at: restart)
        XCTAssertNil(claimed, "an index of one server has no other server's jobs")
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
        let holdsFailed = try await index.holdsJob(running.id)
        XCTAssertFalse(holdsFailed, "a failed job is no one's to run")
        try await storage.close(index)
    }

    /// A shared index's unfinished `jobs`, whose server stopped: each claimed once, oldest first,
    /// queued again with its progress cleared; then held by the claimer, and not interrupted.
    private func takeOver(_ jobs: [JobRecord], by index: any CaptureIndex, at date: Date) async throws {
        var claimed: [JobRecord] = []
        while let job = try await index.claimAbandonedJob(at: date) {
            claimed.append(job)
            XCTAssertLessThanOrEqual(claimed.count, jobs.count, "a job claimed twice")
            if claimed.count > jobs.count { break }
        }
        XCTAssertEqual(Set(claimed.map(\.id)), Set(jobs.map(\.id)))
        for job in claimed {
            XCTAssertEqual(job.state, .queued)
            XCTAssertEqual(job.framesDone, 0)
            XCTAssertNil(job.framesTotal)
            XCTAssertEqual(job.updated, date)
            let held = try await index.holdsJob(job.id)
            XCTAssertTrue(held)
        }
        let interrupted = try await index.markUnfinishedJobsInterrupted(at: date)
        XCTAssertEqual(interrupted, 0, "jobs a live server holds are not interrupted")
    }

    /// Jobs newest first, a page at a time after the previous page's last id, in the states asked for.
    func jobsAreListedNewestFirstByStateAcrossPages() async throws {
        let index = try await storage.open()
        let start = Date(timeIntervalSince1970: 1_764_000_000)
        let jobs = (0..<9).map { i in
            let created = start.addingTimeInterval(Double(i))
            let state: JobRecord.State = [.succeeded, .failed, .queued, .running][i % 4]
            return JobRecord(id: JobID(date: created), state: state, created: created, updated: created)
        }
        for job in jobs.shuffled() { try await index.insertJob(job) }
        func pages(_ states: Set<JobRecord.State>, limit: Int) async throws -> [JobRecord] {
            var listed: [JobRecord] = []
            var after: JobID?
            while true {
                let page = try await index.listJobs(limit: limit, after: after, states: states)
                XCTAssertLessThanOrEqual(page.count, limit)
                if page.isEmpty { return listed }
                listed += page
                after = page.last?.id
            }
        }
        let all = try await pages([], limit: 4)
        XCTAssertEqual(all, jobs.reversed())
        for states: Set<JobRecord.State> in [[.failed], [.queued, .running], [.succeeded, .failed, .queued, .running]] {
            let listed = try await pages(states, limit: 2)
            XCTAssertEqual(listed, jobs.reversed().filter { states.contains($0.state) }, "\(states)")
        }
        let none = try await index.listJobs(limit: 0, after: nil, states: [])
        XCTAssertEqual(none, [])
        try await storage.close(index)
    }

    /// Every order, paged two at a time through anchors, against the order the records imply; the
    /// text search (ASCII case folded, no wildcards, in name, note, source and file names) and the
    /// tags (all of them), alone, together and across pages.
    func searchTagsAndEveryOrderPageThroughAnchors() async throws {
        let index = try await storage.open()
        let start = Date(timeIntervalSince1970: 1_764_000_000)
        let labels: [(name: String?, tags: [String], note: String?, files: [String: String])] = [
            ("delta", ["kitchen", "floor1"], nil, ["depth": "TUM_depth.png"]),
            ("Alpha", ["kitchen"], "near the Window", [:]),
            ("Delta", ["floor1"], nil, ["depth": "tum_DEPTH.png", "color": "c.jpg"]),
            (nil, ["kitchen", "floor1", "wide"], nil, [:]),
            ("bravo 100% a_b\\c", [], "Ünïcode Note", [:]),
            ("échelle", ["floor1"], nil, [:])
        ]
        var records: [CaptureRecord] = []
        for (i, label) in labels.enumerated() {
            let created = start.addingTimeInterval(Double(i))
            var record = StoreFixture.record(CaptureID(date: created), created: created, bytes: [30, 15, 45, 15, 60, 0][i])
            record.labels = CaptureLabels(name: label.name, tags: label.tags, note: label.note)
            record.uploadedFiles = label.files
            records.append(record)
        }
        for record in records.shuffled() { try await index.insert(record) }
        let ids = records.map(\.id)

        // SQLite's NOCASE folds ASCII only: "échelle" sorts after every ASCII name, by its bytes.
        func key(_ record: CaptureRecord, _ sort: CaptureQuery.Sort) -> String {
            switch sort {
            case .name, .nameDescending: return String((record.labels.name ?? "").map { $0.isASCII ? Character($0.lowercased()) : $0 })
            case .points, .mostPoints: return String(format: "%012d", record.points)
            case .created, .newest: return record.id.rawValue
            }
        }
        func pages(_ query: CaptureQuery) async throws -> [CaptureID] {
            var query = query
            var listed: [CaptureID] = []
            for _ in 0..<20 {
                let page = try await index.list(query)
                if page.isEmpty { break }
                listed += page.map(\.id)
                query.after = page.last?.id
            }
            return listed
        }
        for sort in CaptureQuery.Sort.allCases {
            // By the key's bytes (as both indexes compare), then by id.
            var expected = records.sorted { a, b in
                let (keyA, keyB) = (Array(key(a, sort).utf8), Array(key(b, sort).utf8))
                return keyA == keyB ? a.id < b.id : keyA.lexicographicallyPrecedes(keyB)
            }.map(\.id)
            if sort.rawValue.hasPrefix("-") { expected.reverse() }
            let listed = try await pages(CaptureQuery(limit: 2, sort: sort))
            XCTAssertEqual(listed, expected, sort.rawValue)
        }
        // Ties on the key (two 15-point captures, "delta" and "Delta") go by id.
        let byPoints = try await pages(CaptureQuery(limit: 1, sort: .points))
        XCTAssertEqual(Array(byPoints.prefix(3)), [ids[5], ids[1], ids[3]])

        let searches: [(text: String, expected: [Int])] = [
            ("ALPH", [1]), ("window", [1]), ("tum_depth", [2, 0]), ("color", [2]), ("synthetic:seed=15", [3, 1]),
            ("100%", [4]), ("a_b\\c", [4]), ("lph_", []), ("%", [4]), ("_", [4, 2, 0]), ("ünïcode", []), ("Ünïcode", [4])
        ]
        for (text, expected) in searches {
            let found = try await pages(CaptureQuery(limit: 2, text: text))
            XCTAssertEqual(found, expected.map { ids[$0] }, text)
        }
        let both = try await pages(CaptureQuery(limit: 1, sort: .name, tags: ["kitchen", "floor1"]))
        XCTAssertEqual(both, [ids[3], ids[0]])
        let repeated = try await pages(CaptureQuery(limit: 5, tags: ["floor1", "floor1"]))
        XCTAssertEqual(repeated, [ids[5], ids[3], ids[2], ids[0]])
        let kitchenAlpha = try await pages(CaptureQuery(limit: 5, text: "alpha", tags: ["kitchen"]))
        XCTAssertEqual(kitchenAlpha, [ids[1]])
        let unknownTag = try await pages(CaptureQuery(limit: 5, tags: ["kitchen", "attic"]))
        XCTAssertEqual(unknownTag, [])
        try await storage.close(index)
    }

    /// PATCH's labels: replaced together, counted in the revision, and searched by their new value only.
    func labelUpdatesReplaceNameTagsAndNoteAndCountTheChange() async throws {
        let index = try await storage.open()
        var record = StoreFixture.record(bytes: 7)
        record.labels = CaptureLabels(name: "first", tags: ["old", "kept"], note: "a note")
        try await index.insert(record)
        let labels = CaptureLabels(name: "second", tags: ["kept", "new"], note: nil)
        let updated = try await index.updateLabels(record.id, labels)
        var expected = record
        expected.labels = labels
        expected.revision = 1
        XCTAssertEqual(updated, expected)
        let stored = try await index.capture(record.id)
        XCTAssertEqual(stored, expected)
        let again = try await index.updateLabels(record.id, labels)
        XCTAssertEqual(again?.revision, 2)
        for (tag, found) in [("old", false), ("kept", true), ("new", true)] {
            let listed = try await index.list(CaptureQuery(limit: 5, tags: [tag])).map(\.id)
            XCTAssertEqual(listed, found ? [record.id] : [], tag)
        }
        let byOldName = try await index.list(CaptureQuery(limit: 5, text: "first"))
        XCTAssertEqual(byOldName, [])
        let unknown = try await index.updateLabels(CaptureID(), labels)
        XCTAssertNil(unknown)
        // A deleted capture takes its tags with it.
        _ = try await index.delete(record.id)
        let tagged = try await index.list(CaptureQuery(limit: 5, tags: ["kept"]))
        XCTAssertEqual(tagged, [])
        try await storage.close(index)
    }
}
