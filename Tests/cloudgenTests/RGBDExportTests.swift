import CloudCapture
import CloudCore
import CloudFiles
import CloudImages
import CloudPCL
import Foundation
import XCTest

final class RGBDExportTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// The exported PNGs and intrinsics, read back and back-projected, reproduce the captured cloud
    /// but for depth rounded to the millimetre; colors are identical.
    func testExportReadBackReproducesTheCloud() throws {
        let r = try CLI.run(["capture", "--source", "synthetic:noise=1,seed=3", "--rgbd", "rg", "--pcd", "c.pcd"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let rg = dir.appendingPathComponent("rg")
        XCTAssertEqual(filesIn(rg), ["camera_intrinsic.json", "color", "depth", "trajectory.log"])
        let depthImage = try ImageFile.read(rg.appendingPathComponent("depth/000000.png").path)
        let colorImage = try ImageFile.read(rg.appendingPathComponent("color/000000.png").path)
        XCTAssertEqual(depthImage.bitDepth, 16)
        XCTAssertEqual([depthImage.width, depthImage.height, colorImage.width, colorImage.height], [256, 192, 256, 192])
        let k = try IntrinsicsFile.read(rg.appendingPathComponent("camera_intrinsic.json").path)
            .intrinsics(forDepthWidth: 256, height: 192)
        let frame = RGBDFrame(
            depth: try depthImage.depthMap(unitsPerMetre: 1000, origin: "depth"),
            color: try colorImage.colorImage(origin: "color"), intrinsics: k, pose: nil)
        let again = try BackProjection().run(frame).cloud
        let original = try CloudReader.read(dir.appendingPathComponent("c.pcd").path).cloud
        XCTAssertEqual(again.count, original.count)
        XCTAssertEqual(again.colors, original.colors)
        var worst: Float = 0
        for i in 0..<original.count {
            let (a, b) = (again.point(i), original.point(i))
            // Half a millimetre along z, scaled by the ray's slope at the image edge (< 0.7).
            worst = max(worst, abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))
        }
        XCTAssertLessThanOrEqual(worst, 0.0005 * 1.0001)
        XCTAssertEqual(try TrajectoryLog.read(rg.appendingPathComponent("trajectory.log").path).count, 1)
    }
}
