import CloudCore
import CloudPCL
import Foundation

extension PoseRefinement {
    /// One frame's points on one plane, moved by the frame's current correction and gated by the
    /// plane's inlier distance, summed as the moments the normal equations need: every point's
    /// residual and its derivatives are linear in (x, y, z, 1), so their sums of products are.
    struct Moments {
        /// Sum over the points of q qᵀ, q = (x, y, z, 1), row-major 4 x 4.
        var sums: [Double]
        var count: Int
        /// The variance of the points' distances from the plane about their mean: the pair's noise.
        var variance: Double
        /// How far the frame's copy leans against the plane (radians, small): a drifted copy leans
        /// by the drift's rotation, another surface's points by much more.
        var tilt: Double

        init?(_ points: [SIMD3<Float>], move: Pose, plane: PlaneState) {
            var sums = [Double](repeating: 0, count: 16)
            var count = 0
            for point in points {
                let p = move.apply(SIMD3<Double>(point))
                guard abs(dot(plane.normal, p) + plane.offset) < plane.gate else { continue }
                let q = [p.x, p.y, p.z, 1]
                for r in 0..<4 { for c in r..<4 { sums[4 * r + c] += q[r] * q[c] } }
                count += 1
            }
            guard count >= FrameSpread.minPoints else { return nil }
            for r in 0..<4 { for c in 0..<r { sums[4 * r + c] = sums[4 * c + r] } }
            self.sums = sums
            self.count = count
            // The points' covariance, from the sums.
            let n = Double(count)
            let mean = SIMD3(sums[3], sums[7], sums[11]) / n
            func cov(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
                var total = 0.0
                let (x, m) = ([a.x, a.y, a.z], [mean.x, mean.y, mean.z])
                let y = [b.x, b.y, b.z]
                for r in 0..<3 { for c in 0..<3 { total += x[r] * y[c] * (sums[4 * r + c] / n - m[r] * m[c]) } }
                return total
            }
            let (u, v) = plane.axes
            let normal = plane.normal
            variance = max(1e-8, cov(normal, normal))
            // The residual's slope along the plane's two axes (least squares on the in-plane spread).
            let (uu, uv, vv) = (cov(u, u), cov(u, v), cov(v, v))
            let (ur, vr) = (cov(u, normal), cov(v, normal))
            let determinant = uu * vv - uv * uv
            if determinant > 1e-12 {
                let a = (vv * ur - uv * vr) / determinant
                let b = (uu * vr - uv * ur) / determinant
                tilt = (a * a + b * b).squareRoot()
            } else {
                tilt = .infinity
            }
        }
    }

    struct FrameStep {
        var rotation: SIMD3<Double>
        var translation: SIMD3<Double>
    }

    /// The Gauss-Newton normal equations over every frame's 6 parameters (rotation about its
    /// camera, translation) and every plane's 3 (its normal's tilt along its two axes, offset),
    /// solved by eliminating the frames (their system is block tridiagonal: each frame is tied
    /// only to the one before and after it; the planes are few).
    struct NormalEquations {
        let frames: Int
        let planes: Int
        var frameBlocks: [[Double]]
        var frameGradients: [[Double]]
        /// By frame: plane -> its 6 x 3 block, row-major.
        var crossBlocks: [[Int: [Double]]]
        var planeBlock: SquareMatrix
        var planeGradient: [Double]
        /// By frame i >= 1: the diagonal of the block between frames i - 1 and i (the odometry
        /// prior ties each frame's correction to the one before).
        var stepBlocks: [SIMD3<Double>]
        var stepBlocksTranslation: [SIMD3<Double>]
        /// The pairs' mean residuals against what their noise and shared error allow, squared and
        /// summed, each pair's share at most `maxPairChi`: a few frames' copies far off (another
        /// surface's points in a plane's slab) do not make a drift that most frames do not show.
        var cappedChi = 0.0
        /// The pairs added.
        var pairs = 0

        init(frames: Int, planes: Int) {
            self.frames = frames
            self.planes = planes
            frameBlocks = []
            frameGradients = []
            crossBlocks = []
            planeBlock = SquareMatrix(size: 3 * planes)
            planeGradient = []
            stepBlocks = []
            stepBlocksTranslation = []
            clear()
        }

