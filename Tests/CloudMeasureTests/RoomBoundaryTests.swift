import CloudCore
import CloudMeasure
import Foundation
import XCTest

/// What is not the room's: a corridor's walls and ceiling seen through a doorway, and a
/// cupboard's face whose top was out of view. Each room is built point by point from rectangles
/// whose geometry is known (z up, metres, 1.5 cm apart, no noise), keeping only what the cameras
/// could see: behind the wall with the doorway, only what a sight line through the doorway reaches.
final class RoomBoundaryTests: XCTestCase {
    /// A rectangle from `corner` spanning `u` and `v`.
    struct Rectangle {
        var corner: SIMD3<Double>
        var u: SIMD3<Double>
        var v: SIMD3<Double>
    }

    static let spacing = 0.015

    /// Points on `rectangles` that one of `eyes` sees: those in front of `doorWall` (y < its y)
    /// always, those behind it only along a sight line that crosses it inside `doorway`.
    static func cloud(
        _ rectangles: [Rectangle], eyes: [SIMD3<Double>], doorWall: Double = .infinity,
        doorway: (x: ClosedRange<Double>, z: ClosedRange<Double>) = (0...0, 0...0)
    ) -> PointCloud {
        var positions: [Float] = []
        for r in rectangles {
            let (nu, nv) = (Int((r.u * r.u).sum().squareRoot() / spacing), Int((r.v * r.v).sum().squareRoot() / spacing))
            for i in 0...nu {
                for j in 0...nv {
                    let p = r.corner + Double(i) / Double(nu) * r.u + Double(j) / Double(nv) * r.v
                    let seen =
                        p.y <= doorWall + 1e-9
                        || eyes.contains { e in
                            let c = e + (doorWall - e.y) / (p.y - e.y) * (p - e)
                            return doorway.x.contains(c.x) && doorway.z.contains(c.z)
                        }
                    if seen { positions += [Float(p.x), Float(p.y), Float(p.z)] }
                }
            }
        }
        return PointCloud(positions: positions)
    }

    /// Each station pans eight level views round.
    static func cameras(at eyes: [SIMD3<Double>]) -> [Pose] {
        eyes.flatMap { e in
            (0..<8).map { k -> Pose in
                let a = Double(k) * Double.pi / 4
                return Pose.lookAt(eye: e, target: e + SIMD3(cos(a), sin(a), 0))
            }
        }
    }

    static func wall(from a: SIMD2<Double>, to b: SIMD2<Double>, bottom: Double = 0, height: Double) -> Rectangle {
        Rectangle(corner: SIMD3(a.x, a.y, bottom), u: SIMD3(b.x - a.x, b.y - a.y, 0), v: SIMD3(0, 0, height))
    }

    static func level(x: ClosedRange<Double>, y: ClosedRange<Double>, z: Double) -> Rectangle {
        Rectangle(
            corner: SIMD3(x.lowerBound, y.lowerBound, z), u: SIMD3(x.upperBound - x.lowerBound, 0, 0),
            v: SIMD3(0, y.upperBound - y.lowerBound, 0))
    }

    /// A 4 x 3 x 2.6 m room with a 0.9 x 2.05 m doorway in its wall at y = 3 onto a corridor
    /// 3 m wide and 2 m deep (its own walls, floor and ceiling), seen from two stations.
    static func roomWithCorridor(roomCeiling: Bool) -> RoomScan {
        let h = 2.6
        let eyes = [SIMD3(1.0, 1.0, 1.4), SIMD3(3.2, 1.0, 1.4)]
        var surfaces = [
            level(x: 0...4, y: 0...3, z: 0),
            wall(from: SIMD2(0, 0), to: SIMD2(4, 0), height: h),
            wall(from: SIMD2(4, 0), to: SIMD2(4, 3), height: h),
            wall(from: SIMD2(0, 3), to: SIMD2(0, 0), height: h),
            // The wall with the doorway (x 1.5 to 2.4): beside it and above it.
            wall(from: SIMD2(0, 3), to: SIMD2(1.5, 3), height: h),
            wall(from: SIMD2(2.4, 3), to: SIMD2(4, 3), height: h),
            wall(from: SIMD2(1.5, 3), to: SIMD2(2.4, 3), bottom: 2.05, height: h - 2.05),
            // The corridor.
            level(x: 0.5...3.5, y: 3...5, z: 0),
            level(x: 0.5...3.5, y: 3...5, z: h),
            wall(from: SIMD2(0.5, 3), to: SIMD2(0.5, 5), height: h),
            wall(from: SIMD2(3.5, 5), to: SIMD2(3.5, 3), height: h),
            wall(from: SIMD2(0.5, 5), to: SIMD2(3.5, 5), height: h)
        ]
        if roomCeiling { surfaces.append(level(x: 0...4, y: 0...3, z: h)) }
        let cloud = Self.cloud(surfaces, eyes: eyes, doorWall: 3, doorway: (1.5...2.4, 0...2.05))
        return RoomScan(name: "corridor", cloud: cloud, cameras: cameras(at: eyes), sourceUp: SIMD3(0, 0, 1))
    }

