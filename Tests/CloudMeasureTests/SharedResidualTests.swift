import CloudCore
import CloudPCL
import XCTest

@testable import CloudMeasure

/// The share of a plane's scatter that neighbouring points share, on a 2 x 2 m level plane
/// sampled every centimetre whose points are off it by a known error.
final class SharedResidualTests: XCTestCase {
    /// The plane z = 0 with each point moved up by `offset(x, y)`, measured on the working set.
    func shared(_ offset: (Double, Double) -> Double) throws -> (shared: Double, rms: Double) {
        var positions: [Float] = []
        for i in 0..<200 {
            for j in 0..<200 {
                let (x, y) = (Double(i) * 0.01, Double(j) * 0.01)
                positions += [Float(x), Float(y), Float(offset(x, y))]
            }
        }
        let scan = RoomScan(
            name: "plane", cloud: PointCloud(positions: positions),
            cameras: [Pose.lookAt(eye: SIMD3(1, 1, 1.5), target: SIMD3(1, 1, 0))], sourceUp: SIMD3(0, 0, 1))
        let settings = MeasureSettings()
        let set = try WorkingSet(scan, settings: settings)
        let plane = Plane(normal: SIMD3(0, 0, 1), offset: 0)
        let inliers = (0..<set.count).map(UInt32.init)
        let rms = (set.points.reduce(0.0) { $0 + $1.z * $1.z } / Double(set.count)).squareRoot()
        let fitted = FittedPlane(plane: plane, inliers: inliers, distance: 0.05, rms: rms)
        return (SharedResidual.of(fitted, set: set, leaf: settings.leaf), rms)
    }

    /// Noise independent from point to point, however large, is not shared: it averages away.
    func testIndependentNoiseIsNotShared() throws {
        var random = SplitMix64(seed: 7)
        let (shared, rms) = try shared { _, _ in 0.01 * random.gaussian() }
        XCTAssertGreaterThan(rms, 0.002)
        XCTAssertLessThan(shared, 0.2 * rms, "shared \(shared) of rms \(rms)")
    }

    /// Steps 30 cm wide, 1 cm up and down (a depth camera's quantised depth, a wave in the wall):
    /// neighbouring points share almost all of it.
    func testStepsAreShared() throws {
        let (shared, rms) = try shared { x, _ in Int(x / 0.3) % 2 == 0 ? 0.01 : -0.01 }
        XCTAssertEqual(rms, 0.01, accuracy: 0.001)
        XCTAssertGreaterThan(shared, 0.8 * rms, "shared \(shared) of rms \(rms)")
    }
}