        mutating func clear() {
            frameBlocks = Array(repeating: [Double](repeating: 0, count: 36), count: frames)
            stepBlocks = Array(repeating: .zero, count: frames)
            stepBlocksTranslation = Array(repeating: .zero, count: frames)
            frameGradients = Array(repeating: [Double](repeating: 0, count: 6), count: frames)
            crossBlocks = Array(repeating: [:], count: frames)
            planeBlock = SquareMatrix(size: 3 * planes)
            // The planes' own damping is nominal: one radian, one metre.
            for k in 0..<(3 * planes) { planeBlock[k, k] = 1 }
            planeGradient = [Double](repeating: 0, count: 3 * planes)
            cappedChi = 0
            pairs = 0
        }

        /// Adds the prior on frame i's whole correction, given the correction so far.
        mutating func addPrior(frame i: Int, rotation: SIMD3<Double>, translation: SIMD3<Double>) {
            let rotationWeight = 1 / (rotationPrior * rotationPrior)
            let translationWeight = 1 / (translationPrior * translationPrior)
            let current = [rotation.x, rotation.y, rotation.z, translation.x, translation.y, translation.z]
            for k in 0..<6 {
                let weight = k < 3 ? rotationWeight : translationWeight
                frameBlocks[i][7 * k] += weight
                frameGradients[i][k] += weight * current[k]
            }
        }

        /// Adds the odometry prior between frame i - 1 and frame i: their corrections differ by a
        /// step of `rotationStep` (radians) and `translationStep` (metres), one sigma, as a
        /// tracker's drift grows a step a frame. `difference`: frame i's correction so far less
        /// frame i - 1's (rotation, then the camera's move).
        mutating func addStep(frame i: Int, difference: [Double], rotationStep: Double, translationStep: Double) {
            let weights = (0..<6).map { 1 / pow($0 < 3 ? rotationStep : translationStep, 2) }
            for k in 0..<6 {
                frameBlocks[i][7 * k] += weights[k]
                frameBlocks[i - 1][7 * k] += weights[k]
                frameGradients[i][k] += weights[k] * difference[k]
                frameGradients[i - 1][k] -= weights[k] * difference[k]
            }
            stepBlocks[i] -= SIMD3(weights[0], weights[1], weights[2])
            stepBlocksTranslation[i] -= SIMD3(weights[3], weights[4], weights[5])
        }

        /// Adds one frame's points on one plane, weighted by their own noise and by what they
        /// share: n points place the plane no better than their shared error
        /// (`sharedFraction`), so each weighs 1 / (variance + n shared²).
        mutating func add(_ moments: Moments, frame: Int, centre c: SIMD3<Double>, plane: Int, state: PlaneState) {
            let n = state.normal
            let (u, v) = state.axes
            let cn = cross(c, n)
            // Each row: a parameter's derivative of a point's residual, as coefficients of (x, y, z, 1).
            let rows: [[Double]] = [
                [0, n.z, -n.y, -cn.x], [-n.z, 0, n.x, -cn.y], [n.y, -n.x, 0, -cn.z],
                [0, 0, 0, n.x], [0, 0, 0, n.y], [0, 0, 0, n.z],
                [u.x, u.y, u.z, 0], [v.x, v.y, v.z, 0], [0, 0, 0, 1]
            ]
            let residual = [n.x, n.y, n.z, state.offset]
            let shared = max(minShared, sharedFraction * moments.variance.squareRoot())
            let weight = 1 / (moments.variance + Double(moments.count) * shared * shared)
            let s = moments.sums
            // S times each row, then the products.
            let sRows = rows.map { row in (0..<4).map { r in (0..<4).reduce(0.0) { $0 + s[4 * r + $1] * row[$1] } } }
            let sResidual = (0..<4).map { r in (0..<4).reduce(0.0) { $0 + s[4 * r + $1] * residual[$1] } }
            func product(_ a: Int, _ b: Int) -> Double { weight * (0..<4).reduce(0.0) { $0 + rows[a][$1] * sRows[b][$1] } }
            var cross = crossBlocks[frame][plane] ?? [Double](repeating: 0, count: 18)
            for a in 0..<6 {
                for b in 0..<6 { frameBlocks[frame][6 * a + b] += product(a, b) }
                for b in 0..<3 { cross[3 * a + b] += product(a, 6 + b) }
                frameGradients[frame][a] += weight * (0..<4).reduce(0.0) { $0 + rows[a][$1] * sResidual[$1] }
            }
            crossBlocks[frame][plane] = cross
            let mean = sResidual[3] / Double(moments.count)
            let chi = mean * mean / (moments.variance / Double(moments.count) + shared * shared)
            cappedChi += min(chi, maxPairChi)
            pairs += 1
            for a in 0..<3 {
                for b in 0..<3 { planeBlock[3 * plane + a, 3 * plane + b] += product(6 + a, 6 + b) }
                planeGradient[3 * plane + a] += weight * (0..<4).reduce(0.0) { $0 + rows[6 + a][$1] * sResidual[$1] }
            }
        }

