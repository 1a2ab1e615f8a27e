import CloudCore
import CloudMeasure
import Foundation
import XCTest

/// What a camera saw from behind a wall's plane is not the wall. The room is Kinect room 25 of
/// seed 2026, as Tools/rooms made it, built from rectangles (RoomBoundaryTests' helpers, z up,
/// metres).
final class SeenFromBehindTests: XCTestCase {
    typealias Room = RoomBoundaryTests

    /// An L room 2.63 m high: x 0...5.55 by y 0...5.84, and x 0...1.82 by y 5.84...7.83, so its
    /// inner wall runs along x = 1.82 from y = 5.84 to 7.83. A cabinet 1.86 m high stands against
    /// that wall at y 5.86...6.47, its side at x = 1.80: 2 cm in front of the wall, facing it.
    /// Two frames: one from (2.04, 1.24) in the big arm, 22 cm behind the inner wall's plane, which
    /// sees the big arm and, past the inner corner, the cabinet's side; one from (1.16, 7.07) in the
    /// small arm, which sees the small arm and the inner wall above the cabinet. Each point lies off
    /// its surface along its frame's ray by a third of a Kinect's noise (1.5 mm times the squared
    /// distance; seeded): a fused scan's leaf averages about ten frames' points.
    static func lRoomWithACabinetSideSeenPastTheCorner() -> RoomScan {
        let h = 2.63
        let eyes = [SIMD3(2.04, 1.24, 1.39), SIMD3(1.16, 7.07, 1.66)]
        let bigArm = [
            Room.level(x: 0...5.55, y: 0...5.84, z: 0), Room.level(x: 0...5.55, y: 0...5.84, z: h),
            Room.wall(from: SIMD2(0, 0), to: SIMD2(5.55, 0), height: h),
            Room.wall(from: SIMD2(5.55, 0), to: SIMD2(5.55, 5.84), height: h),
            Room.wall(from: SIMD2(5.55, 5.84), to: SIMD2(1.82, 5.84), height: h),
            Room.wall(from: SIMD2(0, 5.84), to: SIMD2(0, 0), height: h),
            // The cabinet's side, seen edge-on past the inner corner.
            Room.wall(from: SIMD2(1.80, 5.86), to: SIMD2(1.80, 6.47), height: 1.86)
        ]
        let smallArm = [
            Room.level(x: 0...1.82, y: 5.84...7.83, z: 0), Room.level(x: 0...1.82, y: 5.84...7.83, z: h),
            // The inner wall: above the cabinet beside the corner, whole beyond it.
            Room.wall(from: SIMD2(1.82, 5.84), to: SIMD2(1.82, 6.47), bottom: 1.86, height: h - 1.86),
            Room.wall(from: SIMD2(1.82, 6.47), to: SIMD2(1.82, 7.83), height: h),
            Room.wall(from: SIMD2(1.82, 7.83), to: SIMD2(0, 7.83), height: h),
            Room.wall(from: SIMD2(0, 7.83), to: SIMD2(0, 5.84), height: h),
            // The cabinet's front.
            Room.wall(from: SIMD2(1.80, 6.47), to: SIMD2(1.22, 6.47), height: 1.86)
        ]
        var random = SplitMix64(seed: 25)
        var positions: [Float] = []
        var starts: [Int] = []
        for (eye, surfaces) in zip(eyes, [bigArm, smallArm]) {
            starts.append(positions.count / 3)
            for r in surfaces {
                let (nu, nv) = (Int((r.u * r.u).sum().squareRoot() / Room.spacing), Int((r.v * r.v).sum().squareRoot() / Room.spacing))
                for i in 0...nu {
                    for j in 0...nv {
                        let p = r.corner + Double(i) / Double(nu) * r.u + Double(j) / Double(nv) * r.v
                        let ray = p - eye
                        let distance = (ray * ray).sum().squareRoot()
                        let q = p + 0.0005 * distance * distance * random.gaussian() * ray / distance
                        positions += [Float(q.x), Float(q.y), Float(q.z)]
                    }
                }
            }
        }
        // The second looks up at the inner wall above the cabinet: no floor of the big arm lies in
        // its view (a floor point is taken as seen by the nearest camera that looked its way).
        let cameras = [
            Pose.lookAt(eye: eyes[0], target: SIMD3(1.9, 6.5, 1.3)), Pose.lookAt(eye: eyes[1], target: SIMD3(1.82, 6.5, 2.2))
        ]
        return RoomScan(
            name: "L", cloud: PointCloud(positions: positions), cameras: cameras, sourceUp: SIMD3(0, 0, 1), frameStarts: starts)
    }

    /// The inner wall stands where it is, and the wall that meets it at the inner corner is
    /// measured within 3 mm. With the cabinet's side in the inner wall's plane, the plane turned
    /// toward it and the corner moved (room 25: the wall 10.2 mm too long, the inner wall 0.46
    /// degrees off).
    func testACabinetSideSeenFromBehindAWallDoesNotTurnIt() throws {
        let report = try RoomMeasurer.measure(Self.lRoomWithACabinetSideSeenPastTheCorner()).report
        let frame = report.frame
        func plan(_ p: [Double]) -> SIMD2<Double> {
            SIMD2(frame.origin[0] + p[0] * frame.x[0] + p[1] * frame.y[0], frame.origin[1] + p[0] * frame.x[1] + p[1] * frame.y[1])
        }
        let inner = try XCTUnwrap(
            report.walls.first { abs(plan($0.start).x - 1.82) < 0.05 && abs(plan($0.end).x - 1.82) < 0.05 },
            "\(report.walls.map { ($0.start, $0.end) })")
        for end in [inner.start, inner.end].map(plan) { XCTAssertEqual(end.x, 1.82, accuracy: 0.003, "inner wall's end at \(end)") }
        let meeting = try XCTUnwrap(report.walls.first { abs(plan($0.start).y - 5.84) < 0.05 && abs(plan($0.end).y - 5.84) < 0.05 })
        XCTAssertEqual(try XCTUnwrap(meeting.length, "\(meeting.reason ?? "")").value, 3.73, accuracy: 0.003)
    }
}
