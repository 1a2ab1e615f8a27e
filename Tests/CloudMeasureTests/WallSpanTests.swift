import CloudCore
import CloudMeasure
import Foundation
import XCTest

/// Where a wall stands: a plane's span must not run on over the room's own floor. The rooms are
/// built from rectangles of known geometry with RoomBoundaryTests' helpers (z up, metres, no noise).
final class WallSpanTests: XCTestCase {
    typealias Room = RoomBoundaryTests

    /// A T room 2.6 m high: its stem x 2...4, y 0...3, its arm x 0...6, y 3...5.5, every wall seen.
    /// Along the stem's right wall's line (x = 4) across the arm lie a few stray points 10 cm below
    /// the ceiling, 25 cm apart: what a far ceiling's noise leaves off its plane (no normal of their
    /// own, too far from the ceiling to be its points). They join the wall's columns over the arm.
    static func tRoomWithStrayPoints() -> RoomScan {
        let h = 2.6
        let corners: [SIMD2<Double>] = [
            SIMD2(2, 0), SIMD2(4, 0), SIMD2(4, 3), SIMD2(6, 3), SIMD2(6, 5.5), SIMD2(0, 5.5), SIMD2(0, 3), SIMD2(2, 3)
        ]
        var surfaces = (0..<corners.count).map { Room.wall(from: corners[$0], to: corners[($0 + 1) % corners.count], height: h) }
        surfaces += [
            Room.level(x: 2...4, y: 0...3, z: 0), Room.level(x: 0...6, y: 3...5.5, z: 0),
            Room.level(x: 2...4, y: 0...3, z: h), Room.level(x: 0...6, y: 3...5.5, z: h)
        ]
        let eyes = [SIMD3(3.0, 1.2, 1.4), SIMD3(1.5, 4.3, 1.4), SIMD3(4.8, 4.3, 1.4)]
        var positions = Room.cloud(surfaces, eyes: eyes).positions
        for y in stride(from: 3.1, through: 5.4, by: 0.25) { positions += [4, Float(y), Float(h - 0.1)] }
        return RoomScan(name: "T", cloud: PointCloud(positions: positions), cameras: Room.cameras(at: eyes), sourceUp: SIMD3(0, 0, 1))
    }

    static let trueLengths = [2.0, 3.0, 2.0, 2.5, 6.0, 2.5, 2.0, 3.0]

    /// The stem's right wall stops where the arm's floor is seen behind its line. Without that it
    /// runs on over the arm to the arm's far wall: 5.5 m long where it is 3 m, the far wall 4 m
    /// where it is 6 m, and the arm's end wall taken as beyond it. (The arm's two walls beside the
    /// stem lie in one plane, which keeps one of them: the outline stays open.)
    func testAWallStopsWhereTheFloorIsSeenBehindIt() throws {
        let report = try RoomMeasurer.measure(Self.tRoomWithStrayPoints()).report
        for wall in report.walls {
            guard let length = wall.length?.value else { continue }
            XCTAssertTrue(Self.trueLengths.contains { abs($0 - length) < 0.01 }, "wall \(wall.index): \(length) m, no true length")
        }
        // The stem's right wall (x = 4) and the arm's end wall (x = 6) are both walls, the stem's
        // no longer than the stem.
        let frame = report.frame
        func planX(_ p: [Double]) -> Double { frame.origin[0] + p[0] * frame.x[0] + p[1] * frame.y[0] }
        let stem = try XCTUnwrap(report.walls.first { abs(planX($0.start) - 4) < 0.05 && abs(planX($0.end) - 4) < 0.05 })
        XCTAssertLessThan(stem.visibleLength, 3.3)
        XCTAssertTrue(
            report.walls.contains { abs(planX($0.start) - 6) < 0.05 && abs(planX($0.end) - 6) < 0.05 },
            "\(report.clutter.map(\.reason))")
    }
}
