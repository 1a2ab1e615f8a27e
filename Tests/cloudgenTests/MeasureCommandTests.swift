import CloudCore
import CloudFiles
import Foundation
import XCTest

/// `cloudgen measure` as a script meets it: the JSON schema on a simulated room whose size is
/// known, the table, and every kind of input that holds no room (exit 2 with one line naming the
/// file, or a report whose missing numbers are null with a reason, never an invented one).
final class MeasureCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func measureJSON(_ arguments: [String]) throws -> [String: Any] {
        let r = try CLI.run(["measure"] + arguments + ["--json"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
    }

    func value(_ object: Any?) -> Double? { (object as? [String: Any])?["value"] as? Double }

    /// A fused orbit of a 5 x 4 x 2.8 m room, captured in memory: the walls close, four of them,
    /// each as long as the room's side, and the area is the room's.
    func testFusedSimulatedRoomFromASourceClosesWithTheRoomsSides() throws {
        let j = try measureJSON(["--source", "synthetic:room=5x4x2.8,path=orbit,frames=8,color=64x48", "--fuse"])
        XCTAssertEqual(j["schema"] as? String, "cloudgen.measure/1")
        XCTAssertEqual((j["up"] as? [String: Any])?["method"] as? String, "source")
        XCTAssertEqual(j["outline"] as? String, "closed")
        let walls = try XCTUnwrap(j["walls"] as? [[String: Any]])
        let lengths = walls.filter { $0["inOutline"] as? Bool == true }.compactMap { value($0["length"]) }.sorted()
        XCTAssertEqual(lengths.count, 4, "\(walls)")
        for (found, truth) in zip(lengths, [4.0, 4.0, 5.0, 5.0]) { XCTAssertEqual(found, truth, accuracy: 0.01) }
        XCTAssertEqual(try XCTUnwrap(value(j["area"])), 20, accuracy: 0.2)
        XCTAssertEqual(try XCTUnwrap(value(j["perimeter"])), 18, accuracy: 0.04)
        // Every documented key is there, null or not.
        for key in [
            "floor", "ceiling", "height", "area", "perimeter", "corners", "extents", "walls", "clutter", "cameras", "reasons", "warnings"
        ] {
            XCTAssertTrue(j.keys.contains(key), "no \(key)")
        }
        XCTAssertEqual((j["cameras"] as? [String: Any])?["count"] as? Int, 8)
        XCTAssertNotNil(j["clutter"] as? [[String: Any]])
    }

    /// The table names each number once, with its uncertainty.
    func testTableShowsAreaAndWalls() throws {
        let r = try CLI.run(["measure", "--source", "synthetic:room=4x3x2.5,path=orbit,frames=6,color=64x48", "--fuse"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("floor area"), r.stdout)
        XCTAssertTrue(r.stdout.contains("m² ±"), r.stdout)
        XCTAssertTrue(r.stdout.contains("closed outline of 4 walls"), r.stdout)
    }

    // MARK: Input that holds no room

    func write(_ name: String, _ points: [SIMD3<Float>]) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try CloudWriter.write(PointCloud(positions: points.flatMap { [$0.x, $0.y, $0.z] }), to: path)
        return path
    }

    func failure(_ arguments: [String]) throws -> String {
        let r = try CLI.run(["measure"] + arguments, in: dir)
        XCTAssertEqual(r.status, 2, "exit \(r.status): \(r.stderr)")
        XCTAssertEqual(r.stderrLines.count, 1, r.stderr)
        XCTAssertTrue(r.stdout.isEmpty, r.stdout)
        return r.stderr
    }

    /// A floor of 4 x 3 m seen by a camera 1.4 m above it, in the camera's frame (y down).
    func floorOnly(step: Float = 0.02, scale: Float = 1) -> [SIMD3<Float>] {
        var points: [SIMD3<Float>] = []
        var random = SplitMix64(seed: 7)
        for i in 0..<Int(4 / step) {
            for k in 0..<Int(3 / step) {
                let noise = Float(random.gaussian()) * 0.002
                points.append(SIMD3(-2 + Float(i) * step, 1.4 + noise, 0.5 + Float(k) * step) * scale)
            }
        }
        return points
    }

    func testTooFewPointsAndNaNOnlyExitTwoNamingTheFile() throws {
        let few = try write("few.ply", Array(floorOnly(step: 0.2).prefix(200)))
        XCTAssertTrue(try failure([few]).contains("few.ply: only 200 finite points; measuring a room needs at least 500"))
        // Written by hand: cloudgen itself refuses to write a cloud without a finite point.
        let nan = dir.appendingPathComponent("nan.ply").path
        let header = "ply\nformat ascii 1.0\nelement vertex 1000\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
        try Data((header + String(repeating: "nan nan nan\n", count: 1000)).utf8).write(to: URL(fileURLWithPath: nan))
        XCTAssertTrue(try failure([nan]).contains("nan.ply: no finite point"))
    }

    func testMillimetresAreCalledAUnitMistake() throws {
        let mm = try write("mm.ply", floorOnly(scale: 1000))
        let message = try failure([mm])
        XCTAssertTrue(message.contains("mm.ply: the cloud spans"), message)
        XCTAssertTrue(message.contains("not in metres (millimetres?)"), message)
    }

    /// Points scattered in a ball have no plane: up cannot be found, and with --up given every
    /// number is null with its reason.
    func testACloudWithoutPlanesHasNoInventedNumbers() throws {
        var random = SplitMix64(seed: 3)
        let ball = (0..<20_000).map { _ -> SIMD3<Float> in
            SIMD3(Float(random.gaussian()), Float(random.gaussian()), Float(random.gaussian()) + 4)
        }
        let path = try write("ball.ply", ball)
        XCTAssertTrue(try failure([path]).contains("ball.ply: cannot tell which way is up"))
        let j = try measureJSON([path, "--up=-y"])
        for key in ["floor", "ceiling", "height", "area", "perimeter"] {
            XCTAssertTrue(j[key] is NSNull, "\(key): \(String(describing: j[key]))")
            XCTAssertNotNil((j["reasons"] as? [String: String])?[key], key)
        }
        XCTAssertEqual((j["walls"] as? [Any])?.count, 0)
    }

    /// A single plane is a floor: the camera's height above it is measured, the room's height is
    /// not, and the area is that of the floor seen, flagged open.
    func testASinglePlaneGivesTheFloorAndTheCameraHeightOnly() throws {
        let j = try measureJSON([try write("floor.ply", floorOnly())])
        XCTAssertEqual((j["up"] as? [String: Any])?["method"] as? String, "planes")
        XCTAssertNotNil(j["floor"] as? [String: Any])
        XCTAssertTrue(j["height"] is NSNull)
        XCTAssertEqual((j["reasons"] as? [String: String])?["height"], "no ceiling seen")
        XCTAssertEqual(j["outline"] as? String, "open")
        XCTAssertEqual(try XCTUnwrap(value(j["area"])), 12, accuracy: 0.25)
        let camera = try XCTUnwrap((j["cameras"] as? [String: Any])?["height"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(camera["value"] as? Double), 1.4, accuracy: 0.002)
    }

    func testBadArgumentsExitTwo() throws {
        let floor = try write("floor.ply", floorOnly(step: 0.05))
        XCTAssertTrue(try failure([floor, "--leaf", "0"]).contains("--leaf 0.0: must be between 0.005 and 0.2 metres"))
        XCTAssertTrue(try failure([floor, "--up", "sideways"]).contains("sideways"))
        XCTAssertTrue(try failure([floor, "--source", "synthetic"]).contains("give a file or --source, not both"))
        XCTAssertTrue(try failure([]).contains("give a cloud file to measure, or --source SPEC"))
        XCTAssertTrue(try failure(["missing.ply"]).contains("missing.ply"))
        XCTAssertTrue(
            try failure(["--source", "synthetic:path=orbit,frames=3", "--frames", "3"]).contains("measure takes one cloud: add --fuse"))
    }
}

/// The example script of Docs/measure.md works on what measure prints: one CSV row per room,
/// and a room that fails named on stderr.
final class MeasureExampleScriptTests: XCTestCase {
    func testRoomsToCSVReadsTheReports() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let room = dir.appendingPathComponent("room.ply").path
        let made = try CLI.run([
            "capture", "--source", "synthetic:room=4x3x2.5,path=scan,frames=6,color=32x24", "--fuse", "--frame", "world",
            "--ply", room
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Docs/examples/rooms_to_csv.py"
        ).standardized
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, room, dir.appendingPathComponent("missing.ply").path]
        var environment = ProcessInfo.processInfo.environment
        environment["CLOUDGEN"] = CLI.executable.path
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, "one of the two rooms failed: \(stderr)")
        let rows = stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard rows.count == 2, rows[1].count == 10 else { return XCTFail("expected a header and one row: \(stdout)\n\(stderr)") }
        XCTAssertEqual(rows[0].first, "source")
        let row = rows[1]
        XCTAssertEqual(row[0], room)
        XCTAssertEqual(row[1], "closed")
        XCTAssertEqual(try XCTUnwrap(Double(row[2])), 2.5, accuracy: 0.01, "height")
        XCTAssertEqual(try XCTUnwrap(Double(row[4])), 12, accuracy: 0.12, "area")
        XCTAssertEqual(row[8], "4")
        XCTAssertTrue(stderr.contains("missing.ply"), stderr)
    }
}
