import CloudCapture
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// Every capture reader of a camera pose refuses a translation beyond ±1e5 m or not a number
/// (a bundle's 1e308 used to be read, and its frame's points vanished without a word), naming
/// the file and the frame; a translation just inside the bound is read. Each file is written in
/// its reader's documented layout (the fixtures' own comments cite the layouts).
final class PoseBoundsReaderTests: XCTestCase {
    /// Translations along x that no camera has, and the words of the refusal.
    static let refused: [(x: String, shown: String)] = [("1e308", "1e+308"), ("1e6", "1000000.0"), ("-1e6", "-1000000.0")]
    /// Just inside Pose.maxTranslation.
    static let inside = 99_999.0

    func testTUMGroundTruth() throws {
        let path = try DatasetFixture.scratch(self) + "/groundtruth.txt"
        for (x, shown) in Self.refused {
            try "# timestamp tx ty tz qx qy qz qw\n100.0 1 2 3 0 0 0 1\n100.5 \(x) 2 3 0 0 0 1\n".write(
                toFile: path, atomically: true, encoding: .utf8)
            assertCloudError(
                .badInput, naming: path,
                containing: "line 3 (the pose at 100.5 s): the translation (\(shown), 2.0, 3.0) is not within ±100000 m"
            ) {
                try TUMGroundTruth(path: path)
            }
        }
        try "100.0 nan 2 3 0 0 0 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        assertCloudError(.badInput, naming: path, containing: "line 1: expected 'timestamp tx ty tz qx qy qz qw' (8 finite numbers)") {
            try TUMGroundTruth(path: path)
        }
        try "100.0 \(Self.inside) 2 3 0 0 0 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try TUMGroundTruth(path: path).samples.first?.pose.translation, SIMD3(Self.inside, 2, 3))
    }

    func testStrayOdometry() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        let odometry = fixture.folder + "/odometry.csv"
        let lines = try String(contentsOfFile: odometry, encoding: .utf8).split(separator: "\n").map(String.init)
        // Frame 2's x replaced: "timestamp, frame, x, y, z, qx, qy, qz, qw".
        func withFrame2X(_ x: String) throws {
            var fields = lines[3].components(separatedBy: ", ")
            fields[2] = x
            try (([lines[0], lines[1], lines[2], fields.joined(separator: ", ")]).joined(separator: "\n") + "\n")
                .write(toFile: odometry, atomically: true, encoding: .utf8)
        }
        func open() throws -> DepthSource {
            try SourceSpec(parsing: "stray:\(fixture.folder)").open(options: SourceOptions(minConfidence: 0))
        }
        for (x, shown) in Self.refused {
            try withFrame2X(x)
            assertCloudError(.badInput, naming: odometry, containing: "line 4: frame 2: the translation (\(shown), ") { try open() }
        }
        try withFrame2X("nan")
        assertCloudError(.badInput, naming: odometry, containing: "line 4: field 3 'nan' is not a finite number") { try open() }
        try withFrame2X("\(Self.inside)")
        let source = try open()
        for _ in 0..<2 { _ = try source.nextFrame() }
        XCTAssertEqual(try XCTUnwrap(try source.nextFrame()).pose?.translation.x, Self.inside)
    }

    func testPolycamCamera() throws {
        let fixture = try PolycamFixture(in: DatasetFixture.scratch(self))
        let cameras = fixture.folder + "/keyframes/cameras"
        let first = cameras + "/" + (try FileManager.default.contentsOfDirectory(atPath: cameras).sorted()[0])
        let original = try String(contentsOfFile: first, encoding: .utf8)
        // The camera-to-world 3x4's translation is t_03, t_13, t_23 (Polycam's description).
        let t03 = try XCTUnwrap(original.range(of: #""t_03": [^,}]+"#, options: .regularExpression))
        func withT03(_ x: String) throws {
            try original.replacingCharacters(in: t03, with: "\"t_03\": \(x)").write(toFile: first, atomically: true, encoding: .utf8)
        }
        func open() throws -> DepthSource { try SourceSpec(parsing: "polycam:\(fixture.folder)").open() }
        for (x, shown) in Self.refused {
            try withT03(x)
            assertCloudError(.badInput, naming: first, containing: "the pose t_00 ... t_23: the translation (\(shown), ") { try open() }
        }
        try withT03("NaN")
        assertCloudError(.badInput, naming: first, containing: "not a JSON object") { try open() }
        try withT03("\(Self.inside)")
        // Keyframes come in time order, not by file name: one of them is this one.
        let source = try open()
        var xs: [Double] = []
        while let frame = try source.nextFrame() { xs.append(try XCTUnwrap(frame.pose).translation.x) }
        XCTAssertTrue(xs.contains(Self.inside), "\(xs)")
    }

    func testRecord3DMetadata() throws {
        let fixture = try Record3DFixture(in: DatasetFixture.scratch(self))
        let path = fixture.metadataPath
        let original = try String(contentsOfFile: path, encoding: .utf8)
        // poses[2] = [qx, qy, qz, qw, px, py, pz]: px replaced, the pose's fifth number.
        let last = try XCTUnwrap(original.range(of: #"\[[^\[\]]*\]\]\}$"#, options: .regularExpression))
        var numbers = original[last].dropFirst().prefix { $0 != "]" }.components(separatedBy: ", ")
        func withPX(_ x: String) throws {
            numbers[4] = x
            try original.replacingCharacters(in: last, with: "[" + numbers.joined(separator: ", ") + "]]}")
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        func open() throws -> DepthSource { try SourceSpec(parsing: "record3d:\(fixture.folder)").open() }
        for (x, shown) in Self.refused {
            try withPX(x)
            assertCloudError(.badInput, naming: path, containing: "poses[2] (frame 2): the translation (\(shown), ") { try open() }
        }
        try withPX("NaN")
        assertCloudError(.badInput, naming: path, containing: "not a JSON object") { try open() }
        try withPX("\(Self.inside)")
        let source = try open()
        for _ in 0..<2 { _ = try source.nextFrame() }
        XCTAssertEqual(try XCTUnwrap(try source.nextFrame()).pose?.translation.x, Self.inside)
    }

    /// The issue's case: cameraToWorld (4 columns of 4) with 1e308 in its translation column.
    func testBundleManifest() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("bundle")
        var frame = try syntheticCamera("synthetic:depth=16x12,color=16x12").renderFrame()
        let first = frame
        frame.timestamp = 1.0 / 30
        try writeBundle([first, frame], to: dir)
        let manifest = dir.appendingPathComponent("manifest.json").path
        func withTranslation(_ key: [String], _ columns: [[Double]]) throws {
            try editManifest(dir, frame: 1) { setJSON(&$0, key, columns) }
        }
        let turn: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for x in [1e308, 1e6, -1e6] {
            try withTranslation(["cameraToWorld"], turn.map { $0 + [0] } + [[x, 2, 3, 1]])
            assertCloudError(
                .badInput, naming: manifest, containing: "frames[1].cameraToWorld: the translation (\(x), 2.0, 3.0) is not within"
            ) {
                try BundleSource(directory: dir.path)
            }
        }
        try withTranslation(["cameraToWorld"], turn.map { $0 + [0] } + [[Self.inside, 2, 3, 1]])
        let source = try BundleSource(directory: dir.path)
        _ = try source.nextFrame()
        XCTAssertEqual(try XCTUnwrap(try source.nextFrame()).pose?.translation, SIMD3(Self.inside, 2, 3))
        // The depth-to-color extrinsics are in millimetres: 1e9 mm is 1e6 m.
        try withTranslation(["calibration", "extrinsicMatrix"], turn + [[1e9, 0, 0]])
        assertCloudError(
            .badInput, naming: manifest,
            containing: "frames[1].calibration.extrinsicMatrix (depth to color, millimetres): the translation (1000000.0, "
        ) {
            try BundleSource(directory: dir.path)
        }
    }
}
