import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

final class BundleCaptureTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func cloud(_ name: String) throws -> PointCloud {
        try CloudReader.read(dir.appendingPathComponent(name).path).cloud
    }

    /// A phone-like capture written as a bundle and read back gives the same cloud, and the lens
    /// distortion travels with it: walls come out straight (every point inside the room).
    func testBundleRoundTripThroughTheCLIKeepsTheCloudAndCorrectsTheLens() throws {
        let spec = "synthetic:room=5x4x3,noise=0,distortion=1,reference=4032x3024"
        let direct = try CLI.run(
            ["capture", "--source", spec, "--frame", "world", "--bundle", "b", "--pcd", "direct.pcd", "--json"], in: dir)
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(direct.stdout.utf8)) as? [String: Any])
        let camera = try XCTUnwrap(report["camera"] as? [String: Any])
        XCTAssertEqual(camera["distortionCorrected"] as? Bool, true)
        XCTAssertEqual(camera["metric"] as? Bool, true)
        XCTAssertEqual((camera["reference"] as? [String: Any])?["width"] as? Int, 4032)
        XCTAssertEqual(report["bundleDirectory"] as? String, "b")

        let again = try CLI.run(["capture", "--source", "bundle:b", "--frame", "world", "--pcd", "bundle.pcd"], in: dir)
        XCTAssertEqual(again.status, 0, again.stderr)
        let (a, b) = (try cloud("direct.pcd"), try cloud("bundle.pcd"))
        XCTAssertEqual(a.count, b.count)
        XCTAssertEqual(a.positions, b.positions)
        XCTAssertEqual(a.colors, b.colors)

        // Through the barrel lens, uncorrected rays would bend the walls by up to a centimetre.
        let room = SIMD3<Float>(5, 4, 3)
        let tolerance: Float = 0.002
        let outside = (0..<a.count).map(a.point).filter { p in
            let below = p .< -tolerance
            let above = p .> room + tolerance
            return any(below) || any(above)
        }
        XCTAssertEqual(outside.count, 0, "e.g. \(outside.prefix(3))")
        // The east wall (x = 5) away from the floor and the north wall is a plane: uncorrected rays
        // would bow it by several millimetres.
        let eastWall = (0..<a.count).map(a.point).filter { $0.x > 4.9 && $0.z > 0.01 && $0.y < 3.99 }
        XCTAssertGreaterThan(eastWall.count, 1000)
        let bow = eastWall.map { abs($0.x - 5) }.max() ?? .infinity
        XCTAssertLessThan(bow, 0.002, "the east wall deviates from its plane by \(bow) m")
    }

    func testBrokenBundleExitsTwoNamingTheFileAndWritesNothing() throws {
        let made = try CLI.run(["capture", "--source", "synthetic:depth=64x48,color=128x96", "--bundle", "b"], in: dir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let frames = dir.appendingPathComponent("b/frames")
        let depthFile = try XCTUnwrap(filesIn(frames).first { $0.hasSuffix(".depth") })
        let handle = try FileHandle(forWritingTo: frames.appendingPathComponent(depthFile))
        try handle.truncate(atOffset: 100)
        try handle.close()
        let r = try CLI.run(["capture", "--source", "bundle:b", "--ply", "x.ply"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderrLines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains(depthFile), r.stderr)
        XCTAssertFalse(filesIn(dir).contains("x.ply"))
    }

    /// Issue 19: a bundle whose pose puts the camera 1e308 m away was captured with exit 0, that
    /// frame's points gone without a word and the file's VIEWPOINT saying 1e308. It exits 2 now,
    /// one line naming the manifest and the frame, and writes nothing.
    func testAPoseBeyondTheBoundExitsTwoNamingTheManifestAndFrame() throws {
        let made = try CLI.run(["capture", "--source", "synthetic:depth=64x48,color=128x96", "--frame", "world", "--bundle", "b"], in: dir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let manifest = dir.appendingPathComponent("b/manifest.json")
        var root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        var frames = try XCTUnwrap(root["frames"] as? [[String: Any]])
        var pose = try XCTUnwrap(frames[0]["cameraToWorld"] as? [[Double]])
        pose[3][0] = 1e308
        frames[0]["cameraToWorld"] = pose
        root["frames"] = frames
        try JSONSerialization.data(withJSONObject: root).write(to: manifest)
        let r = try CLI.run(["capture", "--source", "bundle:b", "--frame", "world", "--pcd", "x.pcd"], in: dir)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderrLines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("b/manifest.json: frames[0].cameraToWorld: the translation (1e+308, "), r.stderr)
        XCTAssertFalse(filesIn(dir).contains("x.pcd"))
    }

    /// A JPEG whose headers are sound but whose data is damaged passes the bundle's opening checks
    /// and fails when its frame is read (it is decoded once, then): exit 2 naming it. A fused
    /// capture has written nothing by then, not even the bundle or RGBD copies; an unfused one
    /// keeps the earlier frames' files, each complete, as with a dataset's corrupt image.
    func testCorruptJPEGBodyFailsWhenItsFrameIsReadLeavingNoHalfWrittenOutput() throws {
        let made = try CLI.run(
            [
                "capture", "--source", "synthetic:path=orbit,frames=2,depth=64x48,color=128x96",
                "--frames", "all", "--bundle", "b"
            ], in: dir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: sharedData("open3d-rgbd/color/00000.jpg")))
        try jpeg.prefix(jpeg.count / 2).write(to: dir.appendingPathComponent("b/frames/bad.jpg"))
        let manifestURL = dir.appendingPathComponent("b/manifest.json")
        var manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        var frames = try XCTUnwrap(manifest["frames"] as? [[String: Any]])
        frames[1]["color"] = ["format": "jpeg", "files": ["frames/bad.jpg"], "width": 640, "height": 480]
        manifest["frames"] = frames
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        let bad = dir.appendingPathComponent("b/frames/bad.jpg").path

        let fused = try CLI.run(
            [
                "capture", "--source", "bundle:b", "--frames", "all", "--fuse", "--ply", "fused.ply",
                "--bundle", "copy", "--rgbd", "rgbd"
            ], in: dir)
        XCTAssertEqual(fused.status, 2, fused.stderr)
        XCTAssertEqual(fused.stderrLines.count, 1, fused.stderr)
        XCTAssertTrue(fused.stderr.contains("\(bad): cannot decode JPEG"), fused.stderr)
        XCTAssertEqual(filesIn(dir), ["b"], "a failed fused capture leaves no output")

        let single = try CLI.run(["capture", "--source", "bundle:b", "--frames", "all", "--pcd", "f.pcd"], in: dir)
        XCTAssertEqual(single.status, 2, single.stderr)
        XCTAssertTrue(single.stderr.contains(bad), single.stderr)
        XCTAssertEqual(filesIn(dir), ["b"], "a sequence's files are all or nothing: the first frame's file does not stay either")
    }
}
