import CloudCore
import CloudPCL
import Foundation

/// How much of a plane's scatter its neighbouring points share. Independent noise (a depth
/// camera's per-pixel noise, however large) averages away over thousands of points; what
/// neighbouring points share (depth steps, smoothing, a wave in the surface, a copy of the
/// plane from one frame) does not, and can move the whole plane. It is measured as the
/// covariance of the mean residuals of cells a leaf apart on the plane: zero for independent
/// noise, the whole variance for an error common to the plane.
enum SharedResidual {
    /// The square root of the covariance (0 when it is negative or too few cells touch).
    static func of(_ fitted: FittedPlane, set: WorkingSet, leaf: Double) -> Double {
        let axes = fitted.plane.inPlaneAxes
        var sums: [SIMD2<Int>: (sum: Double, count: Int)] = [:]
        for i in fitted.inliers {
            let p = set.points[Int(i)]
            let key = Plane.square(of: p, axes: axes, size: leaf)
            let r = fitted.plane.distance(p)
            let cell = sums[key] ?? (0, 0)
            sums[key] = (cell.sum + r, cell.count + 1)
        }
        let means = sums.mapValues { $0.sum / Double($0.count) }
        let centre = means.values.reduce(0, +) / Double(max(1, means.count))
        var products = 0.0
        var pairs = 0
        for (key, m) in means {
            for step in [SIMD2(1, 0), SIMD2(0, 1)] {
                guard let n = means[key &+ step] else { continue }
                products += (m - centre) * (n - centre)
                pairs += 1
            }
        }
        guard pairs >= 10 else { return 0 }
        return max(0, products / Double(pairs)).squareRoot()
    }
}
