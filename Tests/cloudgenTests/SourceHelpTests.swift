import CloudCapture
import XCTest

/// `capture --help` lists the sources from `SourceKind.all`, each by its form and summary.
final class SourceHelpTests: XCTestCase {
    func testCaptureHelpListsEveryKind() throws {
        let help = try CLI.run(["capture", "--help"])
        XCTAssertEqual(help.status, 0)
        let lines = help.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for kind in SourceKind.all {
            // The form on a line of its own, the summary on the next (under 80 columns, so never wrapped).
            let at = try XCTUnwrap(lines.firstIndex(of: kind.form), "capture --help does not list \(kind.form)")
            XCTAssertEqual(lines[at + 1], kind.summary)
        }
    }
}
