import XCTest

/// The bad-input corpus's outputs and flags table (BadInputCorpus+Outputs.swift).
final class BadInputCorpusOutputsTests: XCTestCase {
    func testOutputsAndFlags() throws {
        // The count Docs/reliability.md's table states.
        XCTAssertEqual(BadInputCorpus.outputs.count, 160)
        XCTAssertEqual(Set(BadInputCorpus.outputs.map(\.name)).count, BadInputCorpus.outputs.count, "every case has its own name")
        try BadInputCorpus.check(BadInputCorpus.outputs)
    }
}
