import CloudCore
import XCTest

final class DepthConversionTests: XCTestCase {
    func decode(_ bytes: [UInt8], width: Int, height: Int = 1, _ encoding: DepthEncoding, bytesPerRow: Int? = nil) throws -> [Float] {
        try bytes.withUnsafeBytes {
            try DepthMap(raw: $0, width: width, height: height, encoding: encoding, bytesPerRow: bytesPerRow, origin: "t").metres
        }
    }

    func le16(_ values: [UInt16]) -> [UInt8] { values.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
    func le32(_ values: [Float]) -> [UInt8] { values.flatMap { v in (0..<4).map { UInt8((v.bitPattern >> (8 * $0)) & 0xFF) } } }

    func testFloat16DepthFromBitPatterns() throws {
        // 0x3C00 = 1.0, 0x3E00 = 1.5, 0x4500 = 5.0, 0x3555 = 0.333251953125; then +inf, NaN, -1.0, 0.
        let z = try decode(le16([0x3C00, 0x3E00, 0x4500, 0x3555, 0x7C00, 0x7E00, 0xBC00, 0x0000]), width: 8, .depthFloat16)
        XCTAssertEqual(z, [1.0, 1.5, 5.0, 0.333_251_953_125, 0, 0, 0, 0])
    }

    func testHalfToSingleConversionIsExactForEveryBitPattern() {
        for bits in 0...UInt16.max {
            let expected = Float(Float16(bitPattern: bits))
            let got = DepthMap.float(halfBits: bits)
            if expected.isNaN {
                XCTAssertTrue(got.isNaN, "\(bits)")
            } else {
                XCTAssertEqual(got.bitPattern, expected.bitPattern, "half bits \(String(bits, radix: 16))")
            }
        }
    }

    func testDisparityIsInverseMetresAndInvalidWhenNotPositive() throws {
        // Float16 0.5 -> 2 m, 4.0 -> 0.25 m, 0 -> none, -2.0 -> none.
        let z16 = try decode(le16([0x3800, 0x4400, 0x0000, 0xC000]), width: 4, .disparityFloat16)
        XCTAssertEqual(z16, [2.0, 0.25, 0, 0])
        let z32 = try decode(le32([0.4, 0, -1, .nan, .infinity]), width: 5, .disparityFloat32)
        XCTAssertEqual(z32[0], 2.5, accuracy: 1e-7)
        XCTAssertEqual(Array(z32[1...]), [0, 0, 0, 0])
        let d32 = try decode(le32([2.75, .nan, -0.5]), width: 3, .depthFloat32)
        XCTAssertEqual(d32, [2.75, 0, 0])
    }

    func testScaledIntegersForMillimetresAndTUM() throws {
        let mm = try decode(le16([1234, 0, 65535]), width: 3, .uint16(unitsPerMetre: 1000))
        XCTAssertEqual(mm[0], 1.234, accuracy: 1e-6)
        XCTAssertEqual(mm[1], 0)
        XCTAssertEqual(mm[2], 65.535, accuracy: 1e-5)
        let tum = try decode(le16([10000, 5000]), width: 2, .uint16(unitsPerMetre: 5000))
        XCTAssertEqual(tum, [2.0, 1.0])
    }

    func testPaddedRowsAreSkipped() throws {
        // Two rows of two samples, each row padded to 6 bytes with junk.
        let bytes = le16([1000, 2000]) + [0xAA, 0xAA] + le16([3000, 4000]) + [0xAA, 0xAA]
        let z = try decode(bytes, width: 2, height: 2, .uint16(unitsPerMetre: 1000), bytesPerRow: 6)
        XCTAssertEqual(z, [1, 2, 3, 4])
    }

    func testShortPlanesAndAbsurdSizesAreRefusedBeforeAllocating() {
        XCTAssertThrowsError(try decode(le16([1, 2, 3]), width: 2, height: 2, .uint16(unitsPerMetre: 1000))) {
            XCTAssertTrue("\($0)".contains("holds 6 bytes"), "\($0)")
        }
        XCTAssertThrowsError(try decode([], width: 1_000_000, height: 1_000_000, .depthFloat32)) {
            XCTAssertTrue("\($0)".contains("outside"), "\($0)")
        }
        XCTAssertThrowsError(try decode([], width: 0, height: 10, .depthFloat32))
    }
}
