import CloudCore
import Foundation

/// The rigid motion between two RGB-D frames: Gauss-Newton on a point-to-plane term (each source
/// point's distance to the target surface it projects onto) and a photometric term (the target's
/// intensity where the point lands against the point's own), coarse to fine over the frames'
/// pyramids, with Huber weights so that what moved or was occluded between the frames cannot pull
/// the pose. Open3D's hybrid odometry combines the same two kinds of residual; this one matches
/// points to the target's surface (normals) rather than to its depth along the ray.
public struct RGBDOdometry: Sendable {
    /// Gauss-Newton rounds per pyramid level, the full-size level first.
    public var iterations: [Int] = [8, 10, 14]
    /// Pairs farther apart than this (metres) after the motion are not the same surface.
    public var maxDistance: Float = 0.07
    /// Metres that one unit of intensity (black to white) counts as: sets the photometric term's
    /// weight against the geometric one. 0 registers on geometry alone.
    public var photometricScale: Float = 0.1
    /// Residuals (metres, or photometric ones scaled) beyond this count linearly (Huber).
    public var huber: Float = 0.01
    /// The least share of the source's pixels with depth that must land within `inlierDistance`
    /// of the target's surface for the result to count as registered.
    public var minFitness: Double = 0.3
    public var inlierDistance: Float = 0.03
    /// The most a registered pair's point-to-plane residuals may spread (RMS, metres).
    public var maxRMSE: Double = 0.02

    public init() {}

    /// What a registration found.
    public struct Result: Sendable {
        /// Source camera frame to target camera frame: a source point p is at `pose.apply(p)` in
        /// the target's frame.
        public var pose: Pose
        /// Share of the source's full-size pixels with depth that land within `inlierDistance` of
        /// the target's (as Open3D's registration fitness counts them).
        public var fitness: Double
        /// RMS of the matched pixels' point-to-plane distances, metres.
        public var rmse: Double
        /// Whether `fitness`, `rmse` and the equations' conditioning all say the motion was found.
        public var registered: Bool
        /// Why not, when not.
        public var problem: String?
    }

    /// Registers `source` to `target`, starting from `initial` (source to target; the identity
    /// for consecutive frames of a slow camera).
    public func register(_ source: OdometryFrame, to target: OdometryFrame, initial: Pose = .identity) -> Result {
        var motion = Motion(initial)
        let photometric = photometricScale > 0 && source.hasIntensity && target.hasIntensity
        let levels = min(source.levels.count, target.levels.count, iterations.count)
        for level in stride(from: levels - 1, through: 0, by: -1) {
            let (s, t) = (source.levels[level], target.levels[level])
            guard s.width == t.width && s.height == t.height else {
                return Result(pose: initial, fitness: 0, rmse: .infinity, registered: false, problem: "the frames' sizes differ")
            }
            for _ in 0..<iterations[level] {
                let normal = accumulate(s, t, motion: motion, photometric: photometric)
                guard let step = normal.solved() else { break }
                motion.update(step)
                // Converged: the step moves points by well under a tenth of a millimetre.
                if (step * step).sum() < 1e-10 { break }
            }
        }
        // The residuals at the pose found, on the full-size level.
        let last = accumulate(source.levels[0], target.levels[0], motion: motion, photometric: false)
        let fitness = overlap(source.levels[0], target.levels[0], motion: motion)
        let rmse = last.count > 0 ? (last.squares / Double(last.count)).squareRoot() : .infinity
        var problem: String?
        if last.count < 100 || fitness < minFitness {
            problem = String(format: "only %.0f%% of its pixels found the other frame's surface", 100 * fitness)
        } else if rmse > maxRMSE {
            problem = String(format: "the surfaces stay %.1f cm apart (RMS)", 100 * rmse)
        } else if last.solved() == nil {
            problem = "its surfaces do not pin the motion down (a plane or an empty view)"
        }
        return Result(pose: motion.pose, fitness: fitness, rmse: rmse, registered: problem == nil, problem: problem)
    }

