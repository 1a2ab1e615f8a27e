import CloudArchives
import Foundation
import XCTest

/// The multipart parser gives back exactly the parts that were put in, however the body is cut
/// into chunks on the way (one byte at a time, at every split point), with CR, LF and
/// boundary-like bytes inside the content.
final class MultipartParserTests: XCTestCase {
    private struct Part: Equatable {
        var headers: [String]
        var content: [UInt8]
    }

    private func parse(_ body: [UInt8], boundary: String, chunks: [Int]) throws -> (parts: [Part], complete: Bool) {
        var parser = MultipartParser(boundary: boundary)
        var parts: [Part] = []
        var start = 0
        for size in chunks + [body.count] where start < body.count {
            let end = min(body.count, start + size)
            try parser.feed(body[start..<end]) { event in
                switch event {
                case .headers(let lines): parts.append(Part(headers: lines.map { "\($0.name)=\($0.value)" }, content: []))
                case .content(let bytes): parts[parts.count - 1].content += bytes
                case .end: break
                }
            }
            start = end
        }
        return (parts, parser.isComplete)
    }

    func testPartsComeBackWholeWhateverTheChunks() throws {
        let boundary = "XyZ-12"
        // Content that looks like the delimiter's beginnings, CRLFs and a boundary without its CRLF.
        // (RFC 2046: CRLF "--" and the whole boundary never occur inside a part.)
        let tricky = Array("a\r\n--XyZ-1\r\n--XyZ\r\r\n-\r\n--XyZ-1x--XyZ-12".utf8) + (0..<300).map { UInt8($0 % 256) }
        let empty: [UInt8] = []
        var body = Array("preamble\r\n--\(boundary)\r\n".utf8)
        body += Array("Content-Disposition: form-data; name=\"depth\"; filename=\"d.png\"\r\nContent-Type: image/png\r\n\r\n".utf8) + tricky
        body += Array("\r\n--\(boundary)  \r\nContent-Disposition: form-data; name=\"voxel\"\r\n\r\n0.01".utf8)
        body += Array("\r\n--\(boundary)\r\n\r\n".utf8) + empty
        body += Array("\r\n--\(boundary)--\r\nepilogue".utf8)
        let expected = [
            Part(headers: ["Content-Disposition=form-data; name=\"depth\"; filename=\"d.png\"", "Content-Type=image/png"], content: tricky),
            Part(headers: ["Content-Disposition=form-data; name=\"voxel\""], content: Array("0.01".utf8)),
            Part(headers: [], content: empty)
        ]
        let whole = try parse(body, boundary: boundary, chunks: [])
        XCTAssertEqual(whole.parts, expected)
        XCTAssertTrue(whole.complete)
        XCTAssertEqual(try parse(body, boundary: boundary, chunks: Array(repeating: 1, count: body.count)).parts, expected)
        for split in 1..<body.count {
            let result = try parse(body, boundary: boundary, chunks: [split])
            XCTAssertEqual(result.parts, expected, "split at \(split)")
            XCTAssertTrue(result.complete, "split at \(split)")
        }
    }

    func testBrokenBodiesAreRefusedOrIncomplete() throws {
        let boundary = "b"
        func body(_ text: String) -> [UInt8] { Array(text.utf8) }
        // Cut short: parsed so far, not complete.
        XCTAssertFalse(
            try parse(body("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nabc"), boundary: boundary, chunks: []).complete)
        for broken in [
            "--b\r\nno colon here\r\n\r\nx\r\n--b--", "--b\r\n: empty name\r\n\r\nx\r\n--b--", "--bX\r\n\r\nx\r\n--b--",
            "--b\r\nNa\u{80}me: v\r\n\r\nx\r\n--b--", "--b\r\nName: \u{FF}\r\n\r\n"
        ] {
            var bytes = body(broken)
            if broken.contains("\u{FF}") { bytes = body("--b\r\nName: ") + [0xFF, 0xFE] + body("\r\n\r\n") }
            XCTAssertThrowsError(try parse(bytes, boundary: boundary, chunks: []), broken.debugDescription)
        }
        // Headers that never end are refused once past the limit, not gathered without bound.
        let endless = body("--b\r\nX: ") + Array(repeating: UInt8(ascii: "a"), count: MultipartParser.headerLimit + 10)
        XCTAssertThrowsError(try parse(endless, boundary: boundary, chunks: [1000]))
    }
}
