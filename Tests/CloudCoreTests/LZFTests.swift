import SharedTestData
import XCTest

@testable import CloudCore

/// LZF streams made by hand, one item kind at a time, and broken ones that must throw.
final class LZFTests: XCTestCase {
    private func decompress(_ stream: [UInt8], count: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0xEE, count: count)
        try stream.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try LZF.decompress(input, into: $0, origin: "test.lzf") }
        }
        return output
    }

    func testItemKinds() throws {
        // Literal run of 3, then a back reference of 3 bytes from 3 back (control 001 00000, offset 2).
        XCTAssertEqual(try decompress([2, 10, 20, 30, 0x20, 2], count: 6), [10, 20, 30, 10, 20, 30])
        // Overlapping reference: 2 bytes back, 8 long (length code 6) repeats a 16-bit value.
        XCTAssertEqual(try decompress([1, 0xAB, 0xCD, 0xC0, 1], count: 10), [0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD])
        // Long reference: code 7 plus an extra length byte of 3 gives 7 + 3 + 2 = 12 bytes of a 1-byte run.
        XCTAssertEqual(try decompress([0, 5, 0xE0, 3, 0], count: 13), Array(repeating: 5, count: 13))
        // A 13-bit distance: a literal run of 32, then a reference 260 bytes back is refused,
        // 32 bytes back accepted.
        let literal = [UInt8(31)] + (0..<32).map { UInt8($0) }
        XCTAssertEqual(try decompress(literal + [0x20, 31], count: 35), (0..<32).map { UInt8($0) } + [0, 1, 2])
        XCTAssertThrowsError(try decompress(literal + [0x21, 3], count: 35))
        XCTAssertEqual(try decompress([], count: 0), [])
    }

    func testCorruptStreamsThrowWithoutTouchingMemoryOutside() {
        let cases: [(stream: [UInt8], count: Int, detail: String)] = [
            ([5, 1, 2], 6, "passes the end"),  // literal run past the input
            ([3, 1, 2, 3, 4], 3, "more than 3 bytes"),  // literal run past the output
            ([0, 1, 0x20, 1], 4, "points 2 bytes back"),  // reference before the start
            ([0, 1, 0xC0, 0], 4, "more than 4 bytes"),  // reference past the output
            ([0, 1, 0x20], 4, "cut off"),  // reference cut after its control byte
            ([0, 1, 0xE0], 20, "cut off"),  // long reference cut after its control byte
            ([1, 1, 2], 5, "decompresses to 2 bytes")  // stream ends early
        ]
        for (stream, count, detail) in cases {
            assertBadInput(naming: "test.lzf", containing: detail) { try decompress(stream, count: count) }
        }
    }
}
