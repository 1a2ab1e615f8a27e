import CloudCapture
import CloudCore
import Foundation
import SharedTestData
import XCTest

final class CalibrationFileTests: XCTestCase {
    var data: URL { SharedData.directory }

    func write(_ text: String, _ name: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-\(UUID().uuidString)-\(name)")
        try Data(text.utf8).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func testOpen3DPinholeJSONIsColumnMajor() throws {
        let f = try IntrinsicsFile.read(data.appendingPathComponent("open3d-rgbd/camera_primesense.json").path)
        XCTAssertEqual(f.fx, 525)
        XCTAssertEqual(f.fy, 525)
        XCTAssertEqual(f.cx, 319.5)
        XCTAssertEqual(f.cy, 239.5)
        XCTAssertEqual(f.referenceSize?.width, 640)
        XCTAssertEqual(f.referenceSize?.height, 480)
        XCTAssertNil(f.depthUnitsPerMetre)
        // A non-square matrix would show a row-major misreading: fy at [4], cx at [6], cy at [7].
        let g = try IntrinsicsFile.read(
            try write(#"{"width": 320, "height": 240, "intrinsic_matrix": [300, 0, 0, 0, 310, 0, 160.5, 120.25, 1]}"#, "o3d.json"))
        XCTAssertEqual([g.fx, g.fy, g.cx, g.cy], [300, 310, 160.5, 120.25])
    }

    func testPCLGrabberXMLUsesTheDepthBlockAndItsScale() throws {
        let f = try IntrinsicsFile.read(data.appendingPathComponent("pcl-grabber/frame_20121214T142255.814212.xml").path)
        XCTAssertEqual([f.fx, f.fy, f.cx, f.cy], [525, 525, 320, 240])
        XCTAssertEqual(try XCTUnwrap(f.depthUnitsPerMetre), 1000, accuracy: 1e-9)
        XCTAssertNil(f.referenceSize, "the grabber XML names no image size")
        let k = try f.intrinsics(forDepthWidth: 640, height: 480)
        XCTAssertEqual(k.referenceWidth, 640)
    }

    func testCloudgenJSON() throws {
        let f = try IntrinsicsFile.read(
            try write(
                #"{"fx": 1450, "fy": 1452, "cx": 955.3, "cy": 723.8, "width": 1920, "height": 1440, "depthUnitsPerMetre": 5000}"#, "k.json")
        )
        XCTAssertEqual(
            try f.intrinsics(forDepthWidth: 256, height: 192),
            CameraIntrinsics(fx: 1450, fy: 1452, cx: 955.3, cy: 723.8, referenceWidth: 1920, referenceHeight: 1440))
        XCTAssertEqual(f.depthUnitsPerMetre, 5000)
    }

    func testBadCalibrationIsRefusedNamingTheFile() throws {
        let cases = [
            (#"{"fx": 0, "fy": 525, "cx": 320, "cy": 240, "width": 640, "height": 480}"#, "positive"),
            (#"{"width": 640, "height": 480, "intrinsic_matrix": [525, 0, 0, 0, 525, 0, 319.5]}"#, "9 numbers"),
            (#"{"fx": 525, "fy": 525, "cx": 320, "width": 640, "height": 480}"#, "'cy'"),
            (#"{"fx": 525, "fy": 525, "cx": 320, "cy": 240, "width": 1e9, "height": 480}"#, "plausible"),
            (#"{"fx": 525, "#, "malformed JSON"),
            (
                "<rgb><focal_length_x>nan</focal_length_x><focal_length_y>525</focal_length_y><principal_point_x>1</principal_point_x><principal_point_y>1</principal_point_y></rgb>",
                "focal lengths"
            ),
            ("<depth><focal_length_x>525</focal_length_x></depth>", "focal_length_y"),
            ("fx=525", "neither JSON")
        ]
        for (text, expected) in cases {
            let path = try write(text, "bad.json")
            XCTAssertThrowsError(try IntrinsicsFile.read(path), text) { error in
                XCTAssertEqual((error as? CloudError)?.kind, .badInput)
                XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(error)")
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
        XCTAssertThrowsError(try IntrinsicsFile.read("/nonexistent/k.json")) { XCTAssertTrue("\($0)".contains("no such file")) }
    }

    func testTrajectoryLogGivesCameraToWorldPoses() throws {
        let poses = try TrajectoryLog.read(data.appendingPathComponent("open3d-rgbd/trajectory.log").path)
        XCTAssertEqual(poses.count, 5)
        // First frame, from the file: translation is the last column of the first three rows.
        XCTAssertEqual(poses[0].translation, SIMD3(-0.31057997014702826, 0.5730122438481298, 2.1264800183565487))
        XCTAssertEqual(poses[0].rotation.0, SIMD3(-0.2739592186924325, 0.021819345900466677, -0.9614937663021573))
        // The camera's origin maps to the translation; its optical axis to the third column.
        XCTAssertEqual(poses[0].apply(.zero), poses[0].translation)
        let bad = try write("0 0 1\n1 0 0 0\n0 1 0 0\n0 0 1 0\n", "t.log")
        XCTAssertThrowsError(try TrajectoryLog.read(bad)) { XCTAssertTrue("\($0)".contains("5 per frame"), "\($0)") }
        let nan = try write("0 0 1\n1 0 0 nan\n0 1 0 0\n0 0 1 0\n0 0 0 1\n", "t.log")
        XCTAssertThrowsError(try TrajectoryLog.read(nan)) { XCTAssertTrue("\($0)".contains("line 2"), "\($0)") }
    }

    /// A trajectory is camera-to-world motion: a scaled, sheared or mirrored matrix is refused,
    /// naming the frame, as a capture bundle refuses it (so `--bundle` never writes one it cannot read).
    func testTrajectoryLogRefusesMatricesThatAreNotRigid() throws {
        let identity = "1 0 0 0.5\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"
        for (name, matrix) in [
            ("scaled", "2 0 0 0\n0 2 0 0\n0 0 2 0\n0 0 0 1\n"),
            ("sheared", "1 0.1 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"),
            ("mirrored", "-1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n")
        ] {
            let path = try write("0 0 0\n" + identity + "1 1 1\n" + matrix, "\(name).log")
            XCTAssertThrowsError(try TrajectoryLog.read(path), name) { error in
                XCTAssertEqual((error as? CloudError)?.kind, .badInput, "\(error)")
                XCTAssertTrue("\(error)".hasPrefix(path + ": frame 1: "), "\(name): \(error)")
                XCTAssertTrue("\(error)".contains("not a rotation"), "\(name): \(error)")
            }
        }
        // A camera 1e308 m (or 1e6 m) away is no camera's: its points would vanish from the cloud.
        for (x, shown) in [("1e308", "1e+308"), ("1e6", "1000000.0"), ("-1e6", "-1000000.0")] {
            let path = try write("0 0 0\n" + identity + "1 1 1\n1 0 0 \(x)\n0 1 0 2\n0 0 1 3\n0 0 0 1\n", "far.log")
            XCTAssertThrowsError(try TrajectoryLog.read(path), x) { error in
                XCTAssertEqual((error as? CloudError)?.kind, .badInput, "\(error)")
                XCTAssertTrue(
                    "\(error)".hasPrefix(path + ": frame 1: the translation (\(shown), 2.0, 3.0) is not within ±100000 m"), "\(error)")
            }
        }
        let nan = try write("0 0 0\n" + identity + "1 1 1\n1 0 0 nan\n0 1 0 2\n0 0 1 3\n0 0 0 1\n", "nan.log")
        XCTAssertThrowsError(try TrajectoryLog.read(nan)) {
            XCTAssertTrue("\($0)".hasPrefix(nan + ": line 7: expected 4 finite numbers"), "\($0)")
        }
        let inside = try write("0 0 0\n1 0 0 99999\n0 1 0 2\n0 0 1 3\n0 0 0 1\n", "inside.log")
        XCTAssertEqual(try TrajectoryLog.read(inside).map(\.translation), [SIMD3(99_999, 2, 3)])
        // A rotation printed with a few decimals (90 degrees about z) is rigid enough.
        let turned = try write("0 0 0\n0.0000001 -1 0 1\n1 0.0000001 0 2\n0 0 1 3\n0 0 0 1\n", "turned.log")
        XCTAssertEqual(try TrajectoryLog.read(turned).map(\.translation), [SIMD3(1, 2, 3)])
    }
}
