import Foundation
import XCTest

/// Edge cases of `capture` found in review: each of these once misbehaved.
final class CaptureEdgeCaseTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func testDocumentedOptionalKeysArePresentAsNull() throws {
        let r = try CLI.run(["capture", "--source", "synthetic:depth=32x24,color=32x24", "--ply", "s.ply", "--json"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertTrue(json["range"] is NSNull, "range: \(String(describing: json["range"]))")
        XCTAssertTrue(json["bundleDirectory"] is NSNull)
        XCTAssertTrue(json["rgbdDirectory"] is NSNull)
        XCTAssertTrue((json["camera"] as? [String: Any])?["depthUnitsPerMetre"] is NSNull)
        let info = try CLI.run(["info", "s.ply", "--json"], in: dir)
        let j = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        XCTAssertTrue(j["organized"] is NSNull)
    }

    /// A scale that becomes 0 in single precision would turn every depth infinite.
    func testDepthScaleOutsideFloatRangeIsRefused() throws {
        for scale in ["1e-50", "1e50", "0", "-5", "nan"] {
            let r = try CLI.run(
                [
                    "capture", "--source", "redwood:\(sharedData("open3d-rgbd"))", "--depth-scale", scale,
                    "--ply", "x.ply", "--rgbd", "rg"
                ], in: dir)
            XCTAssertEqual(r.status, 2, "\(scale): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--depth-scale") || r.stderr.contains("depth scale"), "\(scale): \(r.stderr)")
            XCTAssertEqual(filesIn(dir), [], "\(scale) left files behind")
        }
    }

    /// An unwritable output is found before any frame is captured, and no bundle or export is left.
    func testUnwritableOutputFailsFirstAndLeavesNoFolders() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:path=orbit,frames=3,depth=32x24,color=32x24", "--fuse",
                "--ply", "nowhere/x.ply", "--bundle", "bun", "--rgbd", "rg"
            ], in: dir)
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("nowhere/x.ply"), r.stderr)
        XCTAssertEqual(filesIn(dir), [])
    }

    /// One blank frame (here: nothing beyond 3 m once the walk nears the wall) does not end a
    /// recording: it is skipped with a warning, the other frames are written.
    /// An output path that names a folder is refused before any work, with exit 2, for clouds and
    /// pictures alike (it used to render first and fail with exit 3 at the rename).
    func testOutputThatIsAFolderIsRefusedFirst() throws {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("taken"), withIntermediateDirectories: false)
        for arguments in [
            ["capture", "--source", "synthetic", "--ply", "taken"],
            ["capture", "--source", "synthetic", "--ply", "s.ply", "--preview", "taken"]
        ] {
            let r = try CLI.run(arguments, in: dir)
            XCTAssertEqual(r.status, 2, arguments.joined(separator: " "))
            XCTAssertEqual(r.stderrLines, ["cloudgen: taken: is a folder; name a file to write"])
        }
        XCTAssertEqual(filesIn(dir), ["taken"], "nothing written")
    }

    func testBlankFrameInASequenceIsSkipped() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:path=walk,frames=6,depth=64x48,color=64x48", "--frames", "all",
                "--range", "3.0,inf", "--pcd", "s.pcd", "--json"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("has no points"), r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let files = try XCTUnwrap(json["files"] as? [[String: Any]])
        XCTAssertGreaterThan(files.count, 0)
        XCTAssertLessThan(files.count, 6)
        XCTAssertEqual(Set(filesIn(dir)), Set(files.compactMap { $0["path"] as? String }))
    }

    func testExportIntoAFolderWithFilesIsRefused() throws {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("rg"), withIntermediateDirectories: false)
        try Data("x".utf8).write(to: dir.appendingPathComponent("rg/old.png"))
        let r = try CLI.run(["capture", "--source", "synthetic:depth=32x24,color=32x24", "--rgbd", "rg"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("rg: already exists and is not an empty folder"), r.stderr)
        XCTAssertEqual(filesIn(dir.appendingPathComponent("rg")), ["old.png"])
        XCTAssertEqual(filesIn(dir), ["rg"], "no staging folder left behind")
    }

    func testIntrinsicsForAnotherAspectRatioWarn() throws {
        let k = dir.appendingPathComponent("k.json")
        try Data(#"{"fx": 1000, "fy": 1000, "cx": 959.5, "cy": 539.5, "width": 1920, "height": 1080}"#.utf8).write(to: k)
        let tum = sharedData("open3d-rgbd/other_formats")
        let r = try CLI.run(
            [
                "capture", "--source", "rgbd:\(tum)/TUM_color.png,\(tum)/TUM_depth.png", "--depth-scale", "5000",
                "--intrinsics", k.path, "--ply", "t.ply"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("a different aspect ratio"), r.stderr)
    }

    func testSingleDepthRangeIsAccepted() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:depth=32x24,color=32x24,format=mm16,noise=0", "--range", "2,2",
                "--ply", "s.ply"
            ], in: dir)
        XCTAssertNotEqual(r.status, 64)
        XCTAssertTrue(r.status == 0 || r.stderr.contains("kept none"), r.stderr)
    }
}
