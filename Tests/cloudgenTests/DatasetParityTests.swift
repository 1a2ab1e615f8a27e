import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

/// `--source pclgrabber:DIR` end to end against PCL's own organized `.pcd` of each recorded frame
/// (written by PCL's grabber from the same files, so a ground truth this project did not make):
/// same valid pixels, points within 1e-6 m, equal colors, whether the frames are read from the
/// PCLZF pair or the TIFF pair. It lives here because reading PCD needs CloudPCL, which the
/// CloudCapture tests do not link.
final class DatasetParityTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    static let frames = ["frame_20121214T142255.814212", "frame_20121214T142256.068683"]

    func testPCLZFFramesEqualPCLsOwnClouds() throws {
        try assertCaptureEqualsPCL(storage: ["_depth.pclzf", "_rgb.pclzf"])
    }

    func testTIFFFramesEqualPCLsOwnClouds() throws {
        try assertCaptureEqualsPCL(storage: ["_depth.tiff", "_rgb.tiff"])
    }

    /// Links the xml and one kind of image pair of both frames into a folder, captures every frame
    /// through the CLI, and compares each written cloud with PCL's.
    func assertCaptureEqualsPCL(storage suffixes: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let data = sharedData("pcl-grabber")
        let recording = dir.appendingPathComponent("recording")
        try FileManager.default.createDirectory(at: recording, withIntermediateDirectories: true)
        for frame in Self.frames {
            for suffix in [".xml"] + suffixes {
                try FileManager.default.createSymbolicLink(
                    atPath: recording.appendingPathComponent(frame + suffix).path,
                    withDestinationPath: "\(data)/\(frame)\(suffix)")
            }
        }
        let r = try CLI.run(["capture", "--source", "pclgrabber:\(recording.path)", "--frames", "all", "--pcd", "out.pcd"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)

        let k = CameraIntrinsics(fx: 525, fy: 525, cx: 320, cy: 240, referenceWidth: 640, referenceHeight: 480)
        for (index, frame) in Self.frames.enumerated() {
            let ours = try CloudReader.read(dir.appendingPathComponent(String(format: "out_%03d.pcd", index)).path).cloud
            let pcl = try CloudReader.read("\(data)/\(frame).pcd").cloud
            XCTAssertEqual(pcl.organized, PointCloud.Grid(width: 640, height: 480), frame, file: file, line: line)
            // PCL's organized cloud keeps a NaN point for each pixel without depth; ours has only the
            // valid pixels, in the same row-major order.
            let valid = (0..<pcl.count).filter { pcl.point($0).z.isFinite }
            XCTAssertEqual(ours.count, valid.count, "\(frame): point count", file: file, line: line)
            XCTAssertGreaterThan(valid.count, 200_000, frame, file: file, line: line)
            guard ours.count == valid.count else { continue }
            var worst: Float = 0
            var wrongPixel: (Int, Int)?
            var wrongColor: (Int, SIMD3<UInt8>, SIMD3<UInt8>)?
            for (i, pixel) in valid.enumerated() {
                let (a, b) = (ours.point(i), pcl.point(pixel))
                worst = max(worst, abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))
                // The pixel our point projects to is the pixel PCL's point belongs to.
                let uv = k.project(SIMD3(Double(a.x), Double(a.y), Double(a.z)))
                let projected = Int(uv.y.rounded()) * 640 + Int(uv.x.rounded())
                if projected != pixel && wrongPixel == nil { wrongPixel = (i, projected) }
                if ours.color(i) != pcl.color(pixel) && wrongColor == nil {
                    wrongColor = (pixel, ours.color(i) ?? .zero, pcl.color(pixel) ?? .zero)
                }
            }
            XCTAssertLessThanOrEqual(worst, 1e-6, "\(frame): largest coordinate difference \(worst) m", file: file, line: line)
            XCTAssertNil(wrongPixel.map { "point \($0.0) lies on pixel \($0.1)" }, frame, file: file, line: line)
            XCTAssertNil(wrongColor.map { "pixel \($0.0): ours \($0.1), PCL's \($0.2)" }, frame, file: file, line: line)
        }
    }
}

/// Bad datasets through the CLI: exit status 2 and a message naming the file.
final class DatasetCLIErrorTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A TUM folder whose depth frame is 35 ms from the only color frame, and whose images are
    /// `depth` and the fixture's color.
    func tumFolder(depth: String, depthTime: String) throws -> String {
        let folder = dir.appendingPathComponent("tum").path
        for sub in ["rgb", "depth"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(sub)", withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(
            atPath: "\(folder)/rgb/c.png",
            withDestinationPath: sharedData("open3d-rgbd/other_formats/TUM_color.png"))
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/depth/d.png", withDestinationPath: depth)
        try "# color\n1305031102.175304 rgb/c.png\n".write(toFile: "\(folder)/rgb.txt", atomically: true, encoding: .utf8)
        try "# depth\n\(depthTime) depth/d.png\n".write(toFile: "\(folder)/depth.txt", atomically: true, encoding: .utf8)
        return folder
    }

    func testAssociationGapExitsTwoNamingTheDepthFile() throws {
        let folder = try tumFolder(depth: sharedData("open3d-rgbd/other_formats/TUM_depth.png"), depthTime: "1305031102.140304")
        let r = try CLI.run(["capture", "--source", "tum:\(folder)", "--ply", "out.ply"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(folder)/depth/d.png: association gap"), r.stderr)
        XCTAssertTrue(r.stderr.contains("35.0 ms"), r.stderr)
        XCTAssertEqual(filesIn(dir), ["tum"], "nothing is written")
    }

    func testCorruptPNGExitsTwoNamingTheFile() throws {
        let broken = dir.appendingPathComponent("broken.png")
        try Data(contentsOf: URL(fileURLWithPath: sharedData("open3d-rgbd/other_formats/TUM_depth.png"))).prefix(300).write(to: broken)
        let folder = try tumFolder(depth: broken.path, depthTime: "1305031102.160407")
        let r = try CLI.run(["capture", "--source", "tum:\(folder)", "--ply", "out.ply"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(folder)/depth/d.png: cannot decode PNG"), r.stderr)
    }

    func testMissingFrameFileExitsTwoNamingIt() throws {
        let folder = try tumFolder(depth: dir.appendingPathComponent("nowhere.png").path, depthTime: "1305031102.160407")
        let r = try CLI.run(["capture", "--source", "tum:\(folder)", "--ply", "out.ply"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(folder)/depth/d.png: no such file"), r.stderr)
    }
}
