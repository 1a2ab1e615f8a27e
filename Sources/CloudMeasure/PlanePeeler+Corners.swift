import CloudCore
import CloudPCL
import Foundation

/// Far from the cameras a wall's slab is as thick as the inlier distance allows (15 cm: a Kinect's
/// noise is 6 cm at 6.5 m), and points' normals are too noisy to tell two walls 45 degrees apart.
/// RANSAC can then take a plane across a corner: half on a short wall, half on the longer one
/// beside it, turned between them. Seen from above its points bend: the 10 cm columns' positions
/// across it form two straight runs at an angle, where a wall's lie on one line. Such a plane is
/// turned onto the larger of its two runs and refined there; the other run's points stay for the
/// next plane. (A 1.58 m wall 6.8 m from the only station was found this way at 113 degrees to its
/// neighbour instead of 90, moving the corner 0.5 m.)
extension PlanePeeler {
    /// Each run of a bend spans at least this many judged columns...
    static let bendColumns = 3
    /// ...and the two turn by more than this, while some column stands off the single line
    /// through all of them by more than `minBendOffset` and three times the two runs' own scatter.
    /// A wall's column positions wander by a centimetre or two (a Kinect's disparity steps); a
    /// step between two parallel surfaces (a shelf's face beside a wall) is not a turn.
    static let minBendAngle = 10 * Double.pi / 180
    static let minBendOffset = 0.03
    /// Turning a plane onto one run can leave another bend in what it then takes; twice at most.
    static let straightenings = 2

    /// `fitted`, or, when its columns bend, the plane refined from the points of its larger run
    /// among `candidates`. `up`: the plane contains it (walls).
    func straightened(_ fitted: FittedPlane, up: SIMD3<Double>, among candidates: [UInt32]) throws -> FittedPlane {
        var fitted = fitted
        for _ in 0..<Self.straightenings {
            guard let run = Self.largerRunOfBend(fitted, up: up, set: set) else { break }
            fitted = try refine(set.fit(run, like: fitted.plane, coreCentred: coreCentred), among: candidates)
        }
        return fitted
    }

    /// The inliers of the larger of two runs that the plane's columns form, or nil when they lie
    /// on one line.
    static func largerRunOfBend(_ fitted: FittedPlane, up: SIMD3<Double>, set: WorkingSet) -> [UInt32]? {
        let level = fitted.plane.normal - dot(fitted.plane.normal, up) * up
        guard (level * level).sum() > 0.25 else { return nil }
        let along = normalize(cross(up, level))
        let positions = fitted.inliers.map { dot(set.points[Int($0)], along) }
        guard let first = positions.min() else { return nil }
        let width = VerticalPlanes.column
        var offsets: [Int: [Double]] = [:]
        for (i, t) in zip(fitted.inliers, positions) {
            offsets[Int((t - first) / width), default: []].append(fitted.plane.distance(set.points[Int(i)]))
        }
        let columns = offsets.filter { $0.value.count >= VerticalPlanes.judgedColumnPoints }
            .map { (x: Double($0.key) * width, y: ColumnPosition($0.value).centre) }
            .sorted { $0.x < $1.x }
        guard columns.count >= 2 * bendColumns else { return nil }
        var best: (knee: Int, squares: Double, turn: Double)?
        for knee in bendColumns...(columns.count - bendColumns) {
            let (a, b) = (FittedLine(columns[..<knee]), FittedLine(columns[knee...]))
            let squares = a.squares + b.squares
            if squares < best?.squares ?? .infinity { best = (knee, squares, abs(atan(a.slope) - atan(b.slope))) }
        }
        guard let best, best.turn > minBendAngle else { return nil }
        let whole = FittedLine(columns[...])
        let farthest = columns.map { abs($0.y - whole.at($0.x)) }.max() ?? 0
        let scatter = (best.squares / Double(columns.count)).squareRoot()
        guard farthest > max(minBendOffset, 3 * scatter) else { return nil }
        let cut = first + columns[best.knee].x
        let (before, after) = zip(fitted.inliers, positions).reduce(into: ([UInt32](), [UInt32]())) { runs, point in
            if point.1 < cut { runs.0.append(point.0) } else { runs.1.append(point.0) }
        }
        return before.count >= after.count ? before : after
    }
}

/// The least-squares line through (x, y) pairs, and its sum of squared residuals.
struct FittedLine {
    var slope: Double
    var intercept: Double
    var squares: Double

    init(_ points: ArraySlice<(x: Double, y: Double)>) {
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.x } / n
        let my = points.reduce(0) { $0 + $1.y } / n
        let sxx = points.reduce(0) { $0 + ($1.x - mx) * ($1.x - mx) }
        let sxy = points.reduce(0) { $0 + ($1.x - mx) * ($1.y - my) }
        slope = sxx > 0 ? sxy / sxx : 0
        intercept = my - slope * mx
        let (s, c) = (slope, intercept)
        squares = points.reduce(0) { $0 + ($1.y - s * $1.x - c) * ($1.y - s * $1.x - c) }
    }

    func at(_ x: Double) -> Double { slope * x + intercept }
}
