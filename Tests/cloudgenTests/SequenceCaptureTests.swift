import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

final class SequenceCaptureTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A source with fewer frames than asked says so; each file of an unfused sequence is reported
    /// with its own points, and the header line does not sum them.
    func testFewerFramesThanAskedAreNamed() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:path=orbit,frames=2,noise=0,color=320x240,depth=64x48",
                "--frames", "4", "--ply", "s.ply"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(filesIn(dir), ["s_000.ply", "s_001.ply"])
        XCTAssertTrue(r.stderr.contains("--frames 4: the source has only 2 frames"), r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("2 frames, one file each, from synthetic:") ?? false, r.stdout)
        for (i, line) in lines.dropFirst().enumerated() {
            let points = try CloudReader.read(dir.appendingPathComponent(String(format: "s_%03d.ply", i)).path).cloud.count
            XCTAssertTrue(line.contains(", \(points) points, "), "\(line) should give its file's \(points) points")
        }
    }

    /// An orbit around the room's centre sees every wall; fused by the known poses, all points lie
    /// inside the room and on all four walls.
    func testFusedOrbitCoversTheWholeRoom() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:path=orbit,frames=8,noise=0,color=320x240",
                "--fuse", "--ply", "room.ply", "--json"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["frames"] as? Int, 8)
        XCTAssertEqual(report["fused"] as? Bool, true)
        XCTAssertEqual(report["frame"] as? String, "world")
        XCTAssertTrue(r.stderr.hasPrefix("cloudgen: captured 8 frames"), "one summary line when stderr is not a terminal: \(r.stderr)")
        let cloud = try CloudReader.read(dir.appendingPathComponent("room.ply").path).cloud
        XCTAssertEqual(cloud.count, (report["counts"] as? [String: Int])?["points"])
        let (room, tolerance) = (SIMD3<Float>(4, 3, 2.5), Float(0.002))
        var walls = [0, 0, 0, 0]
        var outside = 0
        for i in 0..<cloud.count {
            let p = cloud.point(i)
            if any(p .< -tolerance) || any(p .> room + tolerance) { outside += 1 }
            if p.z > 0.8 {
                if abs(p.x) < tolerance { walls[0] += 1 }
                if abs(p.x - room.x) < tolerance { walls[1] += 1 }
                if abs(p.y) < tolerance { walls[2] += 1 }
                if abs(p.y - room.y) < tolerance { walls[3] += 1 }
            }
        }
        XCTAssertEqual(outside, 0)
        XCTAssertTrue(walls.allSatisfy { $0 > 500 }, "points on the west, east, south, north walls: \(walls)")
    }

    func testUnfusedSequenceWritesOneFilePerFrame() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:path=walk,frames=3,depth=64x48,color=64x48",
                "--frames", "all", "--pcd", "walk.pcd"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(filesIn(dir), ["walk_000.pcd", "walk_001.pcd", "walk_002.pcd"])
        let first = try CloudReader.read(dir.appendingPathComponent("walk_000.pcd").path).cloud
        let last = try CloudReader.read(dir.appendingPathComponent("walk_002.pcd").path).cloud
        XCTAssertNotEqual(first.positions, last.positions, "the camera moved")
        let two = try CLI.run(
            [
                "capture", "--source", "synthetic:path=walk,frames=3,depth=64x48,color=64x48",
                "--frames", "2", "--pcd", "two.pcd"
            ], in: dir)
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertTrue(filesIn(dir).contains("two_001.pcd") && !filesIn(dir).contains("two_002.pcd"))
    }

    func testFuseWithoutPosesIsRefused() throws {
        // A bundle written without poses stands in for any unposed sequence.
        let made = try CLI.run(
            [
                "capture", "--source", "synthetic:frames=2,depth=32x24,color=32x24", "--frames", "all",
                "--bundle", "b"
            ], in: dir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let manifest = dir.appendingPathComponent("b/manifest.json")
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        var frames = try XCTUnwrap(json["frames"] as? [[String: Any]])
        for i in frames.indices { frames[i].removeValue(forKey: "cameraToWorld") }
        json["frames"] = frames
        try JSONSerialization.data(withJSONObject: json).write(to: manifest)
        let r = try CLI.run(["capture", "--source", "bundle:b", "--fuse", "--ply", "f.ply"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--fuse needs a posed sequence"), r.stderr)
        XCTAssertFalse(filesIn(dir).contains("f.ply"))
    }
}
