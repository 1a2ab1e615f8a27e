import CloudCore
import CloudPCL
import Foundation

/// A wall's face is seen from the room, so no camera behind its plane saw it. In an L, though, a
/// camera in one arm looks past the inner corner along the other arm's inner wall, from behind
/// that wall's plane, and sees what faces it: a cabinet's side 2 cm in front of the wall, in the
/// wall's slab. On Kinect room 25 of seed 2026 those points, seen edge-on from 5 m, turned the
/// wall (seen from its own arm at 1 m) by 0.46 degrees and moved the corner 1 cm.
extension VerticalPlanes {
    /// Cameras this near a plane's line (a grazing view along it) are on neither side of it.
    static let behindMargin = 0.1
    /// Seen edge-on, a pixel spans 20 cm of a surface, and a working point whose leaf kept none
    /// of the scan's sampled points (FramePoints) takes the side of its square of this size.
    static let sideCell = 0.1

    /// `points` without those that only cameras on one side of the plane saw, when that side saw
    /// fewer of them than the other: the side that saw most is the face. Unchanged when the scan
    /// does not say which frame saw which point.
    static func seenFromItsFace(_ points: [(index: UInt32, along: Double)], plane: Plane, set: WorkingSet)
        -> [(index: UInt32, along: Double)]
    {
        guard let frames = set.framePoints else { return points }
        // A camera's side of the plane is the same for every point on it.
        let cameraSide = frames.cameras.map { c -> Int8 in
            let s = plane.distance(c.position)
            return s > behindMargin ? 1 : (s < -behindMargin ? -1 : 0)
        }
        let axes = plane.inPlaneAxes
        func cell(_ i: UInt32) -> SIMD2<Int> { Plane.square(of: set.points[Int(i)], axes: axes, size: sideCell) }
        // Bit 0: seen from the front, bit 1: from the back; by point, and by cell.
        var seen = [UInt8](repeating: 0, count: points.count)
        var cells: [SIMD2<Int>: UInt8] = [:]
        for (n, p) in points.enumerated() {
            for k in frames.indices(of: p.index) {
                switch cameraSide[Int(frames.frames[k])] {
                case 1: seen[n] |= 1
                case -1: seen[n] |= 2
                default: break
                }
            }
            if seen[n] != 0 { cells[cell(p.index), default: 0] |= seen[n] }
        }
        for (n, p) in points.enumerated() where seen[n] == 0 { seen[n] = cells[cell(p.index)] ?? 0 }
        let fronts = seen.filter { $0 == 1 }.count
        let backs = seen.filter { $0 == 2 }.count
        let otherSide: UInt8 = fronts >= backs ? 2 : 1
        guard seen.contains(otherSide) else { return points }
        return zip(points, seen).filter { $0.1 != otherSide }.map(\.0)
    }
}
