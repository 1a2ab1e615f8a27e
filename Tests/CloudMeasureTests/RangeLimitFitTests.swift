import CloudCore
import CloudPCL
import XCTest

@testable import CloudMeasure

/// A wall 2 m wide seen square-on through a Kinect-like depth camera (noise 0.0015 z² m,
/// independent per pixel) that keeps nothing past 6 m: its left half from 3 m, all of it from
/// farther.
final class RangeLimitFitTests: XCTestCase {
    static let wallX = 7.0
    static let limit = 6.0

    /// The wall's working set and its plane fitted to every point, as the fuse leaves them.
    func scan(depths: [Double]) throws -> (set: WorkingSet, fitted: FittedPlane) {
        var random = SplitMix64(seed: 5)
        var positions: [Float] = []
        var starts: [Int] = []
        var cameras: [Pose] = []
        for depth in depths {
            starts.append(positions.count / 3)
            let eye = SIMD3(Self.wallX - depth, 0, 1.5)
            cameras.append(Pose.lookAt(eye: eye, target: SIMD3(Self.wallX, 0, 1.5)))
            // The near frame sees the wall's left half.
            for i in 0..<(depth < 3.5 ? 50 : 100) {
                for j in 0..<100 {
                    let onWall = SIMD3(Self.wallX, -1 + Double(i) * 0.02, 0.5 + Double(j) * 0.02)
                    // The depth along the camera's axis is the wall's distance; the noise moves the
                    // point along its ray, and a depth past the limit is not kept.
                    let measured = depth + 0.0015 * depth * depth * random.gaussian()
                    guard measured < Self.limit else { continue }
                    let p = eye + (onWall - eye) * (measured / depth)
                    positions += [Float(p.x), Float(p.y), Float(p.z)]
                }
            }
        }
        let scan = RoomScan(
            name: "wall", cloud: PointCloud(positions: positions), cameras: cameras, sourceUp: SIMD3(0, 0, 1), frameStarts: starts)
        let set = try WorkingSet(scan, settings: MeasureSettings())
        let all = (0..<set.count).map(UInt32.init)
        let plane = try set.fit(all, like: Plane(normal: SIMD3(-1, 0, 0), offset: Self.wallX), coreCentred: true)
        return (set, FittedPlane(plane: plane, inliers: all, distance: 0.15, rms: 0.03, coreCentred: true))
    }

    /// Where the plane puts the wall's middle, along the cameras' axis, minus where it stands.
    func error(_ plane: Plane) -> Double { -(plane.offset + 1.5 * plane.normal.z) / plane.normal.x - Self.wallX }

    /// The far frame's noise is cut on the far side, so the fused points put the wall nearer;
    /// refitted on the points clear of the limit (the near frame's), it is where it stands.
    func testWallNearTheLimitIsFittedOnPointsClearOfIt() throws {
        let (set, fitted) = try scan(depths: [3, 5.95])
        XCTAssertEqual(set.framePoints?.maxDepth ?? 0, Self.limit, accuracy: 0.01, "the limit, as the data show it")
        XCTAssertLessThan(error(fitted.plane), -0.004, "the cut noise pulls the fused wall in")
        let refitted = RangeLimitFit.refit(fitted, set: set)
        XCTAssertTrue(refitted.clearOfRange)
        XCTAssertEqual(error(refitted.plane), 0, accuracy: 0.001)
    }

    /// Seen from 3 and 4 m nothing is cut: the farthest points are near the largest depth, which
    /// is no limit here, and leaving them out keeps the wall where it stands.
    func testWallWithoutCutStaysWhereItStands() throws {
        let (set, fitted) = try scan(depths: [3, 4])
        XCTAssertEqual(error(fitted.plane), 0, accuracy: 0.001)
        XCTAssertEqual(error(RangeLimitFit.refit(fitted, set: set).plane), 0, accuracy: 0.001)
    }
}