    /// The normal equations of the current motion over one level's pixels, in bands of rows on
    /// every core.
    private func accumulate(_ s: OdometryFrame.Level, _ t: OdometryFrame.Level, motion: Motion, photometric: Bool) -> Normal {
        let bands = min(s.height, 16)
        var parts = [Normal](repeating: Normal(), count: bands)
        let (r0, r1, r2, tr) = motion.rowsFloat
        let maxSquared = maxDistance * maxDistance
        let (w, h) = (t.width, t.height)
        let delta = huber
        let scale = photometricScale
        let (sw, sh, fx, fy, cx, cy) = (s.width, s.height, t.fx, t.fy, t.cx, t.cy)
        // Raw buffers: the loop below runs for every pixel of every round, and arrays' bounds
        // checks and sharing checks would cost more than its arithmetic.
        s.points.withUnsafeBufferPointer { sourcePoints in
            s.normals.withUnsafeBufferPointer { sourceNormals in
                s.intensity.withUnsafeBufferPointer { sourceIntensity in
                    t.points.withUnsafeBufferPointer { targetPoints in
                        t.normals.withUnsafeBufferPointer { targetNormals in
                            parts.withUnsafeMutableBufferPointer { slots in
                                Parallel.parts(bands) { band in
                                    var normal = Normal()
                                    for v in (sh * band / bands)..<(sh * (band + 1) / bands) {
                                        var row = Normal.Row()
                                        for u in 0..<sw {
                                            let i = v &* sw &+ u
                                            let ns = sourceNormals[i]
                                            guard ns != .zero else { continue }
                                            let p = sourcePoints[i]
                                            let q = SIMD3((r0 * p).sum(), (r1 * p).sum(), (r2 * p).sum()) + tr
                                            guard q.z > 0 else { continue }
                                            let uf = fx * q.x / q.z + cx
                                            let vf = fy * q.y / q.z + cy
                                            guard uf > -0.5, vf > -0.5, uf < Float(w) - 0.5, vf < Float(h) - 0.5 else { continue }
                                            let j = Int(vf.rounded()) &* w &+ Int(uf.rounded())
                                            let nt = targetNormals[j]
                                            guard nt != .zero else { continue }
                                            let d = q - targetPoints[j]
                                            guard (d * d).sum() < maxSquared else { continue }
                                            let rotatedNormal = SIMD3((r0 * ns).sum(), (r1 * ns).sum(), (r2 * ns).sum())
                                            guard (rotatedNormal * nt).sum() > Self.sameFacing else { continue }
                                            let residual = (nt * d).sum()
                                            row.add(
                                                rotation: simdCross(q, nt), translation: nt, residual: residual,
                                                weight: Self.weight(residual, delta))
                                            row.count += 1
                                            row.squares += residual * residual
                                            guard photometric, uf >= 0, vf >= 0, uf < Float(w - 1), vf < Float(h - 1) else { continue }
                                            let (it, gx, gy) = Self.sampled(t, u: uf, v: vf)
                                            let r = scale * (it - sourceIntensity[i])
                                            let a =
                                                scale * SIMD3(gx * fx / q.z, gy * fy / q.z, -(gx * fx * q.x + gy * fy * q.y) / (q.z * q.z))
                                            row.add(rotation: simdCross(q, a), translation: a, residual: r, weight: Self.weight(r, delta))
                                        }
                                        normal.add(row)
                                    }
                                    slots[band] = normal
                                }
                            }
                        }
                    }
                }
            }
        }
        return parts.dropFirst().reduce(parts[0]) { $0.adding($1) }
    }

    /// The share of `s`'s pixels with depth that, moved by `motion`, land within `inlierDistance`
    /// of the point `t` sees there.
    private func overlap(_ s: OdometryFrame.Level, _ t: OdometryFrame.Level, motion: Motion) -> Double {
        let (r0, r1, r2, tr) = motion.rowsFloat
        let limit = inlierDistance * inlierDistance
        var (inliers, total) = (0, 0)
        for p in s.points where p.z > 0 {
            total += 1
            let q = SIMD3((r0 * p).sum(), (r1 * p).sum(), (r2 * p).sum()) + tr
            guard q.z > 0 else { continue }
            let (u, v) = (Int((t.fx * q.x / q.z + t.cx).rounded()), Int((t.fy * q.y / q.z + t.cy).rounded()))
            guard u >= 0, u < t.width, v >= 0, v < t.height else { continue }
            let d = q - t.points[v * t.width + u]
            if t.depth[v * t.width + u] > 0 && (d * d).sum() < limit { inliers += 1 }
        }
        return total > 0 ? Double(inliers) / Double(total) : 0
    }

    /// Paired points whose normals turn by more than 60° are not one surface seen twice
    /// (full-size normals from one pixel's neighbours are noisy: a tighter bound drops good pairs).
    static let sameFacing: Float = 0.5

    @inline(__always) static func weight(_ residual: Float, _ delta: Float) -> Float {
        let magnitude = abs(residual)
        return magnitude <= delta ? 1 : delta / magnitude
    }

    /// The target's intensity and gradients at (u, v), bilinearly.
    @inline(__always) static func sampled(_ t: OdometryFrame.Level, u: Float, v: Float) -> (Float, Float, Float) {
        let (u0, v0) = (Int(u), Int(v))
        let (a, b) = (u - Float(u0), v - Float(v0))
        let i = v0 * t.width + u0
        func at(_ values: [Float]) -> Float {
            let top = values[i] * (1 - a) + values[i + 1] * a
            let bottom = values[i + t.width] * (1 - a) + values[i + t.width + 1] * a
            return top * (1 - b) + bottom * b
        }
        return (at(t.intensity), at(t.gradientX), at(t.gradientY))
    }
}

/// A rigid motion as the registration updates it: rotation rows and translation, in Double.
struct Motion {
    var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    var translation: SIMD3<Double>

    init(_ pose: Pose) {
        rows = pose.rotation
        translation = pose.translation
    }

    var pose: Pose { Pose(rows: rows, translation: translation) }

