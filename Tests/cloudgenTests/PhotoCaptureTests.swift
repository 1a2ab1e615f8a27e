import CloudCore
import CloudFiles
import Foundation
import XCTest

/// `capture --source photo:FILE` on the real iPhone X portrait: relative depth gives a cloud whose
/// files and report say so, which `info` and `convert` keep; `--known-distance` makes it metric.
final class PhotoCaptureTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func testARelativePhotosCloudIsLabelledRelativeEverywhere() throws {
        let photo = sharedData("phone/iphonex-portrait-depth.jpg")
        let r = try CLI.run(["capture", "--source", "photo:\(photo)", "--ply", "vase.ply", "--pcd", "vase.pcd", "--json"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("depth accuracy is relative"), r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let camera = try XCTUnwrap(report["camera"] as? [String: Any])
        XCTAssertEqual(camera["metric"] as? Bool, false)
        XCTAssertEqual(camera["depthAccuracy"] as? String, "relative")
        for name in ["vase.ply", "vase.pcd"] {
            XCTAssertTrue(try CloudReader.header(dir.appendingPathComponent(name).path).relativeUnits, name)
        }
        let info = try CLI.run(["info", "vase.pcd"], in: dir)
        XCTAssertTrue(info.stdout.contains("relative units: no known scale, not metres"), info.stdout)
        XCTAssertEqual(try CLI.run(["convert", "vase.pcd", "--ply", "again.ply"], in: dir).status, 0)
        XCTAssertTrue(try CloudReader.header(dir.appendingPathComponent("again.ply").path).relativeUnits, "convert keeps the label")

        // The vase's middle (pixel 1512,2016 of the 3024x4032 photo) said to be 0.6 m away.
        let metric = try CLI.run(
            ["capture", "--source", "photo:\(photo)", "--known-distance", "1512,2016=0.6", "--ply", "metric.ply"], in: dir)
        XCTAssertEqual(metric.status, 0, metric.stderr)
        XCTAssertTrue(metric.stderr.contains("so that pixel 1512,2016 lies 0.6 m away"), metric.stderr)
        XCTAssertFalse(try CloudReader.header(dir.appendingPathComponent("metric.ply").path).relativeUnits)
        let cloud = try CloudReader.read(dir.appendingPathComponent("metric.ply").path).cloud
        // The point nearest the optical axis through that pixel lies at the known distance.
        var best = (offAxis: Float.infinity, distance: Float(0))
        for i in 0..<cloud.count {
            let (x, y, z) = (cloud.positions[3 * i], cloud.positions[3 * i + 1], cloud.positions[3 * i + 2])
            let off = abs(x / z) + abs(y / z)
            if off < best.offAxis { best = (off, (x * x + y * y + z * z).squareRoot()) }
        }
        XCTAssertEqual(best.distance, 0.6, accuracy: 0.02, "the vase's middle lies where --known-distance put it")
    }

    func testPhotoFlagsAreRefusedElsewhereAndMalformedOnesNamed() throws {
        let matte = try CLI.run(["capture", "--source", "synthetic", "--matte", "--ply", "x.ply"], in: dir)
        XCTAssertEqual(matte.status, 2)
        XCTAssertTrue(matte.stderr.contains("--matte does not apply to synthetic: sources"), matte.stderr)
        let known = try CLI.run(["capture", "--source", "photo:x.jpg", "--known-distance", "3,4", "--ply", "x.ply"], in: dir)
        XCTAssertEqual(known.status, 2)
        XCTAssertTrue(known.stderr.contains("expected X,Y=METRES"), known.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.ply").path))
    }
}
