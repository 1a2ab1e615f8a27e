import CloudCore
import CloudPCL
import XCTest

@testable import CloudMeasure

/// Vertical planes parallel to a wall 2.4 m high at x = 3 (facing a camera at the origin), each
/// overlapping its span: a few points 2 cm in front of it (a second band of its points: phone room
/// 10 of seed 2026 had one, which met the neighbours 1.7 cm off the wall's corners), a cupboard's
/// face 40 cm in front, a corridor's wall 60 cm beyond; and the wall's own line beyond a gap.
final class SecondBandTests: XCTestCase {
    func testAPlaneInALargerWallsPlaneIsThatWallNotASecondOne() throws {
        var positions: [Float] = []
        var pieces: [(x: Double, y: ClosedRange<Double>)] = []
        func sheet(x: Double, y: ClosedRange<Double>, step: Double) {
            pieces.append((x, y))
            for s in stride(from: y.lowerBound, through: y.upperBound, by: step) {
                for z in stride(from: 0.0, through: 2.4, by: step) { positions += [Float(x), Float(s), Float(z)] }
            }
        }
        sheet(x: 3, y: -1...1, step: 0.01)
        sheet(x: 2.98, y: -0.6...0.6, step: 0.04)
        sheet(x: 2.6, y: -0.5...0.5, step: 0.02)
        sheet(x: 3.6, y: -0.4...0.4, step: 0.02)
        sheet(x: 3, y: 2...2.8, step: 0.02)
        let eye = SIMD3(0.0, 0, 1.2)
        let scan = RoomScan(
            name: "bands", cloud: PointCloud(positions: positions), cameras: [Pose.lookAt(eye: eye, target: SIMD3(3, 0, 1.2))],
            sourceUp: SIMD3(0, 0, 1))
        var settings = MeasureSettings()
        settings.leaf = 0.01
        let set = try WorkingSet(scan, settings: settings)
        var planes = pieces.map { piece -> VerticalPlane in
            let inliers = set.points.indices.filter {
                abs(set.points[$0].x - piece.x) < 0.005 && piece.y.contains(set.points[$0].y)
            }.map(UInt32.init)
            let fitted = FittedPlane(plane: Plane(normal: SIMD3(-1, 0, 0), offset: piece.x), inliers: inliers, distance: 0.03, rms: 0.001)
            return VerticalPlanes.describe(fitted, set: set, up: SIMD3(0, 0, 1), base: 0, cameras: [eye])
        }
        VerticalPlanes.classify(&planes, ceiling: nil, ceilingSeenAbove: planes.map { _ in false }, settings: settings)
        XCTAssertNil(planes[0].clutter)
        XCTAssertEqual(
            planes[1].clutter?.hasPrefix("a second band of a larger wall's points, 0.020 m"), true, "\(planes[1].clutter ?? "a wall")")
        XCTAssertEqual(planes[2].clutter?.hasPrefix("furniture: it stands 0.40 m in front"), true, "\(planes[2].clutter ?? "a wall")")
        XCTAssertEqual(planes[3].clutter?.hasPrefix("beyond a wall by 0.60 m"), true, "\(planes[3].clutter ?? "a wall")")
        XCTAssertNil(planes[4].clutter, "the wall's line beyond a gap overlaps none of it")
    }
}
