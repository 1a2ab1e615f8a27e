import XCTest

/// The bad-input corpus's cloud files (BadInputCorpus+Clouds.swift).
final class BadInputCorpusCloudsTests: XCTestCase {
    func testCloudFiles() throws {
        XCTAssertGreaterThanOrEqual(BadInputCorpus.clouds.count, 80)
        try BadInputCorpus.check(BadInputCorpus.clouds)
    }

    func testCloudsTooLargeForMemory() throws {
        try BadInputCorpus.check(BadInputCorpus.cloudsTooLarge)
        try BadInputCorpus.check(BadInputCorpus.cloudsTooLargeToFilter)
    }
}