    /// The corridor's walls, square to the room's wall and parallel to it, are not room walls:
    /// the room closes with its four and every other vertical plane is clutter beyond a wall.
    func testCorridorWallsSeenThroughADoorwayAreNotRoomWalls() throws {
        let report = try RoomMeasurer.measure(Self.roomWithCorridor(roomCeiling: true)).report
        XCTAssertEqual(report.outline, "closed")
        XCTAssertEqual(report.walls.count, 4, "\(report.walls.map { ($0.start, $0.end) })")
        for (found, truth) in zip(report.walls.compactMap { $0.length?.value }.sorted(), [3.0, 3.0, 4.0, 4.0]) {
            XCTAssertEqual(found, truth, accuracy: 0.005)
        }
        let beyond = report.clutter.filter { $0.kind == "vertical" && $0.reason.hasPrefix("beyond a wall") }
        XCTAssertGreaterThanOrEqual(beyond.count, 2, "\(report.clutter.map(\.reason))")
        XCTAssertEqual(try XCTUnwrap(report.height?.value), 2.6, accuracy: 0.005)
    }

    /// With the room's own ceiling out of view, the corridor's is the only ceiling seen: it lies
    /// behind the wall with the doorway, so the room's height is null with that reason, not the
    /// corridor's height.
    func testACeilingSeenOnlyBeyondAWallGivesNoHeight() throws {
        let report = try RoomMeasurer.measure(Self.roomWithCorridor(roomCeiling: false)).report
        XCTAssertNil(report.height, "height \(String(describing: report.height))")
        XCTAssertNil(report.ceiling)
        XCTAssertTrue(report.reasons["ceiling"]?.contains("behind a wall") == true, "\(report.reasons)")
        XCTAssertTrue(report.clutter.contains { $0.kind == "level" && $0.reason.contains("behind a wall") })
    }

    /// A 4 x 3 x 2.8 m room whose wall at x = 0 was not seen, with a 2 m cabinet in the corner at
    /// (4, 0), 0.6 x 0.6 m, its top out of every (level) view. Its front meets the wall at x = 4,
    /// which then looks 2.4 m long where it is 3 m: the corner is not certain, so that length is
    /// null with its reason, and no length is reported wrong.
    func testACornerWithAPlaneNotSeenToReachTheCeilingGivesNoLength() throws {
        let h = 2.8
        let eyes = [SIMD3(2.0, 1.8, 1.3)]
        let surfaces = [
            // The floor but for the cabinet's footprint, and the ceiling.
            Self.level(x: 0...3.4, y: 0...3, z: 0), Self.level(x: 3.4...4, y: 0.6...3, z: 0), Self.level(x: 0...4, y: 0...3, z: h),
            Self.wall(from: SIMD2(0, 0), to: SIMD2(3.4, 0), height: h),
            Self.wall(from: SIMD2(4, 0.6), to: SIMD2(4, 3), height: h),
            Self.wall(from: SIMD2(4, 3), to: SIMD2(0, 3), height: h),
            // The cabinet's front and side (the walls above it were out of view).
            Self.wall(from: SIMD2(3.4, 0.6), to: SIMD2(4, 0.6), height: 2.0),
            Self.wall(from: SIMD2(3.4, 0), to: SIMD2(3.4, 0.6), height: 2.0)
        ]
        let scan = RoomScan(
            name: "cabinet", cloud: Self.cloud(surfaces, eyes: eyes), cameras: Self.cameras(at: eyes),
            sourceUp: SIMD3(0, 0, 1))
        let report = try RoomMeasurer.measure(scan).report
        XCTAssertEqual(report.outline, "open")
        let truths = [3.0, 4.0]
        for wall in report.walls {
            guard let length = wall.length?.value else { continue }
            XCTAssertTrue(truths.contains { abs($0 - length) < 0.01 }, "wall \(wall.index): \(length) m, no true length")
        }
        // The wall at x = 4 (its plane -x + 4 = 0) is found, without a length, for that reason.
        let side = try XCTUnwrap(report.walls.first { abs($0.surface.plane[0]) > 0.9 && abs(abs($0.surface.plane[3]) - 4) < 0.05 })
        XCTAssertNil(side.length, "\(side.length!.value) m")
        XCTAssertTrue(side.reason?.contains("not seen to reach the ceiling") == true, "\(String(describing: side.reason))")
    }
}
