import CloudCore
import Foundation

/// How far apart the frames that saw a plane put it. When the poses drift (a walk, a pan whose
/// odometry creeps), each frame's copy of a wall or floor lies a few millimetres to centimetres
/// off the others, and the fused plane sits at their mean: it can be off by as much as they
/// disagree, which no resampling of the fused points shows (the bootstrap's blocks each hold
/// mostly one frame's copy, and their mean is as steady as the frames are many).
///
/// A fused cloud keeps no frame per point, so each point is given to the frame that looked
/// most squarely at it (its optical axis nearest the point's direction, within `viewCone`):
/// overlapping frames both saw such a point, so either will do.
enum FrameSpread {
    /// A frame that gave a plane fewer points than this tells nothing about where it puts it.
    static let minPoints = 100
    static let viewCone = VerticalPlanes.viewCone

    /// The spread (a standard deviation, weighted by points) of the mean distance from the plane
    /// of each frame's points; 0 with fewer than two frames that saw it.
    static func of(_ fitted: FittedPlane, set: WorkingSet, cameras: [CameraView]) -> Double {
        guard cameras.count > 1 else { return 0 }
        var sums = [Double](repeating: 0, count: cameras.count)
        var counts = [Int](repeating: 0, count: cameras.count)
        let minCosine = cos(viewCone)
        for i in fitted.inliers {
            let p = set.points[Int(i)]
            var best = -1
            var bestCosine = minCosine
            for (k, camera) in cameras.enumerated() {
                let d = p - camera.position
                let cosine = dot(d, camera.forward) / max(1e-9, (d * d).sum().squareRoot())
                if cosine > bestCosine { (best, bestCosine) = (k, cosine) }
            }
            guard best >= 0 else { continue }
            sums[best] += fitted.plane.distance(p)
            counts[best] += 1
        }
        let frames = cameras.indices.filter { counts[$0] >= minPoints }
        guard frames.count >= 2 else { return 0 }
        let total = Double(frames.reduce(0) { $0 + counts[$1] })
        let mean = frames.reduce(0.0) { $0 + sums[$1] } / total
        let variance =
            frames.reduce(0.0) { sum, k in
                let m = sums[k] / Double(counts[k])
                return sum + Double(counts[k]) * (m - mean) * (m - mean)
            } / total
        return variance.squareRoot()
    }
}
