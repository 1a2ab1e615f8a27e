import CloudCore
import CloudPCL
import Foundation

extension VerticalPlanes {
    /// A point whose sight line lies within this angle of the plane was seen edge-on.
    static let edgeOnAngle = 2 * Double.pi / 180
    /// A plane more than this share of whose points were seen edge-on is no surface.
    static let edgeOnShare = 0.5

    /// A camera sees a surface at an angle, never edge-on: a wall seen from a station half a
    /// metre off it comes within 2 degrees of its sight lines only 14 m along it. What a camera
    /// does put along its own sight lines is a depth edge's mixed pixels, whose depth lies
    /// anywhere between the nearer edge (a bookshelf's side) and the surface behind it: from
    /// a station panning about one point the sheet they make is a plane through the camera,
    /// full height and as dense as a wall, and it closed a T room's outline 0.9 m off. With the
    /// frame each point came from (FramePoints), a plane most of whose points lie along the sight
    /// lines of the frames that saw them is such a sheet. Without frames per point nothing is
    /// refused.
    static func refuseEdgeOn(_ planes: inout [VerticalPlane], set: WorkingSet) {
        guard let frames = set.framePoints else { return }
        let limit = sin(edgeOnAngle)
        for i in planes.indices where planes[i].clutter == nil {
            let plane = planes[i].fitted.plane
            var (edgeOn, total) = (0, 0)
            for k in planes[i].fitted.inliers {
                for j in frames.indices(of: k) {
                    let camera = frames.cameras[Int(frames.frames[j])]
                    let ray = normalize(SIMD3<Double>(frames.positions[j]) - camera.position)
                    total += 1
                    if abs(dot(plane.normal, ray)) < limit { edgeOn += 1 }
                }
            }
            guard total > 0, Double(edgeOn) > edgeOnShare * Double(total) else { continue }
            planes[i].clutter = String(
                format:
                    "not a wall: %.0f %% of its points lie along the sight lines of the cameras that saw them (a depth edge's mixed pixels)",
                100 * Double(edgeOn) / Double(total))
        }
    }
}
