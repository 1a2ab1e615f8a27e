import CloudCore
import CloudFiles
import CloudPCL
import SharedTestData
import XCTest

/// PCL's image grabber wrote each `pcl-grabber/*.pcd` as the back-projection of its Kinect depth
/// image with fx = fy = 525, cx = 320, cy = 240 and z = raw mm * 0.001. Rebuilding the 16-bit depth
/// image from the clouds' z and back-projecting it must give PCL's points: a ground truth for
/// `BackProjection` that this project did not write.
final class BackProjectionGroundTruthTests: XCTestCase {
    func testBackProjectionEqualsPCLGrabberClouds() throws {
        let data = try sharedDataDirectory().appendingPathComponent("pcl-grabber")
        for name in ["frame_20121214T142255.814212.pcd", "frame_20121214T142256.068683.pcd"] {
            let pcl = try CloudReader.read(data.appendingPathComponent(name).path).cloud
            let grid = try XCTUnwrap(pcl.organized)
            XCTAssertEqual(grid, PointCloud.Grid(width: 640, height: 480))

            var raw = [UInt8](repeating: 0, count: 640 * 480 * 2)
            for i in 0..<pcl.count where pcl.point(i).z.isFinite {
                let mm = UInt16((pcl.point(i).z * 1000).rounded())
                raw[2 * i] = UInt8(mm & 0xFF)
                raw[2 * i + 1] = UInt8(mm >> 8)
            }
            let depth = try raw.withUnsafeBytes {
                try DepthMap(raw: $0, width: 640, height: 480, encoding: .uint16(unitsPerMetre: 1000), origin: name)
            }
            let k = CameraIntrinsics(fx: 525, fy: 525, cx: 320, cy: 240, referenceWidth: 640, referenceHeight: 480)
            let frame = RGBDFrame(depth: depth, color: nil, intrinsics: k, pose: nil)
            let (ours, counts) = try BackProjection(options: .init(organized: true)).run(frame)

            XCTAssertEqual(counts.points, pcl.finiteCount, name)
            XCTAssertGreaterThan(counts.points, 200_000, name)
            var worst: Float = 0
            for i in 0..<pcl.count {
                let (a, b) = (ours.point(i), pcl.point(i))
                XCTAssertEqual(a.z.isFinite, b.z.isFinite, "\(name): pixel \(i) validity differs")
                guard a.z.isFinite, b.z.isFinite else { continue }
                worst = max(worst, abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))
            }
            XCTAssertLessThanOrEqual(worst, 1e-6, "\(name): largest coordinate difference \(worst) m")
        }
    }
}
