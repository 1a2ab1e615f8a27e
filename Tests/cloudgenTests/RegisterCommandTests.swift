import CloudCore
import Foundation
import XCTest

/// `capture --register`: Redwood's five living-room frames placed by poses found from their pixels
/// alone, written as a trajectory that is held to the trajectory.log Redwood ships with them.
final class RegisterCommandTests: XCTestCase {
    /// Redwood's trajectory.log: a header line, then the four rows of each camera-to-world matrix.
    private func redwoodTruth() throws -> [Pose] {
        let lines = try String(contentsOfFile: sharedData("open3d-rgbd/trajectory.log"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        return stride(from: 0, to: lines.count - 4, by: 5).map { i in
            let r = (1...3).map { lines[i + $0] }
            return Pose(
                rows: (SIMD3(r[0][0], r[0][1], r[0][2]), SIMD3(r[1][0], r[1][1], r[1][2]), SIMD3(r[2][0], r[2][1], r[2][2])),
                translation: SIMD3(r[0][3], r[1][3], r[2][3]))
        }
    }

    func testARegisteredFusedCaptureWritesATrajectoryThatFollowsRedwoods() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truth = try redwoodTruth()
        XCTAssertEqual(truth.count, 5)
        for name in ["poses.txt", "poses.log"] {
            let path = dir.appendingPathComponent(name).path
            let run = try CLI.run([
                "capture", "--source", "redwood:\(sharedData("open3d-rgbd"))", "--register", "--fuse",
                "--trajectory", path, "--ply", dir.appendingPathComponent("room.ply").path
            ])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertFalse(run.stderr.contains("not registered"), run.stderr)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let poses: [Pose]
            if name.hasSuffix(".txt") {
                // TUM's order: timestamp tx ty tz qx qy qz qw.
                let rows = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
                    $0.split(separator: " ").compactMap { Double($0) }
                }
                XCTAssertTrue(rows.allSatisfy { $0.count == 8 }, text)
                poses = try rows.map { v in
                    try XCTUnwrap(Pose(translation: SIMD3(v[1], v[2], v[3]), w: v[7], x: v[4], y: v[5], z: v[6]))
                }
            } else {
                let lines = text.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
                poses = stride(from: 0, to: lines.count - 4, by: 5).map { i in
                    let r = (1...3).map { lines[i + $0] }
                    return Pose(
                        rows: (SIMD3(r[0][0], r[0][1], r[0][2]), SIMD3(r[1][0], r[1][1], r[1][2]), SIMD3(r[2][0], r[2][1], r[2][2])),
                        translation: SIMD3(r[0][3], r[1][3], r[2][3]))
                }
            }
            XCTAssertEqual(poses.count, 5, text)
            // The world is the first camera's frame: each pose is the true one relative to the first.
            for (index, (pose, true_)) in zip(poses, truth).enumerated() {
                let expected = truth[0].inverted().composed(after: true_)
                let error = expected.inverted().composed(after: pose)
                XCTAssertLessThan(error.translationLength, 0.015, "\(name) frame \(index)")
                XCTAssertLessThan(error.angleDegrees, 1, "\(name) frame \(index)")
            }
        }
    }

    func testRegisteringAFileIsRefusedWithOneLine() throws {
        let run = try CLI.run(["measure", sharedData("pcl-clouds/bunny.pcd"), "--register"])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("--register"), run.stderr)
    }
}
