import CloudCore
import Foundation

extension VerticalPlanes {
    /// A plane most of whose points lie behind a wall, where that wall stands, is outside the
    /// room: a corridor's or the next room's wall seen through a doorway, whichever way it
    /// faces (the side walls of a corridor stand square to the wall with the doorway).
    static let beyondFraction = 0.5

    static func refuseBeyondWalls(_ planes: inout [VerticalPlane], set: WorkingSet) {
        let walls = planes.filter { $0.clutter == nil }
        // Where each wall stands: its columns that hold points of its own (at any height: above
        // a doorway, its lintel). A span can run on past a wall's end over open floor (an L's
        // inner wall along the other arm); what lies behind that part was seen past the wall,
        // not through it.
        let standing = walls.map { q in
            Set(q.fitted.inliers.map { Int((dot(set.points[Int($0)] - q.centroid, q.along) / column).rounded(.down)) })
        }
        for i in planes.indices where planes[i].clutter == nil {
            let p = planes[i]
            // A thousand of its points tell where it lies.
            let step = max(1, p.fitted.inliers.count / 1_000)
            let sample = stride(from: 0, to: p.fitted.inliers.count, by: step).map { set.points[Int(p.fitted.inliers[$0])] }
            for (k, q) in walls.enumerated() where q.centroid != p.centroid {
                // Behind it where it stands on both sides, farther than the noise: not along its end.
                let reach = Int((floorBeyond / column).rounded(.up))
                let behind = sample.filter { point in
                    let k0 = Int((dot(point - q.centroid, q.along) / column).rounded(.down))
                    return q.hides(point, margin: floorBeyond) && (k0 - reach...k0 + reach).allSatisfy { standing[k].contains($0) }
                }.count
                guard Double(behind) > beyondFraction * Double(sample.count) else { continue }
                planes[i].clutter = String(
                    format:
                        "beyond a wall: %.0f %% of its points lie behind a wall (its middle %.2f m behind), where that wall stands: seen through an opening in it",
                    100 * Double(behind) / Double(sample.count), -dot(p.centroid - q.centroid, q.normal))
                break
            }
        }
    }
}
