import CloudCore
import CloudPCL
import Foundation

/// A plane refitted on the points its frames saw clear of the sensor's range limit. A depth
/// camera keeps nothing past its limit (a Kinect's 6 m), so where a surface lies within its noise
/// of the limit only the nearer half of its noise is kept, and its points come out nearer than
/// the surface: a far wall seen from 5-6 m is pulled in by centimetres, and more at its far end,
/// which turns it. The limit shows in the data as the largest depth any frame kept
/// (FramePoints.maxDepth). Whether a point's noise could have been cut depends on where the
/// surface lies along its pixel's ray, not on where the noise put the point, so dropping the
/// points whose ray meets the plane within three sigmas of the limit leaves the rest unbiased.
enum RangeLimitFit {
    /// Below this share of points near the limit, the cut moves the plane by less than its
    /// noise's mean over the rest does: the plane keeps its fit.
    static let minNearLimit = 0.05
    /// Fewer clear points than this cannot turn a plane.
    static let minClear = 500

    /// The plane refitted on its frames' points clear of the limit (FittedPlane.clearOfRange set),
    /// or as it was: no frames per point, few points near the limit, or too few clear of it.
    static func refit(_ fitted: FittedPlane, set: WorkingSet) -> FittedPlane {
        guard let frames = set.framePoints else { return fitted }
        let (clear, total) = clearPoints(fitted.inliers, of: fitted, frames: frames)
        guard Double(total - clear.count) >= minNearLimit * Double(total), clear.count >= minClear,
            let plane = fit(clear, like: fitted.plane, distance: fitted.distance)
        else { return fitted }
        var refitted = fitted
        refitted.plane = plane
        refitted.clearOfRange = true
        return refitted
    }

    /// A bootstrap round's plane from the drawn working points: their frames' points clear of
    /// the limit, as `refit` took them.
    static func fit(_ drawn: [UInt32], like fitted: FittedPlane, set: WorkingSet) -> Plane? {
        guard let frames = set.framePoints else { return nil }
        let clear = clearPoints(drawn, of: fitted, frames: frames).clear
        return clear.count >= minClear ? fit(clear, like: fitted.plane, distance: fitted.distance) : nil
    }

    /// The frame points under `indices` whose rays meet the plane clear of the limit
    /// (FramePoints.isClear), and how many points there were.
    static func clearPoints(_ indices: [UInt32], of fitted: FittedPlane, frames: FramePoints) -> (clear: [SIMD3<Double>], total: Int) {
        var clear: [SIMD3<Double>] = []
        var total = 0
        for i in indices {
            for k in frames.indices(of: i) {
                total += 1
                if frames.isClear(k, of: fitted) { clear.append(SIMD3<Double>(frames.positions[k])) }
            }
        }
        return (clear, total)
    }

    /// The least-squares plane through `points` (its normal turned like `reference`'s), then the
    /// points farther than `distance` from it dropped (a frame point filed under a plane's leaf
    /// may belong to the surface beside it) and it fitted again, its offset on their core
    /// (WorkingSet.coreCentre).
    static func fit(_ points: [SIMD3<Double>], like reference: Plane, distance: Double) -> Plane? {
        var plane = reference
        var kept = points
        for _ in 0..<2 {
            guard let fitted = leastSquares(kept, near: plane.normal) else { return nil }
            plane = fitted
            kept = kept.filter { abs(plane.distance($0)) < distance }
            guard kept.count >= minClear else { return nil }
        }
        plane.offset -= WorkingSet.coreCentre(kept.map { plane.distance($0) })
        return plane
    }

    /// The plane through the points' centroid normal to their covariance's smallest eigenvector,
    /// found by inverse iteration from `near` (the plane's normal, already close to it).
    static func leastSquares(_ points: [SIMD3<Double>], near: SIMD3<Double>) -> Plane? {
        guard points.count >= 3 else { return nil }
        let centroid = points.reduce(.zero, +) / Double(points.count)
        var c = [[Double]](repeating: [0, 0, 0], count: 3)
        for p in points {
            let d = p - centroid
            for r in 0..<3 { for s in 0..<3 { c[r][s] += d[r] * d[s] } }
        }
        // The cofactor matrix is the inverse times the determinant: the same eigenvectors, with the
        // smallest eigenvalue's largest.
        func cofactor(_ r: Int, _ s: Int) -> Double {
            let (r1, r2) = ((r + 1) % 3, (r + 2) % 3)
            let (s1, s2) = ((s + 1) % 3, (s + 2) % 3)
            return c[r1][s1] * c[r2][s2] - c[r1][s2] * c[r2][s1]
        }
        var n = near
        for _ in 0..<20 {
            let next = SIMD3(
                cofactor(0, 0) * n.x + cofactor(1, 0) * n.y + cofactor(2, 0) * n.z,
                cofactor(0, 1) * n.x + cofactor(1, 1) * n.y + cofactor(2, 1) * n.z,
                cofactor(0, 2) * n.x + cofactor(1, 2) * n.y + cofactor(2, 2) * n.z)
            let length = (next * next).sum().squareRoot()
            guard length > 0, length.isFinite else { return nil }
            n = next / length
        }
        if dot(n, near) < 0 { n = -n }
        return Plane(normal: n, offset: -dot(n, centroid))
    }
}
