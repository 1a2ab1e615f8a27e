import CloudCore
import XCTest

/// The C libraries' status structs carry their message in a fixed `char[N]`, imported as a tuple.
final class FixedCStringTests: XCTestCase {
    func testStopsAtTheFirstNUL() {
        let array: (CChar, CChar, CChar, CChar, CChar, CChar) = (104, 105, 0, 120, 121, 0)
        XCTAssertEqual(String(fixedCString: array), "hi")
    }

    func testAnArrayWithoutNULIsReadToItsEnd() {
        let array: (CChar, CChar, CChar, CChar) = (119, 120, 121, 122)
        XCTAssertEqual(String(fixedCString: array), "wxyz")
    }

    func testEmptyAndNonUTF8() {
        XCTAssertEqual(String(fixedCString: (CChar(0), CChar(65))), "")
        let latin1: (CChar, CChar, CChar) = (CChar(bitPattern: 0xE9), 33, 0)
        XCTAssertEqual(String(fixedCString: latin1), "\u{FFFD}!")
    }
}
