import CloudService
import Foundation
import XCTest

final class CaptureIDTests: XCTestCase {
    /// The time prefix is ULID's: the ULID specification's example ulid(1469918176385) is 01ARYZ6S41TSV4RRFFQ69G5FAV.
    func testTimePrefixIsTheCreationTimeInCrockfordBase32() {
        let id = CaptureID(date: Date(timeIntervalSince1970: 1_469_918_176.385))
        XCTAssertEqual(String(id.rawValue.prefix(10)), "01aryz6s41")
        XCTAssertEqual(CaptureID(date: Date(timeIntervalSince1970: 0)).rawValue.prefix(10), "0000000000")
    }

    func testMadeIDsHaveTheShapeAreUniqueAndSortByCreation() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let ids = (0..<1000).map { CaptureID(date: start.addingTimeInterval(Double($0) / 100)) }
        XCTAssertEqual(Set(ids).count, 1000, "80 random bits never repeat in 1000 ids")
        XCTAssertEqual(ids.sorted(), ids, "ids made 10 ms apart sort by creation")
        for id in ids {
            XCTAssertEqual(id.rawValue.count, 26)
            XCTAssertEqual(CaptureID(validating: id.rawValue), id)
            XCTAssertNil(id.rawValue.first { !"0123456789abcdefghjkmnpqrstvwxyz".contains($0) })
        }
        // The random part uses every digit: 16 characters x 1000 ids never miss one of 32.
        XCTAssertEqual(Set(ids.flatMap { $0.rawValue.dropFirst(10) }).count, 32)
    }

    func testValidationRefusesEverythingButTheExactShape() {
        let good = CaptureID().rawValue
        let head = String(good.dropLast())
        let short = String(good.dropLast(2))
        var refused: [String] = [
            "", "..", "../x", "%2e%2e", "%2E%2E%2F", "..%2f", "..........................", "%2e%2e%2f%2e%2e%2f%2e%2e%2fetc"
        ]
        refused += ["/" + good.dropFirst(), head + "/", good.prefix(13) + "/" + good.suffix(12)]
        refused += [good.uppercased(), head, good + "0", short + "é"]
        refused += ["i", "l", "o", "u", ".", " ", "\0"].map { head + $0 }
        for text in refused {
            XCTAssertNil(CaptureID(validating: text), "accepted \(text)")
            XCTAssertNil(JobID(validating: text), "accepted \(text)")
        }
        XCTAssertNotNil(CaptureID(validating: good))
    }

    func testJSONDecodingValidatesToo() throws {
        let id = CaptureID()
        let encoded = try JSONEncoder().encode([id])
        XCTAssertEqual(String(decoding: encoded, as: UTF8.self), "[\"\(id)\"]")
        XCTAssertEqual(try JSONDecoder().decode([CaptureID].self, from: encoded), [id])
        XCTAssertThrowsError(try JSONDecoder().decode([CaptureID].self, from: Data(#"["../etc/passwd"]"#.utf8)))
    }
}
