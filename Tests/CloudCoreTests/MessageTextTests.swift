import CloudCore
import XCTest

/// One error line (Docs/reliability.md "Error messages"): escaped, at most 300 characters, the
/// file name's two ends and the problem's words kept.
final class MessageTextTests: XCTestCase {
    func testControlCharactersAreEscapedSoTheLineCannotSplit() {
        XCTAssertEqual(MessageText.escaped("a\nb\tc\rd\u{1B}[31me\u{7F}"), "a\\nb\\tc\\rd\\x1b[31me\\x7f")
        XCTAssertEqual(MessageText.escaped("évian \u{202E}txt.exe"), "évian \\u{202e}txt.exe", "a bidi override cannot reverse the line")
        XCTAssertEqual(MessageText.escaped("\u{2028}"), "\\u{2028}")
        XCTAssertEqual(MessageText.fitted("x\ny: no such file"), "x\\ny: no such file")
    }

    func testShortTextIsUnchanged() {
        let text = "/data/scan.ply: truncated: the header's elements need 1200 bytes"
        XCTAssertEqual(MessageText.fitted(text), text)
    }

    func testALongNameIsCutInTheMiddleAndTheProblemKept() {
        let name = "/data/" + String(repeating: "d", count: 100_000) + "/scan.ply"
        let line = MessageText.fitted("\(name): cannot write into folder \(name.dropLast(8)): No space left on device")
        XCTAssertLessThanOrEqual(line.count, MessageText.lineLimit - "cloudgen: ".count)
        XCTAssertTrue(line.hasPrefix("/data/ddd"))
        XCTAssertTrue(line.contains("/scan.ply: cannot write into folder /data/"), line)
        XCTAssertTrue(line.hasSuffix(": No space left on device"), line)
        XCTAssertEqual(line.filter { $0 == "…" }.count, 2, "each long name cut once")
    }

    func testTheFileTheMessageIsAboutStaysWholeWhileOthersGiveWay() {
        let folder = "/tmp/cloudgen-test-37AC341C-A8B2-4C1E-9E0B-B13C216C4EDE/tum"
        let text =
            "\(folder)/depth/d.png: association gap: the nearest color frame (\(folder)/rgb/c.png) is 35.0 ms away; "
            + "tum: pairs depth and color within 20 ms (listed in \(folder)/depth.txt)"
        let line = MessageText.fitted(text)
        XCTAssertTrue(line.hasPrefix("\(folder)/depth/d.png: association gap: "), line)
        XCTAssertTrue(line.contains("35.0 ms away"), line)
        XCTAssertLessThanOrEqual(line.count, 290)
    }

    func testAFlagValueIsCutButTheFlagKept() {
        let line = MessageText.fitted("--size \(String(repeating: "9", count: 5000)): needs WIDTHxHEIGHT in pixels, e.g. 1280x720")
        XCTAssertTrue(line.hasPrefix("--size 999"))
        XCTAssertTrue(line.hasSuffix("9: needs WIDTHxHEIGHT in pixels, e.g. 1280x720"))
        XCTAssertLessThanOrEqual(line.count, 290)
    }

    func testThousandsOfWordsStillFit() {
        let line = MessageText.fitted(String(repeating: "a b ", count: 10_000))
        XCTAssertLessThanOrEqual(line.count, 290)
        XCTAssertTrue(line.contains("…"))
    }

    func testShortenedKeepsBothEnds() {
        XCTAssertEqual(MessageText.shortened("abcdefghij", to: 5), "ab…ij")
        XCTAssertEqual(MessageText.shortened("abc", to: 5), "abc")
    }
}
