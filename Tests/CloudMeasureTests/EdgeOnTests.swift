import CloudCore
import CloudPCL
import XCTest

@testable import CloudMeasure

/// A camera at one point turned two ways: square-on to a wall 3 m off, and along a sheet of points
/// on its own sight lines (a depth edge's mixed pixels, whose depths lie anywhere along the ray).
final class EdgeOnTests: XCTestCase {
    func testSheetAlongSightLinesIsNoWallAndTheWallIs() throws {
        let eye = SIMD3(0.0, 0, 1.2)
        var positions: [Float] = []
        for i in 0..<100 {
            for j in 0..<120 {
                let (s, z) = (-1 + Double(i) * 0.02, Double(j) * 0.02)
                positions += [3, Float(s), Float(z)]
            }
        }
        let sheetStart = positions.count / 3
        for i in 0..<75 {
            for j in 0..<120 {
                positions += [0, Float(1 + Double(i) * 0.02), Float(Double(j) * 0.02)]
            }
        }
        let cameras = [Pose.lookAt(eye: eye, target: SIMD3(3, 0, 1.2)), Pose.lookAt(eye: eye, target: SIMD3(0, 3, 1.2))]
        let scan = RoomScan(
            name: "edge", cloud: PointCloud(positions: positions), cameras: cameras, sourceUp: SIMD3(0, 0, 1),
            frameStarts: [0, sheetStart])
        let set = try WorkingSet(scan, settings: MeasureSettings())
        func plane(_ normal: SIMD3<Double>, _ offset: Double, where inside: (SIMD3<Double>) -> Bool) -> VerticalPlane {
            let inliers = set.points.indices.filter { inside(set.points[$0]) }.map(UInt32.init)
            let fitted = FittedPlane(plane: Plane(normal: normal, offset: offset), inliers: inliers, distance: 0.03, rms: 0.001)
            return VerticalPlanes.describe(fitted, set: set, up: SIMD3(0, 0, 1), base: 0, cameras: [eye])
        }
        var planes = [
            plane(SIMD3(-1, 0, 0), 3) { $0.x > 2.9 },
            plane(SIMD3(1, 0, 0), 0) { abs($0.x) < 0.05 }
        ]
        VerticalPlanes.refuseEdgeOn(&planes, set: set)
        XCTAssertNil(planes[0].clutter)
        XCTAssertNotNil(planes[1].clutter)
    }
}
