import CloudCore
import CloudPCL
import XCTest

@testable import CloudMeasure

/// A far ceiling's noisy points, off its plane, lie in the slab of any vertical plane that meets
/// it: a bed's face 0.48 m high in a room 3.44 m high, with a sprinkling of such points at every
/// height and a few just under the ceiling (Kinect room 43 of seed 2026), against a wall 3.44 m
/// high and a wall seen only above a wardrobe 2 m high, both with the same strays.
final class CeilingStrayTests: XCTestCase {
    static let ceiling = 3.44

    func top(of heights: ClosedRange<Double>) throws -> Double {
        var positions: [Float] = []
        // One point a leaf, as the voxel grid leaves them.
        for s in stride(from: 0.0, through: 1.0, by: 0.03) {
            for z in stride(from: heights.lowerBound, through: heights.upperBound, by: 0.03) { positions += [3, Float(s), Float(z)] }
        }
        // The strays: one every 40 cm of height, and eleven just under the ceiling.
        for z in stride(from: 0.6, through: 3.1, by: 0.4) { positions += [3, 0.5, Float(z)] }
        for k in 0..<11 { positions += [3, Float(k) * 0.09, Float(Self.ceiling - 0.01)] }
        let eye = SIMD3(0.0, 0.5, 1.2)
        let scan = RoomScan(
            name: "strays", cloud: PointCloud(positions: positions), cameras: [Pose.lookAt(eye: eye, target: SIMD3(3, 0.5, 1.2))],
            sourceUp: SIMD3(0, 0, 1))
        let set = try WorkingSet(scan, settings: MeasureSettings())
        let fitted = FittedPlane(
            plane: Plane(normal: SIMD3(-1, 0, 0), offset: 3), inliers: set.points.indices.map(UInt32.init), distance: 0.03, rms: 0.001)
        return VerticalPlanes.describe(fitted, set: set, up: SIMD3(0, 0, 1), base: 0, ceiling: Self.ceiling, cameras: [eye]).top
    }

    func testAFaceWhoseTopIsTheCeilingsStraysStopsWhereItsOwnPointsStop() throws {
        XCTAssertEqual(try top(of: 0...0.48), 0.48, accuracy: 0.02)
    }

    func testAWallReachesTheCeilingWhetherSeenWholeOrAboveAWardrobe() throws {
        XCTAssertGreaterThan(try top(of: 0...3.44), Self.ceiling - 0.05)
        XCTAssertGreaterThan(try top(of: 2...3.44), Self.ceiling - 0.05)
    }
}
