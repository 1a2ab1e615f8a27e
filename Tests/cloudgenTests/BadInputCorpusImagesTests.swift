import XCTest

/// The image and calibration tables of the bad-input corpus (BadInputCorpus+Images.swift,
/// BadInputCorpus+Calibration.swift).
final class BadInputCorpusImagesTests: XCTestCase {
    func testImages() throws { try BadInputCorpus.check(BadInputCorpus.images) }

    func testCalibrationFilesAndHugeFrames() throws { try BadInputCorpus.check(BadInputCorpus.calibration) }

    /// The tables hold what Docs/reliability.md says they hold, each case a distinct input.
    func testCaseCounts() {
        XCTAssertEqual(BadInputCorpus.images.count, 68)
        XCTAssertEqual(BadInputCorpus.calibration.count, 79)
        let names = (BadInputCorpus.images + BadInputCorpus.calibration).map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "two cases share a name")
    }
}
