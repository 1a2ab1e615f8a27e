import XCTest

/// The bad-input corpus (BadInputCorpus.swift), one test per table.
final class BadInputCorpusTests: XCTestCase {
    func testMissingAndSpecialInputs() throws { try BadInputCorpus.check(BadInputCorpus.missingAndSpecialInputs) }
}
