import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

/// The filter flags end to end: on the simulated room against PCL's command-line tools, in the
/// order given, in `--json`, with the organized grid, and refusing bad parameters with exit 2 and
/// a value that would work.
final class FilterCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// The simulated room with noise (so the outlier filters have something to find), as PCD.
    func captureRoom() throws -> String {
        let r = try CLI.run(["capture", "--source", "synthetic:seed=3", "--pcd", "room.pcd"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        return path("room.pcd")
    }

    func finitePoints(_ file: String) throws -> Int { try CloudReader.read(file).cloud.finiteCount }

    /// Runs a pcl-tools program with OUT standing for `output` (by default a fresh file); the
    /// finite points it wrote.
    @discardableResult
    func tool(
        _ name: String, _ arguments: [String], output: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int {
        let executable = "/usr/bin/\(name)"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            XCTFail(
                "\(executable) is missing: install Debian's pcl-tools (Tools/bootstrap does) to compare against PCL", file: file, line: line
            )
            throw CocoaError(.fileNoSuchFile)
        }
        let out = output ?? path("\(name)-\(UUID().uuidString).pcd")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments.map { $0 == "OUT" ? out : $0 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(name) failed", file: file, line: line)
        return try finitePoints(out)
    }

    func testSimulatedRoomFiltersMatchPclTools() throws {
        let room = try captureRoom()
        let comparisons: [([String], String, [String])] = [
            (["--voxel", "0.02"], "pcl_voxel_grid", [room, "OUT", "-leaf", "0.02,0.02,0.02"]),
            (["--voxel", "0.005"], "pcl_voxel_grid", [room, "OUT", "-leaf", "0.005,0.005,0.005"]),
            (["--sor", "20,2"], "pcl_outlier_removal", [room, "OUT", "-method", "statistical", "-mean_k", "20", "-std_dev_mul", "2"]),
            (["--sor", "8,0.5"], "pcl_outlier_removal", [room, "OUT", "-method", "statistical", "-mean_k", "8", "-std_dev_mul", "0.5"]),
            (["--radius", "0.03,4"], "pcl_outlier_removal", [room, "OUT", "-method", "radius", "-radius", "0.03", "-min_pts", "4"]),
            (["--range", "1.5,3.2"], "pcl_passthrough_filter", [room, "OUT", "-field", "z", "-min", "1.5", "-max", "3.2", "-keep", "0"])
        ]
        for (flags, name, arguments) in comparisons {
            let r = try CLI.run(["convert", room, "--pcd", "out.pcd"] + flags, in: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            let ours = try finitePoints(path("out.pcd"))
            XCTAssertEqual(ours, try tool(name, arguments), "\(flags.joined(separator: " ")) against \(name)")
            XCTAssertTrue(r.stdout.contains("-> \(ours) points"), r.stdout)
        }
        // CropBox: three inclusive pass-throughs, x then y then z.
        let r = try CLI.run(["convert", room, "--pcd", "out.pcd", "--crop", "-0.5,-0.4,1.2,0.6,0.5,2.8"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        var input = room
        for (axis, lo, hi) in [("x", "-0.5", "0.6"), ("y", "-0.4", "0.5"), ("z", "1.2", "2.8")] {
            let next = path("crop-\(axis).pcd")
            try tool("pcl_passthrough_filter", [input, "OUT", "-field", axis, "-min", lo, "-max", hi, "-keep", "0"], output: next)
            input = next
        }
        XCTAssertEqual(try finitePoints(path("out.pcd")), try finitePoints(input))
    }

    func testCaptureFiltersEqualFilteringTheCapturedFile() throws {
        let room = try captureRoom()
        let r = try CLI.run(["capture", "--source", "synthetic:seed=3", "--voxel", "0.02", "--pcd", "filtered.pcd"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            try finitePoints(path("filtered.pcd")),
            try tool("pcl_voxel_grid", [room, "OUT", "-leaf", "0.02,0.02,0.02"]))
    }

    func testStepsRunInCommandLineOrderAndJSONListsThem() throws {
        func run(_ flags: [String]) throws -> [String: Any] {
            let r = try CLI.run(["capture", "--source", "synthetic:seed=3", "--pcd", "o.pcd", "--json"] + flags, in: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        let voxelFirst = try run(["--voxel", "0.05", "--sor", "6,1"])
        let sorFirst = try run(["--sor=6,1", "--voxel=0.05"])
        let a = try XCTUnwrap(voxelFirst["filters"] as? [[String: Any]])
        let b = try XCTUnwrap(sorFirst["filters"] as? [[String: Any]])
        XCTAssertEqual(a.compactMap { $0["name"] as? String }, ["voxel", "sor"])
        XCTAssertEqual(b.compactMap { $0["name"] as? String }, ["sor", "voxel"])
        XCTAssertEqual(a.compactMap { $0["argument"] as? String }, ["--voxel 0.05", "--sor 6,1"])
        XCTAssertEqual(a[0]["parameters"] as? [String: Double], ["leaf": 0.05])
        XCTAssertEqual(a[1]["parameters"] as? [String: Double], ["k": 6, "stddev": 1])
        for (json, steps) in [(voxelFirst, a), (sorFirst, b)] {
            // Each step starts from the previous one's points; the first from back-projection's.
            let counts = try XCTUnwrap(json["counts"] as? [String: Int])
            XCTAssertEqual(steps[0]["pointsIn"] as? Int, counts["points"])
            XCTAssertEqual(steps[1]["pointsIn"] as? Int, steps[0]["pointsOut"] as? Int)
            let files = try XCTUnwrap(json["files"] as? [[String: Any]])
            XCTAssertEqual(files[0]["points"] as? Int, steps[1]["pointsOut"] as? Int)
            XCTAssertTrue(steps.allSatisfy { ($0["milliseconds"] as? Double ?? -1) >= 0 })
            let stages = try XCTUnwrap(json["timings"] as? [[String: Any]]).compactMap { $0["stage"] as? String }
            XCTAssertEqual(stages, ["acquire", "convert", "backProject", "filter", "write"])
        }
        // The order changes the result: outliers among all points are not outliers among voxels.
        XCTAssertNotEqual(a[1]["pointsOut"] as? Int, b[1]["pointsOut"] as? Int)

        let plain = try run([])
        XCTAssertEqual((plain["filters"] as? [Any])?.count, 0)
    }

    func testCaptureRangeStaysABackProjectionLimitWhereverItStands() throws {
        let r = try CLI.run(
            ["capture", "--source", "synthetic:seed=3", "--voxel", "0.02", "--range", "0.5,3", "--pcd", "o.pcd", "--json"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let counts = try XCTUnwrap(json["counts"] as? [String: Int])
        XCTAssertGreaterThan(counts["droppedByRange"] ?? 0, 0)
        let filters = try XCTUnwrap(json["filters"] as? [[String: Any]])
        XCTAssertEqual(filters.compactMap { $0["name"] as? String }, ["voxel"])
        XCTAssertEqual(filters[0]["pointsIn"] as? Int, counts["points"])
    }

    func testOrganizedKeepsTheDepthGridThroughSelectionsButNotThroughVoxels() throws {
        var r = try CLI.run(
            ["capture", "--source", "synthetic:seed=3", "--organized", "--crop", "-1,-1,0,1,1,3", "--sor", "10,2", "--pcd", "g.pcd"],
            in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let grid = try CloudReader.read(path("g.pcd")).cloud
        XCTAssertEqual(grid.organized, PointCloud.Grid(width: 256, height: 192))
        r = try CLI.run(["capture", "--source", "synthetic:seed=3", "--crop", "-1,-1,0,1,1,3", "--sor", "10,2", "--pcd", "l.pcd"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let list = try CloudReader.read(path("l.pcd")).cloud
        XCTAssertNil(list.organized)
        XCTAssertEqual(grid.finiteCount, list.count)

        r = try CLI.run(["capture", "--source", "synthetic:seed=3", "--organized", "--voxel", "0.05", "--pcd", "v.pcd"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: --voxel 0.05 drops the organized grid"), r.stderr)
        XCTAssertNil(try CloudReader.read(path("v.pcd")).cloud.organized)
    }

    func testConvertRangeIsAStepInOrderAndOrganizedInputFlattensOnlyWhenFiltered() throws {
        let frame = sharedData("pcl-grabber/frame_20121214T142255.814212.pcd")
        var r = try CLI.run(["convert", frame, "--pcd", "a.pcd", "--range", "0.8,1.6", "--voxel", "0.02"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("--range 0.8,1.6: 271575 -> 199928 points"), r.stdout)
        XCTAssertNil(try CloudReader.read(path("a.pcd")).cloud.organized)
        r = try CLI.run(["convert", frame, "--pcd", "b.pcd", "--range", "0.8,1.6", "--organized"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let organized = try CloudReader.read(path("b.pcd")).cloud
        XCTAssertEqual(organized.organized, PointCloud.Grid(width: 640, height: 480))
        XCTAssertEqual(organized.finiteCount, 199_928)
    }

    /// In the simulated room the camera looks down past the table: its top (1.2 x 0.8 m, upper
    /// face at 0.75 m, centred at 0.72 W, 0.74 D) stands clear of the floor behind a depth gap,
    /// and is nearer than any other free-standing surface; the box on it belongs to it.
    func testForegroundOfTheSimulatedRoomIsTheTableTopWithItsBox() throws {
        let r = try CLI.run(["capture", "--source", "synthetic:noise=0", "--frame", "world", "--foreground", "--pcd", "fg.pcd"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let cloud = try CloudReader.read(path("fg.pcd")).cloud
        XCTAssertGreaterThan(cloud.count, 2000)
        let (cx, cy) = (0.72 * 4.0, 0.74 * 3.0)
        var onTop = 0
        var onBox = 0
        for i in 0..<cloud.count {
            let p = SIMD3<Double>(cloud.point(i))
            XCTAssertTrue(abs(p.x - cx) <= 0.602 && abs(p.y - cy) <= 0.402 && p.z >= 0.708 && p.z <= 0.952, "\(p) is off the table")
            if abs(p.z - 0.75) < 0.002 { onTop += 1 }
            if p.z > 0.76 { onBox += 1 }
        }
        XCTAssertGreaterThan(onTop, cloud.count / 2)
        XCTAssertGreaterThan(onBox, 100)
    }

    func testBadParametersExitTwoSayingWhatWouldWorkAndWriteNothing() throws {
        let cases: [([String], String)] = [
            (["--voxel", "0"], "--voxel 0: the leaf must be a positive number of metres, e.g. 0.01"),
            (["--voxel", "0.00001"], "--voxel 0.00001: leaf too small for this"),
            (["--sor", "0,2"], "--sor 0,2: K (neighbours to average over) must be at least 1"),
            (["--sor", "20,nan"], "--sor 20,nan: STDDEV must be a finite multiplier"),
            (["--sor", "100000000,2"], "use K at most 48"),
            (["--radius", "-0.05,5"], "--radius -0.05,5: R must be a positive number of metres, e.g. 0.05,5"),
            (["--radius", "0.05,-2"], "--radius 0.05,-2: MIN (neighbours a point needs within R) must be 0 or more"),
            (["--crop", "1,1,3,-1,-1,0"], "the same box reads -1,-1,0,1,1,3"),
            (["--crop=0,0,0"], "--crop 0,0,0: needs six numbers"),
            (["--voxel", "0.05", "--foreground"], "--foreground: needs the organized grid, which --voxel 0.05 before it dropped"),
            (["--foreground", "--fuse", "--source", "synthetic:path=orbit,frames=2"], "--foreground works on one frame's depth grid")
        ]
        for (flags, message) in cases {
            var arguments = ["capture", "--pcd", "bad.pcd"] + flags
            if !flags.contains("--source") { arguments += ["--source", "synthetic:seed=3"] }
            let r = try CLI.run(arguments, in: dir)
            XCTAssertEqual(r.status, 2, "\(flags): \(r.stderr)")
            XCTAssertEqual(r.stderrLines.count, 1, "\(flags): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("cloudgen: "), r.stderr)
            XCTAssertTrue(r.stderr.contains(message), "\(flags): expected '\(message)' in: \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty, r.stdout)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("bad.pcd")), "\(flags) wrote a file")
        }
        let r = try CLI.run(["convert", sharedData("pcl-clouds/bunny.pcd"), "--pcd", "bad.pcd", "--foreground"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--foreground: needs the organized grid, and the cloud has none"), r.stderr)
    }
}
