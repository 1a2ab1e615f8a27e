import CloudCore
import CloudPCL
import Foundation

extension PoseRefinement {
    /// Each frame's own points on each plane (at least FrameSpread.minPoints of them): those filed
    /// under working points near the plane, facing its way and on no other plane of the list,
    /// clear of the sensor's range limit; relative to `origin`.
    static func pairs(_ fitted: [FittedPlane], set: WorkingSet, frames: FramePoints, origin: SIMD3<Double>) -> [Pair] {
        var pairs: [Pair] = []
        // A working point on one of the planes is looked for on no other (a corner's points).
        var owner = [Int](repeating: -1, count: set.count)
        for (j, plane) in fitted.enumerated() { for i in plane.inliers where owner[Int(i)] < 0 { owner[Int(i)] = j } }
        for (j, plane) in fitted.enumerated() {
            var byFrame = [[SIMD3<Float>]](repeating: [], count: frames.frameCount)
            let width = searchWidth * plane.distance
            for (w, p) in set.points.enumerated()
            where (owner[w] < 0 || owner[w] == j) && abs(plane.plane.distance(p)) < width && set.faces(w, plane.plane.normal) {
                for k in frames.indices(of: UInt32(w)) where frames.isClear(k, of: plane) {
                    byFrame[Int(frames.frames[k])].append(SIMD3<Float>(SIMD3<Double>(frames.positions[k]) - origin))
                }
            }
            for (i, points) in byFrame.enumerated() where points.count >= FrameSpread.minPoints {
                pairs.append(Pair(frame: i, plane: j, points: points))
            }
        }
        return pairs
    }

    struct Pair {
        var frame: Int
        var plane: Int
        /// The frame's points near the plane, relative to the cameras' mean.
        var points: [SIMD3<Float>]
    }
}
