import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

final class CaptureCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// The acceptance run: a 5 x 4 x 3 m room in the world frame, written as PLY and PCD.
    func testWorldFrameRoomCaptureLiesInsideTheRoomInBothFormats() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:room=5x4x3,noise=0", "--frame", "world",
                "--ply", "a.ply", "--pcd", "a.pcd"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let ply = try CloudReader.read(dir.appendingPathComponent("a.ply").path).cloud
        let pcd = try CloudReader.read(dir.appendingPathComponent("a.pcd").path).cloud
        XCTAssertGreaterThan(ply.count, 10_000)
        XCTAssertEqual(ply.count, pcd.count)
        XCTAssertEqual(ply.positions, pcd.positions)
        XCTAssertEqual(ply.colors, pcd.colors)
        XCTAssertNotNil(ply.colors)

        // Float16 depth (the default format) rounds z by at most half a unit in the last place:
        // 1.95 mm between 4 and 8 m. The tolerance is 2 mm, the accuracy this capture promises.
        let tolerance: Float = 0.002
        var onFloor = 0
        var outside: [SIMD3<Float>] = []
        for i in 0..<ply.count {
            let p = ply.point(i)
            if !(p.x >= -tolerance && p.x <= 5 + tolerance && p.y >= -tolerance && p.y <= 4 + tolerance
                && p.z >= -tolerance && p.z <= 3 + tolerance)
            {
                outside.append(p)
            }
            if abs(p.z) < tolerance { onFloor += 1 }
        }
        XCTAssertEqual(outside.count, 0, "points outside the room, e.g. \(outside.prefix(3))")
        XCTAssertGreaterThan(onFloor, ply.count / 20, "the floor should be plainly visible")
        // Colors are real: several distinct surface colors, not a grey cloud.
        let distinct = Set(stride(from: 0, to: ply.count, by: 17).map { ply.color($0)! })
        XCTAssertGreaterThan(distinct.count, 20)
    }

    func testPlyHeaderCarriesNoCameraElementAndDeclaresColors() throws {
        let r = try CLI.run(["capture", "--source", "synthetic:noise=0", "--ply", "s.ply"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let data = try Data(contentsOf: dir.appendingPathComponent("s.ply"))
        let header = String(decoding: data.prefix(1024), as: UTF8.self).components(separatedBy: "end_header")[0]
        XCTAssertTrue(header.hasPrefix("ply\nformat binary_little_endian 1.0\n"), header)
        XCTAssertFalse(header.contains("element camera"), header)
        for property in [
            "property float x", "property float y", "property float z",
            "property uchar red", "property uchar green", "property uchar blue"
        ] {
            XCTAssertTrue(header.contains(property), "missing \(property) in\n\(header)")
        }
    }

    func testJSONReportShowsTheScaledCameraModelCountsFilesAndTimings() throws {
        let r = try CLI.run(["capture", "--source", "synthetic", "--range", "0.1,inf", "--pcd", "s.pcd", "--json"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let camera = try XCTUnwrap(json["camera"] as? [String: Any])
        let reference = try XCTUnwrap(camera["reference"] as? [String: Any])
        let depth = try XCTUnwrap(camera["depth"] as? [String: Any])
        let color = try XCTUnwrap(camera["color"] as? [String: Any])
        XCTAssertEqual(reference["width"] as? Int, 1920)
        XCTAssertEqual(depth["width"] as? Int, 256)
        XCTAssertEqual(depth["height"] as? Int, 192)
        XCTAssertEqual(color["width"] as? Int, 1920)
        // The depth intrinsics are the reference ones scaled by 256 / 1920, centre-preserving.
        let fx = try XCTUnwrap(reference["fx"] as? Double)
        let cx = try XCTUnwrap(reference["cx"] as? Double)
        XCTAssertEqual(try XCTUnwrap(depth["fx"] as? Double), fx * 256 / 1920, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(depth["cx"] as? Double), (cx + 0.5) * 256 / 1920 - 0.5, accuracy: 1e-9)
        XCTAssertEqual(camera["depthFormat"] as? String, "depthFloat16")
        let counts = try XCTUnwrap(json["counts"] as? [String: Int])
        XCTAssertEqual(counts["pixels"], 256 * 192)
        XCTAssertEqual(counts["points"], try XCTUnwrap(counts["valid"]) - (counts["droppedByRange"] ?? -1))
        let files = try XCTUnwrap(json["files"] as? [[String: Any]])
        XCTAssertEqual(files.first?["path"] as? String, "s.pcd")
        XCTAssertGreaterThan(files.first?["bytes"] as? Int ?? 0, 0)
        let stages = try XCTUnwrap(json["timings"] as? [[String: Any]]).compactMap { $0["stage"] as? String }
        XCTAssertEqual(stages, ["acquire", "convert", "backProject", "write"])
        let range = try XCTUnwrap(json["range"] as? [String: Any])
        XCTAssertEqual(range["max"] as? String, "inf")
        XCTAssertEqual(r.stderr, "", "--json leaves stderr quiet when nothing is wrong")
    }

    func testRangeThatDropsMostDepthWarnsOnStderr() throws {
        // The simulated camera sees the room from 1.2 m to 4 m: 0-1.8 m keeps about 30%.
        let r = try CLI.run(["capture", "--source", "synthetic", "--range", "0,1.8", "--ply", "s.ply"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: --range 0,1.8 dropped"), r.stderr)
        let kept = try CLI.run(["capture", "--source", "synthetic", "--range", "0,2.2", "--ply", "s.ply"], in: dir)
        XCTAssertEqual(kept.stderr, "", "dropping less than half says nothing")
    }

    func testRangeThatKeepsNothingIsBadInputAndWritesNothing() throws {
        let r = try CLI.run(["capture", "--source", "synthetic", "--range", "0,0.5", "--ply", "s.ply"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderrLines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("no points to write: --range 0,0.5 kept none of the"), r.stderr)
        XCTAssertEqual(filesIn(dir), [])
    }

    func testNoSourceAndNoCameraExitsThreeNamingSyntheticAndWritesNothing() throws {
        let r = try CLI.run(["capture", "--ply", "s.ply"], in: dir)
        XCTAssertEqual(r.status, 3)
        XCTAssertEqual(r.stderrLines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("--source synthetic"), r.stderr)
        XCTAssertEqual(filesIn(dir), [])
    }

    func testBadSpecsAndFlagsExitTwoWithOneLine() throws {
        let cases: [[String]] = [
            ["capture", "--source", "webcam:0", "--ply", "s.ply"],
            ["capture", "--source", "synthetic:room=0x3x2", "--ply", "s.ply"],
            ["capture", "--source", "synthetic:colour=640x480", "--ply", "s.ply"],
            ["capture", "--source", "synthetic", "--range", "2,1", "--ply", "s.ply"],
            ["capture", "--source", "synthetic", "--frame", "sideways", "--ply", "s.ply"],
            ["capture", "--source", "synthetic", "--encoding", "zip", "--ply", "s.ply"]
        ]
        for args in cases {
            let r = try CLI.run(args, in: dir)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderrLines.count, 1, "\(args): \(r.stderr)")
            XCTAssertEqual(filesIn(dir), [], "\(args) left a file behind")
        }
    }

    func testUnwritableOutputExitsThreeAndLeavesNothing() throws {
        let r = try CLI.run(["capture", "--source", "synthetic", "--ply", "missing/dir/s.ply"], in: dir)
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("missing/dir/s.ply"), r.stderr)
        XCTAssertEqual(filesIn(dir), [])
    }
}
