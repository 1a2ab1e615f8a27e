import CloudService
import Foundation
import XCTest

/// `CaptureIndexContract` on the SQLite index: a file in a scratch folder.
final class SQLiteIndexContractTests: XCTestCase {
    private struct Storage: IndexStorage {
        let location: String
        func open() async throws -> any CaptureIndex { try SQLiteCaptureIndex(path: location) }
        func close(_ index: any CaptureIndex) async throws { try (index as? SQLiteCaptureIndex)?.close() }
    }

    private func contract() throws -> CaptureIndexContract {
        CaptureIndexContract(storage: Storage(location: try scratchFolder().appendingPathComponent("index.sqlite").path))
    }

    func testRowsSurviveClosingAndReopening() async throws { try await contract().rowsSurviveClosingAndReopening() }
    func testPagesListNewestFirstWithoutGapsOrDuplicates() async throws {
        try await contract().pagesListNewestFirstWithoutGapsOrDuplicates()
    }
    func testDeleteSaysWhetherThereWasARow() async throws { try await contract().deleteSaysWhetherThereWasARow() }
    func testAnIDIsInsertedOnce() async throws { try await contract().anIDIsInsertedOnce() }
    func testUnfinishedJobsOfAStoppedServerAreInterruptedOrTakenOver() async throws {
        try await contract().unfinishedJobsOfAStoppedServerAreInterruptedOrTakenOver()
    }
    func testJobsAreListedNewestFirstByStateAcrossPages() async throws { try await contract().jobsAreListedNewestFirstByStateAcrossPages() }
    func testSearchTagsAndEveryOrderPageThroughAnchors() async throws { try await contract().searchTagsAndEveryOrderPageThroughAnchors() }
    func testLabelUpdatesReplaceNameTagsAndNoteAndCountTheChange() async throws {
        try await contract().labelUpdatesReplaceNameTagsAndNoteAndCountTheChange()
    }
}

/// `CaptureIndexContract` on the PostgreSQL index: a fresh database of the run's cluster each.
final class PostgresIndexContractTests: XCTestCase {
    private struct Storage: IndexStorage {
        let address: PostgresIndexAddress
        var location: String { address.description }
        func open() async throws -> any CaptureIndex { try await PostgresCaptureIndex.open(address) }
        func close(_ index: any CaptureIndex) async throws { await (index as? PostgresCaptureIndex)?.close() }
    }

    private func contract() throws -> CaptureIndexContract {
        CaptureIndexContract(storage: Storage(address: try TestPostgres.shared().makeDatabase()))
    }

    func testRowsSurviveClosingAndReopening() async throws { try await contract().rowsSurviveClosingAndReopening() }
    func testPagesListNewestFirstWithoutGapsOrDuplicates() async throws {
        try await contract().pagesListNewestFirstWithoutGapsOrDuplicates()
    }
    func testDeleteSaysWhetherThereWasARow() async throws { try await contract().deleteSaysWhetherThereWasARow() }
    func testAnIDIsInsertedOnce() async throws { try await contract().anIDIsInsertedOnce() }
    func testUnfinishedJobsOfAStoppedServerAreInterruptedOrTakenOver() async throws {
        try await contract().unfinishedJobsOfAStoppedServerAreInterruptedOrTakenOver()
    }
    func testJobsAreListedNewestFirstByStateAcrossPages() async throws { try await contract().jobsAreListedNewestFirstByStateAcrossPages() }
    func testSearchTagsAndEveryOrderPageThroughAnchors() async throws { try await contract().searchTagsAndEveryOrderPageThroughAnchors() }
    func testLabelUpdatesReplaceNameTagsAndNoteAndCountTheChange() async throws {
        try await contract().labelUpdatesReplaceNameTagsAndNoteAndCountTheChange()
    }
}
