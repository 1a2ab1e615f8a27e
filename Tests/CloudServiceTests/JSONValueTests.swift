import Foundation
import XCTest

@testable import CloudService

/// The JSON the service passes through (a capture's stored report) comes out as it went in:
/// whole numbers whole, fractions exact, nulls kept, keys sorted, slashes unescaped.
final class JSONValueTests: XCTestCase {
    func testAReportReadsBackToTheSameBytes() throws {
        let text = #"{"a":{"e":-0.25,"f":1e-07},"b":1234,"c":[true,false,null,"x/y",0.1],"d":"inf","z":[]}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        XCTAssertEqual(value["b"], .integer(1234))
        XCTAssertEqual(value["c"], .array([.bool(true), .bool(false), .null, .string("x/y"), .number(0.1)]))
        XCTAssertEqual(String(decoding: try value.encoded(), as: UTF8.self), text)
    }

    func testSettingAKeyChangesOnlyAnObject() throws {
        var object = JSONValue.object(["links": .object(["self": "/v1/captures/x"])])
        object["links"]?["zip"] = "/v1/captures/x/capture.zip"
        object["name"] = JSONValue(nil as String?)
        XCTAssertEqual(
            String(decoding: try object.encoded(), as: UTF8.self),
            #"{"links":{"self":"/v1/captures/x","zip":"/v1/captures/x/capture.zip"},"name":null}"#)
        var text = JSONValue.string("a")
        text["key"] = .integer(1)
        XCTAssertEqual(text, .string("a"))
    }
}