        /// Each frame's and plane's update (the plane's: tilt along its axes, offset); nil when
        /// the system is singular.
        func solve() -> ([FrameStep], [SIMD3<Double>], SquareMatrix)? {
            // The frames' system is block tridiagonal (each frame tied to the one before), the
            // planes a border: A⁻¹ [g | C] by block elimination along the frames (Thomas), then
            // the planes' reduced system S = P - Cᵀ A⁻¹ C.
            let columns = 1 + 3 * planes
            func right(_ i: Int) -> [Double] {
                var r = [Double](repeating: 0, count: 6 * columns)
                for a in 0..<6 { r[a * columns] = frameGradients[i][a] }
                for (j, cj) in crossBlocks[i] { for a in 0..<6 { for b in 0..<3 { r[a * columns + 1 + 3 * j + b] = cj[3 * a + b] } } }
                return r
            }
            func off(_ i: Int) -> [Double] {
                let d = stepBlocks[i]
                let t = stepBlocksTranslation[i]
                return [d.x, d.y, d.z, t.x, t.y, t.z]
            }
            var inverses: [SquareMatrix] = []
            var ys: [[Double]] = []
            for i in 0..<frames {
                var block = SquareMatrix(size: 6)
                block.values = frameBlocks[i]
                var y = right(i)
                if i > 0 {
                    // L = O D⁻¹ (O diagonal); D_i -= L O; y_i -= L y_{i-1}.
                    let o = off(i)
                    let previous = inverses[i - 1]
                    for a in 0..<6 {
                        for b in 0..<6 { block[a, b] -= o[a] * previous[a, b] * o[b] }
                        for c in 0..<columns {
                            var sum = 0.0
                            for k in 0..<6 { sum += previous[a, k] * ys[i - 1][k * columns + c] }
                            y[a * columns + c] -= o[a] * sum
                        }
                    }
                }
                guard let inverse = block.inverse() else { return nil }
                inverses.append(inverse)
                ys.append(y)
            }
            // Back substitution: x_i = D_i⁻¹ (y_i - O_{i+1} x_{i+1}).
            var xs = [[Double]](repeating: [], count: frames)
            for i in stride(from: frames - 1, through: 0, by: -1) {
                var y = ys[i]
                if i + 1 < frames {
                    let o = off(i + 1)
                    for a in 0..<6 { for c in 0..<columns { y[a * columns + c] -= o[a] * xs[i + 1][a * columns + c] } }
                }
                var x = [Double](repeating: 0, count: 6 * columns)
                for a in 0..<6 {
                    for c in 0..<columns {
                        var sum = 0.0
                        for k in 0..<6 { sum += inverses[i][a, k] * y[k * columns + c] }
                        x[a * columns + c] = sum
                    }
                }
                xs[i] = x
            }
            var reduced = planeBlock
            var rhs = planeGradient.map { -$0 }
            for i in 0..<frames {
                for (j, cj) in crossBlocks[i] {
                    for b in 0..<3 {
                        for a in 0..<6 { rhs[3 * j + b] += cj[3 * a + b] * xs[i][a * columns] }
                        for c in 0..<(3 * planes) {
                            var sum = 0.0
                            for a in 0..<6 { sum += cj[3 * a + b] * xs[i][a * columns + 1 + c] }
                            reduced[3 * j + b, c] -= sum
                        }
                    }
                }
            }
            guard let planeSteps = reduced.solve(rhs) else { return nil }
            var steps: [FrameStep] = []
            for i in 0..<frames {
                // dx = -(A⁻¹ g + A⁻¹ C dp).
                var dx = [Double](repeating: 0, count: 6)
                for a in 0..<6 {
                    var sum = xs[i][a * columns]
                    for c in 0..<(3 * planes) { sum += xs[i][a * columns + 1 + c] * planeSteps[c] }
                    dx[a] = -sum
                }
                steps.append(FrameStep(rotation: SIMD3(dx[0], dx[1], dx[2]), translation: SIMD3(dx[3], dx[4], dx[5])))
            }
            let planes = (0..<planes).map { SIMD3(planeSteps[3 * $0], planeSteps[3 * $0 + 1], planeSteps[3 * $0 + 2]) }
            return (steps, planes, reduced)
        }
    }
}
