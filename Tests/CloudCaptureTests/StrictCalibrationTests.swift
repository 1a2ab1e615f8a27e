import CloudCore
import Foundation
import SharedTestData
import XCTest

@testable import CloudCapture
@testable import SafeIO

final class StrictCalibrationTests: XCTestCase {
    /// A log is refused from its size when it is far larger than the sequence it belongs to.
    func testTrajectoryLogLargerThanItsSequence() throws {
        let log = try SharedData.url("open3d-rgbd/trajectory.log").path  // 5 frames, 1.2 KB
        XCTAssertEqual(try TrajectoryLog.read(log, frames: 5).count, 5)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".log")
        try Data(String(repeating: try String(contentsOfFile: log, encoding: .utf8), count: 8).utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        assertBadInput(naming: url.path, containing: "too large for the trajectory log of 1 frame (at most 6144)") {
            try TrajectoryLog.read(url.path, frames: 1)
        }
        XCTAssertEqual(try TrajectoryLog.read(url.path).count, 40, "without a frame count, only the general cap applies")
    }

    private func read(_ text: String, _ name: String = "k.json") throws -> IntrinsicsFile {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + name)
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            return try IntrinsicsFile.read(url.path)
        } catch let error as CloudError {
            // Name the file as the test wrote it, for the assertions below.
            throw CloudError.badInput(error.message.replacingOccurrences(of: url.path, with: name))
        }
    }

    func testWrongTypesAndKeysAreNamed() {
        let rest = #""fy": 525, "cx": 319.5, "cy": 239.5, "width": 640, "height": 480"#
        let cases = [
            (#"{"fx": true, "# + rest + "}", "'fx' must be a number"),
            (#"{"fx": "525", "# + rest + "}", "'fx' must be a number"),
            (#"{"fx": null, "# + rest + "}", "'fx' must be a number, not null"),
            (#"{"fx": 525, "fx": 1, "# + rest + "}", "key 'fx' appears twice"),
            (#"{"fx": 525, "fz": 1, "# + rest + "}", "unknown key 'fz'"),
            (#"{"fx": 5e300, "# + rest + "}", "more than 1000 times"),
            (#"{"fx": 525, "fy": 525, "cx": -1e9, "cy": 239.5, "width": 640, "height": 480}"#, "principal point"),
            (
                #"{"width": 640, "height": 480, "intrinsic_matrix": [525, 0, 0, 0, 525, 0, 319.5, 239.5, null]}"#,
                "'intrinsic_matrix[8]' must be a number"
            ),
            (#"{"width": 640, "height": 480, "intrinsic_matrix": [525, 0, 0, 2, 525, 0, 319.5, 239.5, 1]}"#, "no skew"),
            (#"{"width": 640, "height": 480, "intrinsic_matrix": "K"}"#, "an array of 9 numbers")
        ]
        for (text, detail) in cases {
            assertBadInput(naming: "k.json", containing: detail) { try read(text) }
        }
        assertBadInput(naming: "k.xml", containing: "<focal_length_x> appears more than once") {
            try read(
                "<depth><focal_length_x>525</focal_length_x><focal_length_x>5</focal_length_x><focal_length_y>525</focal_length_y><principal_point_x>320</principal_point_x><principal_point_y>240</principal_point_y></depth>",
                "k.xml")
        }
    }

    func testDuplicateKeysOnlyWithinOneObject() throws {
        // The same key in two sibling objects and in an array of objects is fine.
        XCTAssertNoThrow(
            try JSONDuplicateKeys.check(
                Array(#"{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}], "s": "x\"x"}"#.utf8), origin: "m.json"))
        assertBadInput(naming: "m.json", containing: "key 'x' appears twice") {
            try JSONDuplicateKeys.check(Array(#"{"frames": [{"x": 1, "y": {"x": 3}, "x": 2}]}"#.utf8), origin: "m.json")
        }
    }
}