    var rowsFloat: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) {
        (SIMD3<Float>(rows.0), SIMD3<Float>(rows.1), SIMD3<Float>(rows.2), SIMD3<Float>(translation))
    }

    /// Applies the step (rotation vector, translation) on the left: q -> exp(step) q.
    mutating func update(_ step: SIMD8<Double>) {
        let w = SIMD3(step[0], step[1], step[2])
        let tau = SIMD3(step[3], step[4], step[5])
        let d = rotationRows(w)
        let r = [rows.0, rows.1, rows.2]
        func row(_ k: SIMD3<Double>) -> SIMD3<Double> { k.x * r[0] + k.y * r[1] + k.z * r[2] }
        rows = (row(d.0), row(d.1), row(d.2))
        translation = SIMD3(dot(d.0, translation), dot(d.1, translation), dot(d.2, translation)) + tau
        orthonormalize()
    }

    /// Keeps the rotation a rotation as steps accumulate (Gram-Schmidt on the rows).
    private mutating func orthonormalize() {
        let a = normalize(rows.0)
        let b = normalize(rows.1 - dot(rows.1, a) * a)
        rows = (a, b, cross(a, b))
    }
}

/// Gauss-Newton's normal equations J^T W J x = -J^T W r for the six unknowns (rotation vector,
/// translation), accumulated per residual.
struct Normal {
    // The rows of the symmetric 6x6 J^T W J (stored properties, not an array: this is the
    // innermost loop, and an array would be checked for sharing at every write).
    var h0 = SIMD8<Double>.zero, h1 = SIMD8<Double>.zero, h2 = SIMD8<Double>.zero
    var h3 = SIMD8<Double>.zero, h4 = SIMD8<Double>.zero, h5 = SIMD8<Double>.zero
    var b = SIMD8<Double>.zero
    /// Geometric residuals matched, and the sum of their squares.
    var count = 0
    var squares = 0.0

    /// One image row's share, summed in Float (a row's few hundred terms lose nothing that
    /// matters) and added to the Double totals at the row's end: twice the lanes per instruction.
    struct Row {
        var h0 = SIMD8<Float>.zero, h1 = SIMD8<Float>.zero, h2 = SIMD8<Float>.zero
        var h3 = SIMD8<Float>.zero, h4 = SIMD8<Float>.zero, h5 = SIMD8<Float>.zero
        var b = SIMD8<Float>.zero
        var count = 0
        var squares: Float = 0

        @inline(__always) mutating func add(rotation: SIMD3<Float>, translation: SIMD3<Float>, residual: Float, weight: Float) {
            let j = SIMD8(rotation.x, rotation.y, rotation.z, translation.x, translation.y, translation.z, 0, 0)
            let wj = weight * j
            h0 += wj[0] * j
            h1 += wj[1] * j
            h2 += wj[2] * j
            h3 += wj[3] * j
            h4 += wj[4] * j
            h5 += wj[5] * j
            b += wj * residual
        }
    }

    mutating func add(_ row: Row) {
        h0 += SIMD8<Double>(row.h0)
        h1 += SIMD8<Double>(row.h1)
        h2 += SIMD8<Double>(row.h2)
        h3 += SIMD8<Double>(row.h3)
        h4 += SIMD8<Double>(row.h4)
        h5 += SIMD8<Double>(row.h5)
        b += SIMD8<Double>(row.b)
        count += row.count
        squares += Double(row.squares)
    }

    func adding(_ other: Normal) -> Normal {
        var sum = self
        (sum.h0, sum.h1, sum.h2) = (h0 + other.h0, h1 + other.h1, h2 + other.h2)
        (sum.h3, sum.h4, sum.h5) = (h3 + other.h3, h4 + other.h4, h5 + other.h5)
        sum.b += other.b
        sum.count += other.count
        sum.squares += other.squares
        return sum
    }

    /// The step, by Cholesky; nil when the equations are singular (too few or degenerate pairs).
    func solved() -> SIMD8<Double>? {
        let h = [h0, h1, h2, h3, h4, h5]
        var l = [[Double]](repeating: [Double](repeating: 0, count: 6), count: 6)
        let scale = (0..<6).map { h[$0][$0] }.max() ?? 0
        guard scale > 0 else { return nil }
        for i in 0..<6 {
            for j in 0...i {
                var sum = h[i][j]
                for k in 0..<j { sum -= l[i][k] * l[j][k] }
                if i == j {
                    guard sum > 1e-9 * scale else { return nil }
                    l[i][i] = sum.squareRoot()
                } else {
                    l[i][j] = sum / l[j][j]
                }
            }
        }
        var y = [Double](repeating: 0, count: 6)
        for i in 0..<6 {
            var sum = -b[i]
            for k in 0..<i { sum -= l[i][k] * y[k] }
            y[i] = sum / l[i][i]
        }
        var x = SIMD8<Double>.zero
        for i in stride(from: 5, through: 0, by: -1) {
            var sum = y[i]
            for k in (i + 1)..<6 { sum -= l[k][i] * x[k] }
            x[i] = sum / l[i][i]
        }
        return x
    }
}
