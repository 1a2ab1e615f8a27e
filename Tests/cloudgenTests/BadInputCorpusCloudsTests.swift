import XCTest

/// The bad-input corpus's cloud files (BadInputCorpus+Clouds.swift).
final class BadInputCorpusCloudsTests: XCTestCase {
    func testCloudFiles() throws {
        // The count Docs/reliability.md's table states.
        XCTAssertEqual(BadInputCorpus.clouds.count, 88)
        try BadInputCorpus.check(BadInputCorpus.clouds)
    }

    func testCloudsTooLargeForMemory() throws {
        try BadInputCorpus.check(BadInputCorpus.cloudsTooLarge)
        try BadInputCorpus.check(BadInputCorpus.cloudsTooLargeToFilter)
    }
}
