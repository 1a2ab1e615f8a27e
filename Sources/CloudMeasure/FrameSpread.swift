import CloudCore
import CloudPCL
import Foundation

/// How far apart the frames that saw a plane put it. When the poses drift (a walk, a pan whose
/// odometry creeps), each frame's copy of a wall or floor lies a few millimetres to centimetres
/// off the others, and the fused plane sits at their mean: it can be off by as much as they
/// disagree, which no resampling of the fused points shows (the voxel grid averages the frames'
/// copies into one, and the bootstrap's blocks each hold mostly one frame's).
///
/// Each frame's own points on the plane (FramePoints: the fused cloud knows which frame each
/// point came from) put it at the centre of their residuals; the spread of those offsets, less
/// what each frame's own noise alone would scatter them by, is how far the frames disagree.
/// Only points within the plane's inlier distance count (a point filed under a leaf of the plane
/// may belong to the surface beside it), and only those clear of the sensor's range limit
/// (FramePoints.isClear): a frame that saw a far wall near the limit puts it nearer by its cut
/// noise, which is no disagreement of the poses (RangeLimitFit refits the plane without them).
enum FrameSpread {
    /// A frame that gave a plane fewer points than this tells nothing about where it puts it.
    static let minPoints = 100

    /// The spread (a standard deviation) of the offsets at which the frames that saw the plane put
    /// it; 0 when the scan does not say which frame a point came from, or fewer than two frames
    /// saw the plane. Each frame counts once, whatever its share of the points: each is one draw
    /// of its pose's error, and a frame square-on to a wall is not more likely to be right.
    static func of(_ fitted: FittedPlane, set: WorkingSet) -> Double {
        guard let frames = set.framePoints else { return 0 }
        var residuals = [[Double]](repeating: [], count: frames.frameCount)
        for i in fitted.inliers {
            for k in frames.indices(of: i) where frames.isClear(k, of: fitted) {
                let r = fitted.plane.distance(SIMD3<Double>(frames.positions[k]))
                if abs(r) < fitted.distance { residuals[Int(frames.frames[k])].append(r) }
            }
        }
        // Each frame's offset, and the variance its own points' noise alone gives that offset.
        var offsets: [Double] = []
        var noise = 0.0
        for r in residuals where r.count >= minPoints {
            let centre = WorkingSet.coreCentre(r)
            var deviations = r.map { abs($0 - centre) }
            let sigma = 1.4826 * WorkingSet.median(&deviations)
            offsets.append(centre)
            noise += sigma * sigma / Double(r.count)
        }
        guard offsets.count >= 2 else { return 0 }
        let n = Double(offsets.count)
        let mean = offsets.reduce(0, +) / n
        let scatter = offsets.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        return max(0, scatter - noise / n).squareRoot()
    }
}
