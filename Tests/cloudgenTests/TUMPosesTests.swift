import CloudCapture
import CloudCore
import CloudFiles
import Foundation
import XCTest

/// `tum:DIR` with its groundtruth.txt, end to end on a sequence whose geometry is known: the
/// simulated camera's frames of a room, exported (`--rgbd`) and laid out as a TUM sequence, with a
/// ground truth written from the camera's true poses as TUM writes them (quaternions, at the
/// motion-capture system's own times, a few milliseconds off the frames'). The fused cloud must be
/// the simulator's own world-frame clouds of the posed frames, to the depth's millimetre rounding.
final class TUMPosesTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    static let frames = 6
    /// The frame whose nearest ground-truth sample is 30 ms away: out of reach, so left out.
    static let unposedFrame = 3
    static let start = 1305031102.0

    /// Depth frame i's time; color comes 8 ms later, as TUM's two streams are not triggered together.
    static func depthTime(_ i: Int) -> Double { start + Double(i) * 0.1 + 0.0004 * Double(i) }

    /// The simulated room's frames exported, and the same frames as a TUM sequence.
    private func makeSequence() throws -> (tum: URL, export: URL) {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:room=4x3x2.5,frames=\(Self.frames),color=64x48", "--frames", "all",
                "--frame", "world", "--rgbd", "export", "--ply", "world.ply"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let export = dir.appendingPathComponent("export")
        let poses = try TrajectoryLog.read(export.appendingPathComponent("trajectory.log").path)
        XCTAssertEqual(poses.count, Self.frames)

        let tum = dir.appendingPathComponent("tum")
        for folder in ["rgb", "depth"] {
            try FileManager.default.createDirectory(at: tum.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        var rgb = "# color images\n# timestamp filename\n"
        var depth = "# depth maps\n# timestamp filename\n"
        var truth = "# ground truth trajectory\n# timestamp tx ty tz qx qy qz qw\n"
        let fm = FileManager.default
        for i in 0..<Self.frames {
            let name = String(format: "%06d.png", i)
            let t = Self.depthTime(i)
            let (colorName, depthName) = (String(format: "rgb/%.6f.png", t + 0.008), String(format: "depth/%.6f.png", t))
            try fm.createSymbolicLink(
                atPath: tum.appendingPathComponent(colorName).path, withDestinationPath: export.appendingPathComponent("color/\(name)").path
            )
            try fm.createSymbolicLink(
                atPath: tum.appendingPathComponent(depthName).path, withDestinationPath: export.appendingPathComponent("depth/\(name)").path
            )
            rgb += String(format: "%.6f %@\n", t + 0.008, colorName)
            depth += String(format: "%.6f %@\n", t, depthName)
            // The true pose 11 ms after the frame (30 ms for the frame left out), and decoys 50 ms
            // either side, a metre off: only the nearest sample may be taken.
            let v = poses[i].viewpoint  // tx ty tz qw qx qy qz
            let offset = i == Self.unposedFrame ? 0.030 : 0.011
            func line(_ time: Double, _ shift: Double) -> String {
                String(format: "%.6f %.9f %.9f %.9f %.12f %.12f %.12f %.12f\n", time, v[0] + shift, v[1], v[2], v[4], v[5], v[6], v[3])
            }
            truth += line(t - 0.05, 1) + line(t + offset, 0) + line(t + 0.05, 1)
        }
        try rgb.write(to: tum.appendingPathComponent("rgb.txt"), atomically: true, encoding: .utf8)
        try depth.write(to: tum.appendingPathComponent("depth.txt"), atomically: true, encoding: .utf8)
        try truth.write(to: tum.appendingPathComponent("groundtruth.txt"), atomically: true, encoding: .utf8)
        return (tum, export)
    }

    func testFusedSequenceIsTheRoomSeenFromTheTruePosesAndTheUnposedFrameIsLeftOutAndNamed() throws {
        let (tum, export) = try makeSequence()
        let r = try CLI.run(
            [
                "capture", "--source", "tum:\(tum.path)", "--intrinsics", export.appendingPathComponent("camera_intrinsic.json").path,
                "--depth-scale", "1000", "--fuse", "--ply", "fused.ply"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("groundtruth.txt: 1 of 6 depth frames have no pose within 20 ms"), r.stderr)
        XCTAssertTrue(r.stderr.contains(String(format: "%.6f", Self.depthTime(Self.unposedFrame))), r.stderr)

        let fused = try CloudReader.read(dir.appendingPathComponent("fused.ply").path).cloud
        // A fused cloud is its frames' clouds one after the other.
        var positions: [Float] = []
        var colors: [UInt8] = []
        for i in 0..<Self.frames where i != Self.unposedFrame {
            let world = try CloudReader.read(dir.appendingPathComponent(String(format: "world_%03d.ply", i)).path).cloud
            positions += world.positions
            colors += try XCTUnwrap(world.colors)
        }
        XCTAssertEqual(fused.positions.count, positions.count, "the five posed frames' points, no more, no fewer")
        guard fused.positions.count == positions.count else { return }
        XCTAssertEqual(fused.colors, colors)
        let worst = zip(fused.positions, positions).map { abs($0 - $1) }.max() ?? .infinity
        // Depth is rounded to the millimetre in the export; a decoy pose would be a metre off.
        XCTAssertLessThan(worst, 0.001, "largest difference from the true world-frame points")
    }

    func testCameraFrameCapturesKeepEveryFrameAndAGroundTruthOfAnotherSequenceSaysSo() throws {
        let (tum, export) = try makeSequence()
        let intrinsics = export.appendingPathComponent("camera_intrinsic.json").path
        let all = try CLI.run(
            [
                "capture", "--source", "tum:\(tum.path)", "--intrinsics", intrinsics, "--depth-scale", "1000",
                "--frames", "all", "--ply", "camera.ply"
            ], in: dir)
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertEqual(filesIn(dir).filter { $0.hasPrefix("camera_") }.count, Self.frames, "no frame needs a pose in the camera frame")

        // Ground truth from a minute later: no frame has a pose.
        let truth = tum.appendingPathComponent("groundtruth.txt")
        let shifted = try String(contentsOf: truth, encoding: .utf8).split(separator: "\n").map { line -> String in
            guard !line.hasPrefix("#"), let t = Double(line.prefix { $0 != " " }) else { return String(line) }
            return String(format: "%.6f", t + 60) + line.drop { $0 != " " }
        }.joined(separator: "\n")
        try shifted.write(to: truth, atomically: true, encoding: .utf8)
        let fused = try CLI.run(
            [
                "capture", "--source", "tum:\(tum.path)", "--intrinsics", intrinsics, "--depth-scale", "1000",
                "--fuse", "--ply", "fused.ply"
            ], in: dir)
        XCTAssertEqual(fused.status, 2)
        XCTAssertEqual(fused.stderrLines.count, 1, fused.stderr)
        XCTAssertTrue(fused.stderr.contains("tum:\(tum.path): none of its 6 frames has a pose"), fused.stderr)
        // Captured in the camera frame, where no pose is needed, the sequence says why.
        let camera = try CLI.run(
            [
                "capture", "--source", "tum:\(tum.path)", "--intrinsics", intrinsics, "--depth-scale", "1000",
                "--ply", "one.ply"
            ], in: dir)
        XCTAssertEqual(camera.status, 0, camera.stderr)
        XCTAssertTrue(camera.stderr.contains("groundtruth.txt: no pose within 20 ms of any depth frame"), camera.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("fused.ply").path))
    }
}
