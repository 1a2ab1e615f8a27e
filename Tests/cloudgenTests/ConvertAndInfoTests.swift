import Foundation
import XCTest

final class ConvertAndInfoTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func info(_ path: String) throws -> [String: Any] {
        let r = try CLI.run(["info", path, "--json"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
    }

    /// PCL's organized grabber frame: 640x480 with NaN where the Kinect saw nothing.
    func testInfoDescribesAnOrganizedPCLFrame() throws {
        let j = try info(sharedData("pcl-grabber/frame_20121214T142255.814212.pcd"))
        // The points capture makes of the same frame (the grabber's own count of valid pixels).
        XCTAssertEqual(j["points"] as? Int, 271_575)
        let grid = try XCTUnwrap(j["organized"] as? [String: Int])
        XCTAssertEqual(grid, ["width": 640, "height": 480, "emptyCells": 640 * 480 - 271_575])
        XCTAssertEqual(j["hasColors"] as? Bool, true)
        XCTAssertEqual(j["fields"] as? [String], ["x", "y", "z", "rgba"])
        let bounds = try XCTUnwrap(j["bounds"] as? [String: [Double]])
        XCTAssertGreaterThan(bounds["min"]?[2] ?? 0, 0.3, "Kinect depth starts beyond 0.3 m")
    }

    func testConvertPCDToPLYAndBackKeepsCountAndColors() throws {
        let source = sharedData("pcl-clouds/milk_color.pcd")
        let r = try CLI.run(["convert", source, "--ply", "m.ply"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let r2 = try CLI.run(["convert", "m.ply", "--pcd", "m.pcd", "--encoding", "compressed"], in: dir)
        XCTAssertEqual(r2.status, 0, r2.stderr)
        let a = try info(source)
        let b = try info("m.ply")
        let c = try info("m.pcd")
        XCTAssertEqual(a["points"] as? Int, b["points"] as? Int)
        XCTAssertEqual(a["points"] as? Int, c["points"] as? Int)
        XCTAssertEqual(c["hasColors"] as? Bool, true)
        XCTAssertEqual((a["bounds"] as? [String: [Double]])?["max"], (c["bounds"] as? [String: [Double]])?["max"])
        // PCD's own name for the encoding, as the service's format query spells it: the same file.
        let r3 = try CLI.run(["convert", "m.ply", "--pcd", "m2.pcd", "--encoding", "binary_compressed"], in: dir)
        XCTAssertEqual(r3.status, 0, r3.stderr)
        XCTAssertEqual(
            try Data(contentsOf: dir.appendingPathComponent("m2.pcd")), try Data(contentsOf: dir.appendingPathComponent("m.pcd")))
    }

    /// Lying headers and truncated bodies: exit 2, one line naming the file, no output file.
    func testBadCloudFilesExitTwoNamingTheFileAndWriteNothing() throws {
        let body = [UInt8](repeating: 0, count: 12 * 10)
        let files: [(String, Data)] = [
            (
                "huge.pcd",
                Data(
                    "# .PCD v0.7\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 1000000000000\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 1000000000000\nDATA binary\n"
                        .utf8) + body
            ),
            (
                "huge.ply",
                Data(
                    "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
                        .utf8) + body
            ),
            (
                "short.pcd",
                Data(
                    "# .PCD v0.7\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 100\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 100\nDATA binary\n"
                        .utf8) + body
            ),
            (
                "short.ply",
                Data(
                    "ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
                        .utf8) + body
            ),
            ("garbage.ply", Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) })),
            ("empty.pcd", Data())
        ]
        for (name, data) in files {
            try data.write(to: dir.appendingPathComponent(name))
            for args in [["convert", name, "--ply", "out.ply"], ["info", name]] {
                let r = try CLI.run(args, in: dir)
                XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
                XCTAssertEqual(r.stderrLines.count, 1, "\(args): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(name), "\(args): \(r.stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.ply").path))
            }
        }
        let missing = try CLI.run(["info", "nowhere.pcd"], in: dir)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nowhere.pcd"), missing.stderr)
        XCTAssertEqual(filesIn(dir), files.map(\.0).sorted(), "only the inputs remain")
    }

    /// A mesh's faces and a file's extra fields are named, never dropped silently: `info` lists
    /// them as not read, `convert` warns for each.
    func testWhatIsNotCarriedOverIsNamed() throws {
        let cube = sharedData("pcl-clouds/cube.ply")
        let j = try info(cube)
        XCTAssertEqual(j["points"] as? Int, 24)
        let elements = try XCTUnwrap(j["otherElements"] as? [[String: Any]])
        XCTAssertEqual(elements.map { $0["name"] as? String }, ["face"])
        XCTAssertEqual(elements.first?["count"] as? Int, 12)
        let r = try CLI.run(["convert", cube, "--ply", "cube-points.ply"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("cube.ply: element face (12) is not carried over"), r.stderr)

        // PCL's XYZRGBA frame: alpha is part of the packed rgba, nothing is left over.
        XCTAssertEqual(try info(sharedData("pcl-grabber/frame_20121214T142255.814212.pcd"))["ignoredFields"] as? [String], [])
        try
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nproperty float intensity\nend_header\n1 2 3 0.5\n"
            .write(to: dir.appendingPathComponent("i.ply"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try info("i.ply")["ignoredFields"] as? [String], ["intensity"])
        let i = try CLI.run(["convert", "i.ply", "--pcd", "i.pcd"], in: dir)
        XCTAssertTrue(i.stderr.contains("i.ply: fields intensity are not carried over"), i.stderr)
    }

    /// PLY has no compressed encoding: asked for one beside a PCD, it is written binary and says so.
    func testCompressedPLYSaysWhatItWrites() throws {
        let r = try CLI.run(
            ["convert", sharedData("pcl-clouds/bunny.pcd"), "--ply", "b.ply", "--pcd", "b.pcd", "--encoding", "compressed"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("b.ply: PLY has no compressed encoding; it is written binary_little_endian"), r.stderr)
        XCTAssertEqual(try info("b.ply")["format"] as? String, "PLY binary_little_endian")
        XCTAssertEqual(try info("b.pcd")["format"] as? String, "PCD binary_compressed")
    }

    func testConvertWithoutAnOutputIsAUsageError() throws {
        let r = try CLI.run(["convert", sharedData("pcl-clouds/bunny.pcd")], in: dir)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--ply"), r.stderr)
    }
}
