import XCTest

/// The bad-input corpus's outputs and flags table (BadInputCorpus+Outputs.swift).
final class BadInputCorpusOutputsTests: XCTestCase {
    func testOutputsAndFlags() throws {
        XCTAssertGreaterThanOrEqual(BadInputCorpus.outputs.count, 60)
        try BadInputCorpus.check(BadInputCorpus.outputs)
    }
}
