import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

/// `--normals [RADIUS]` end to end: the default radius, the files' fields, orientation in the
/// world frame (also of a fused sequence), its place among the other filters, and refusals.
final class NormalsCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func json(_ r: CLI.Result) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
    }

    /// Normals of the room's floor and walls (a room of the default 4 x 3 x 2.5 m) point into the
    /// room, where the cameras stand: within 60 degrees of the inward axis for 98% of those points
    /// (the library's tests hold the angles to 2 degrees; this is about which way they face).
    func assertRoomNormalsFaceInward(_ cloud: PointCloud, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let normals = try XCTUnwrap(cloud.normals, file: file, line: line)
        let size = SIMD3<Float>(4, 3, 2.5)
        var (onWalls, inward) = (0, 0)
        for i in 0..<cloud.count {
            let p = cloud.point(i)
            let n = SIMD3(normals[3 * i], normals[3 * i + 1], normals[3 * i + 2])
            guard n.x.isFinite else { continue }
            // The floor (z = 0) and the four walls; the ceiling is out of view.
            for axis in 0..<3 {
                for (plane, direction) in [(Float(0), Float(1)), (size[axis], -1)] where axis < 2 || plane == 0 {
                    guard abs(p[axis] - plane) < 0.01 else { continue }
                    onWalls += 1
                    inward += n[axis] * direction > 0.5 ? 1 : 0
                }
            }
        }
        XCTAssertGreaterThan(onWalls, 1000, "\(what): points on the floor and walls", file: file, line: line)
        XCTAssertGreaterThan(Double(inward), 0.98 * Double(onWalls), "\(what): normals facing into the room", file: file, line: line)
    }

    func testNormalsWithoutAValueTakeFiveCentimetresAndReachBothFiles() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:noise=0", "--frame", "world", "--normals",
                "--ply", "room.ply", "--pcd", "room.pcd", "--json"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let filters = try XCTUnwrap(try json(r)["filters"] as? [[String: Any]])
        XCTAssertEqual(filters.count, 1)
        XCTAssertEqual(filters[0]["name"] as? String, "normals")
        XCTAssertEqual(filters[0]["argument"] as? String, "--normals 0.05")
        XCTAssertEqual((filters[0]["parameters"] as? [String: Any])?["radius"] as? Double, 0.05)
        XCTAssertEqual(filters[0]["pointsIn"] as? Int, filters[0]["pointsOut"] as? Int, "normals drop no point")

        let ply = try CloudReader.read(path("room.ply"))
        let pcd = try CloudReader.read(path("room.pcd"))
        XCTAssertEqual(Array(ply.header.fields.suffix(4)), ["nx", "ny", "nz", "curvature"])
        XCTAssertEqual(Array(pcd.fields.suffix(4)), ["normal_x", "normal_y", "normal_z", "curvature"])
        XCTAssertEqual(ply.cloud.normals, pcd.cloud.normals)
        XCTAssertEqual(ply.cloud.curvature, pcd.cloud.curvature)
        let curvature = try XCTUnwrap(pcd.cloud.curvature)
        XCTAssertTrue(curvature.allSatisfy { $0.isNaN || (0...(1.0 / 3 + 1e-4)).contains($0) }, "surface variation lies in [0, 1/3]")
        try assertRoomNormalsFaceInward(ply.cloud, "world frame")
    }

    /// A fused sequence has no single camera: its normals face the cameras' mean position, which
    /// lies inside the room.
    func testFusedNormalsFaceIntoTheRoom() throws {
        let r = try CLI.run(
            [
                "capture", "--source", "synthetic:noise=0,path=orbit,frames=3", "--fuse", "--voxel", "0.02",
                "--normals", "0.08", "--ply", "fused.ply"
            ], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        try assertRoomNormalsFaceInward(try CloudReader.read(path("fused.ply")).cloud, "fused")
    }

    /// The steps run in the order given: normals before the voxel grid are averaged into the
    /// voxels; after it they are fitted to the centroids. Either way every written point has them.
    func testNormalsTakeTheirPlaceAmongTheFilters() throws {
        for flags in [["--normals", "--voxel", "0.03"], ["--voxel", "0.03", "--normals", "0.1"], ["--sor", "20,2", "--normals"]] {
            let r = try CLI.run(["capture", "--source", "synthetic:seed=2"] + flags + ["--pcd", "out.pcd", "--json"], in: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            let names = try XCTUnwrap(try json(r)["filters"] as? [[String: Any]]).compactMap { $0["name"] as? String }
            XCTAssertEqual(names, flags.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) }, flags.joined(separator: " "))
            let cloud = try CloudReader.read(path("out.pcd")).cloud
            XCTAssertEqual(cloud.normals?.count, 3 * cloud.count, flags.joined(separator: " "))
            XCTAssertEqual(cloud.curvature?.count, cloud.count, flags.joined(separator: " "))
        }
        // convert keeps what the file has and adds normals to a file that had none.
        XCTAssertEqual(try CLI.run(["capture", "--source", "synthetic:seed=2", "--pcd", "plain.pcd"], in: dir).status, 0)
        let r = try CLI.run(["convert", "plain.pcd", "--normals", "--ply", "with-normals.ply"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNotNil(try CloudReader.read(path("with-normals.ply")).cloud.curvature)
    }

    func testBadRadiiAreRefusedWithASensibleValue() throws {
        for value in ["0", "-0.05", "nan", "inf", "5cm"] {
            let r = try CLI.run(["capture", "--source", "synthetic", "--normals", value, "--ply", "bad.ply"], in: dir)
            XCTAssertEqual(r.status, 2, "--normals \(value)")
            XCTAssertTrue(r.stderr.hasPrefix("cloudgen: --normals \(value): "), r.stderr)
            XCTAssertTrue(r.stderr.contains("e.g. 0.05"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
        XCTAssertEqual(filesIn(dir), [], "a refused capture writes nothing")
    }
}
