import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// Where the camera stood, recorded in the files: PCD's VIEWPOINT and cloudgen's PLY comment.
final class ViewpointTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try makeScratchFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// Poses whose rotations take every branch of the matrix-to-quaternion conversion.
    let poses: [Pose] = [
        Pose.lookAt(eye: SIMD3(1.68, 1.08, 1.5), target: SIMD3(4, 3, 0)),
        Pose.lookAt(eye: SIMD3(0, 0, 2), target: SIMD3(0.1, 0.2, 0)),
        Pose.lookAt(eye: SIMD3(-2, 5, 0.3), target: SIMD3(3, 5.2, 0.1)),
        Pose.lookAt(eye: SIMD3(0.5, -1, 2), target: SIMD3(0.4, 3, 1.9)),
        Pose(rows: (SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1)), translation: SIMD3(1, 2, 3)),
        Pose(rows: (SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, -1)), translation: .zero),
        Pose(rows: (SIMD3(-1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1)), translation: .zero)
    ]

    func assertSamePose(_ a: Pose?, _ b: Pose, accuracy: Double, _ message: String, line: UInt = #line) {
        guard let a else { return XCTFail("\(message): no viewpoint", line: line) }
        let pairs: [(SIMD3<Double>, SIMD3<Double>)] = [
            (a.rotation.0, b.rotation.0), (a.rotation.1, b.rotation.1),
            (a.rotation.2, b.rotation.2), (a.translation, b.translation)
        ]
        for (x, y) in pairs {
            let d = x - y
            XCTAssertLessThanOrEqual(max(abs(d.x), abs(d.y), abs(d.z)), accuracy, "\(message): \(a) != \(b)", line: line)
        }
    }

    func testQuaternionsRoundTrip() {
        for pose in poses {
            let v = pose.viewpoint
            XCTAssertEqual(v.count, 7)
            XCTAssertEqual(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6], 1, accuracy: 1e-12)
            XCTAssertGreaterThanOrEqual(v[3], 0, "w first and not negative")
            assertSamePose(Pose(viewpoint: v), pose, accuracy: 1e-12, "\(v)")
        }
        XCTAssertEqual(Pose.identity.viewpoint, [0, 0, 0, 1, 0, 0, 0])
        XCTAssertNil(Pose(viewpoint: [0, 0, 0, 0, 0, 0, 0]), "a zero quaternion is no rotation")
        XCTAssertNil(Pose(viewpoint: [0, 0, .nan, 1, 0, 0, 0]))
    }

    func testEveryWriterRecordsTheViewpoint() throws {
        let cloud = syntheticCloud(colors: true, normals: false, organized: false)
        let pose = poses[0]
        let formats: [(CloudFileFormat, String)] = [
            (.ply(.binary), "ply"), (.pcd(.binary), "pcd"), (.pcd(.compressed), "pcd"), (.pcd(.ascii), "pcd"), (.ply(.ascii), "ply")
        ]
        for (format, ext) in formats {
            let path = folder.appendingPathComponent("v.\(ext)").path
            try CloudWriter.write(cloud, to: path, format: format, viewpoint: pose)
            let header = try CloudReader.header(path)
            assertSamePose(header.viewpoint, pose, accuracy: 1e-15, "\(format)")
            try CloudWriter.write(cloud, to: path, format: format)
            XCTAssertNil(try CloudReader.header(path).viewpoint, "\(format): no viewpoint is the identity, read as none")
        }
    }

    /// A cloud of relative depth says so in every format, and a file that does not say so is metres.
    func testEveryWriterRecordsRelativeUnits() throws {
        let cloud = syntheticCloud(colors: true, normals: false, organized: false)
        let formats: [(CloudFileFormat, String)] = [
            (.ply(.binary), "ply"), (.pcd(.binary), "pcd"), (.pcd(.compressed), "pcd"), (.pcd(.ascii), "pcd"), (.ply(.ascii), "ply")
        ]
        for (format, ext) in formats {
            let path = folder.appendingPathComponent("u.\(ext)").path
            try CloudWriter.write(cloud, to: path, format: format, viewpoint: poses[0], relativeUnits: true)
            let loaded = try CloudReader.read(path)
            XCTAssertTrue(loaded.header.relativeUnits, "\(format)")
            XCTAssertEqual(loaded.cloud.positions, cloud.positions, "\(format): the comment does not disturb the records")
            assertSamePose(loaded.header.viewpoint, poses[0], accuracy: 1e-15, "\(format)")
            try CloudWriter.write(cloud, to: path, format: format)
            XCTAssertFalse(try CloudReader.header(path).relativeUnits, "\(format)")
        }
    }

    func testMalformedViewpointsAreBadInput() throws {
        let cases = [
            (
                "bad.ply",
                "ply\nformat ascii 1.0\ncomment cloudgen viewpoint 1 2 3\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 1\n"
            ),
            (
                "bad.pcd",
                "VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 1\nHEIGHT 1\nVIEWPOINT 0 0 0 0 0 0 0\nPOINTS 1\nDATA ascii\n0 0 1\n"
            )
        ]
        for (name, text) in cases {
            let path = folder.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try CloudReader.read(path)) { error in
                guard let error = error as? CloudError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.kind, .badInput, error.message)
                XCTAssertTrue(error.message.hasPrefix(path), error.message)
                XCTAssertTrue(error.message.lowercased().contains("viewpoint"), error.message)
            }
        }
        // A camera beyond ±1e5 m is no camera's: its VIEWPOINT would put the cloud out of
        // Float32's reach; just inside, the file reads with its viewpoint.
        for (tx, shown, refused) in [
            ("1e308", "1e+308", true), ("1e6", "1000000.0", true), ("-1e6", "-1000000.0", true), ("99999", "", false)
        ] {
            let ply =
                "ply\nformat ascii 1.0\ncomment cloudgen viewpoint \(tx) 2 3 1 0 0 0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 1\n"
            let pcd =
                "VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 1\nHEIGHT 1\nVIEWPOINT \(tx) 2 3 1 0 0 0\nPOINTS 1\nDATA ascii\n0 0 1\n"
            for (name, text, line) in [
                ("far.ply", ply, "comment cloudgen viewpoint (where the camera stood)"),
                ("far.pcd", pcd, "VIEWPOINT (where the camera stood)")
            ] {
                let path = folder.appendingPathComponent(name).path
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                if refused {
                    assertCloudError(
                        .badInput, naming: path, containing: "\(line): the translation (\(shown), 2.0, 3.0) is not within ±100000 m"
                    ) {
                        try CloudReader.read(path)
                    }
                } else {
                    XCTAssertEqual(try CloudReader.read(path).header.viewpoint?.translation, SIMD3(99_999, 2, 3), name)
                }
            }
        }
        // Free-text comments stay free.
        let fine = folder.appendingPathComponent("fine.ply").path
        try Data(
            "ply\nformat ascii 1.0\ncomment cloudgen made this\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 1\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: fine))
        XCTAssertEqual(try CloudReader.read(fine).cloud.count, 1)
    }
}
