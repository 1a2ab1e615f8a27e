import CloudCore
import CloudFiles
import CloudStream
import Foundation
import SharedTestData
import XCTest

/// A viewer's cloud against a cloud PCL wrote: the PCL grabber's organized frame (NaN where the
/// camera saw nothing), packed to a budget and unpacked as a viewer does.
final class QuantisedCloudTests: XCTestCase {
    func testTheBudgetKeepsEvenlySpreadFinitePointsWithinHalfAStep() throws {
        let cloud = try CloudReader.read(SharedData.path("pcl-grabber/frame_20121214T142255.814212.pcd")).cloud
        let finite = (0..<cloud.count).filter { i in (0..<3).allSatisfy { cloud.positions[3 * i + $0].isFinite } }
        XCTAssertGreaterThan(finite.count, 200_000, "the grabber frame has its 271,575 points")
        let colors = try XCTUnwrap(cloud.colors)

        for budget in [50_000, 1_000_000] {
            let packed = QuantisedCloud(cloud, budget: budget)
            XCTAssertEqual(packed.total, finite.count)
            XCTAssertEqual(packed.count, min(budget, finite.count))
            XCTAssertEqual(packed.payloads.map(\.count), [6 * packed.count, 3 * packed.count])
            var largestStep = 0
            var worst: Float = 0
            for j in 0..<packed.count {
                // The documented selection: point floor(j·n/budget) of the n finite points.
                let i = budget >= finite.count ? finite[j] : finite[j * finite.count / budget]
                let truth = SIMD3(cloud.positions[3 * i], cloud.positions[3 * i + 1], cloud.positions[3 * i + 2])
                let error = packed.position(j) - truth
                worst = max(worst, abs(error.x), abs(error.y), abs(error.z))
                XCTAssertEqual(Array(packed.colors[3 * j..<3 * j + 3]), Array(colors[3 * i..<3 * i + 3]))
                largestStep = max(largestStep, packed.positions[3 * j..<3 * j + 3].map { Int($0.magnitude) }.max()!)
            }
            // Rounding to the nearest step, plus Float's own rounding of the unpacking.
            XCTAssertLessThanOrEqual(worst, packed.scale * 0.5 + 1e-6, "budget \(budget)")
            // The box's largest half side is the int16 range: no step is wasted, none clamped.
            XCTAssertEqual(largestStep, 32767, "budget \(budget)")
            XCTAssertLessThan(packed.scale, 1e-4, "a 640x480 frame's few metres, at under 0.1 mm a step")
        }
    }

    func testACloudWithoutColorIsGreyAndAnEmptyOneIsEmpty() {
        let bare = PointCloud(positions: [0, 0, 1, 1, 0, 1, .nan, 0, 1])
        let packed = QuantisedCloud(bare, budget: 10)
        XCTAssertEqual(packed.count, 2)
        XCTAssertEqual(packed.total, 2)
        XCTAssertEqual(packed.colors, [UInt8](repeating: QuantisedCloud.uncolored, count: 6))
        XCTAssertEqual(packed.position(1), SIMD3(1, 0, 1))

        let empty = QuantisedCloud(PointCloud(positions: [.nan, .nan, .nan]), budget: 10)
        XCTAssertEqual(empty.count, 0)
        XCTAssertEqual(empty.payloads.map(\.count), [0, 0])
    }
}
