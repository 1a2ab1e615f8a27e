import CloudCore
import CloudPCL
import Foundation

/// A plane found in the working set, with the points that lie on it.
struct FittedPlane {
    var plane: Plane
    /// Indices into the working set.
    var inliers: [UInt32]
    /// The inlier distance this plane chose from its own residuals (3 sigma, bounded).
    var distance: Double
    /// Root mean square of the inliers' distances from the plane.
    var rms: Double
    /// Whether its offset is its residuals' core centre rather than their mean (walls: WorkingSet.fit).
    var coreCentred = false
    /// Whether it was refitted on its frames' points clear of the sensor's range limit
    /// (RangeLimitFit), as each bootstrap round fits it too.
    var clearOfRange = false
}

extension Plane {
    /// Two unit vectors that span the plane, at right angles: coordinates on it.
    var inPlaneAxes: (SIMD3<Double>, SIMD3<Double>) {
        // Any axis not near the normal gives the first one.
        let helper = abs(normal.x) < 0.9 ? SIMD3<Double>(1, 0, 0) : SIMD3<Double>(0, 1, 0)
        let u = normalize(cross(normal, helper))
        return (u, cross(normal, u))
    }

    /// The square of side `size` on the plane that `p` lies over, by its integer coordinates
    /// along `axes` (the plane's `inPlaneAxes`, computed once by the caller): the blocks, cells
    /// and patches a plane's points are grouped by.
    static func square(of p: SIMD3<Double>, axes: (SIMD3<Double>, SIMD3<Double>), size: Double) -> SIMD2<Int> {
        SIMD2(Int((dot(p, axes.0) / size).rounded(.down)), Int((dot(p, axes.1) / size).rounded(.down)))
    }
}

/// Finds planes by peeling: PCL's SACSegmentation on a subsample of what is left, then the
/// inliers among all of it, a threshold from the plane's own noise and a least-squares refit.
struct PlanePeeler {
    let set: WorkingSet
    let settings: MeasureSettings
    /// Bounds on each plane's own inlier distance; nil: `settings.distanceRange`.
    var distanceRange: ClosedRange<Double>? = nil
    /// Offsets on the residuals' core (walls) rather than their mean (WorkingSet.fit).
    var coreCentred = false
    /// For walls, the up they contain: a plane found across a corner is turned onto one of its
    /// two walls (`straightened`).
    var straightenAbout: SIMD3<Double>? = nil

    /// Planes of `orientation` among `candidates`, largest first, each taking its inliers out of
    /// the candidates, until the next would hold fewer than `minPoints` or `limit` are found.
    /// `thinning`: the candidates are every so-many of the working set's points.
    func peel(
        _ candidates: [UInt32], orientation: PlaneOrientation, minPoints: Int, limit: Int,
        thinning: Int = 1
    ) throws -> (planes: [FittedPlane], rest: [UInt32]) {
        var rest = candidates
        var planes: [FittedPlane] = []
        var misses = 0
        while planes.count < limit, rest.count >= minPoints, misses < 2 {
            let sample = subsample(rest, planes.count + misses)
            guard
                let found = try set.pcl.segment(
                    sample, orientation: orientation, distance: settings.startDistance,
                    maxIterations: 1000)
            else { break }
            var fitted = try refine(found.plane, among: rest)
            if let up = straightenAbout { fitted = try straightened(fitted, up: up, among: rest) }
            guard fitted.inliers.count >= minPoints, coverage(of: fitted) * Double(thinning) >= Self.minCoverage else {
                // RANSAC's best on the sample may be a sliver, or a slab through scattered points
                // (furniture, a cloud with no plane at all); one more draw, on another sample,
                // then stop. (On the same sample the second draw was the first again, and drift
                // room 1 of seed 2026 lost a 1.7 m wall of 5,900 points with it.)
                misses += 1
                continue
            }
            planes.append(fitted)
            rest = Self.removing(fitted.inliers, from: rest, count: set.count)
        }
        return (planes, rest)
    }

    /// A surface fills the cells its points occupy: a voxel grid leaves one point per leaf² of
    /// surface, so a cell of `cellLeaves` x `cellLeaves` leaves holds about that many squared.
    /// A slab through scattered points (furniture, a cloud without planes) leaves a point or
    /// two in each cell it touches, however wide it spans.
    static let minCoverage = 0.25
    static let cellLeaves = 4.0

    /// The mean number of points in the occupied cells of the plane, over a full cell's.
    func coverage(of fitted: FittedPlane) -> Double {
        let axes = fitted.plane.inPlaneAxes
        let cell = Self.cellLeaves * settings.leaf
        var occupied = Set<SIMD2<Int>>()
        for i in fitted.inliers { occupied.insert(Plane.square(of: set.points[Int(i)], axes: axes, size: cell)) }
        return Double(fitted.inliers.count) / Double(max(1, occupied.count)) / (Self.cellLeaves * Self.cellLeaves)
    }

    /// Every k-th candidate, at most `settings.sampleSize` of them, the start shifted per round.
    private func subsample(_ indices: [UInt32], _ round: Int) -> [UInt32] {
        let step = max(1, indices.count / settings.sampleSize)
        guard step > 1 else { return indices }
        return Swift.stride(from: round % step, to: indices.count, by: step).map { indices[$0] }
    }

    /// Takes the points near `plane` among `candidates`, sets the inlier distance to three times
    /// their robust sigma (the median absolute residual, scaled), and refits, `refineRounds` times:
    /// a threshold cuts the noise of a plane's far, noisy end unevenly while the plane is still
    /// tilted, which would hold the fit near RANSAC's first guess. Points whose own normal turns
    /// away from the plane's are not its (a door's jambs and the corridor beyond, furniture's
    /// edges): they lie to one side of it and would tilt it.
    static let refineRounds = 4

    func refine(_ plane: Plane, among candidates: [UInt32]) throws -> FittedPlane {
        var plane = plane
        var distance = settings.startDistance
        var inliers: [UInt32] = []
        for _ in 0..<Self.refineRounds {
            let window = 3 * distance
            var near: [UInt32] = []
            var residuals: [Double] = []
            for i in candidates {
                let r = abs(plane.distance(set.points[Int(i)]))
                if r < window && set.faces(Int(i), plane.normal) {
                    near.append(i)
                    residuals.append(r)
                }
            }
            guard near.count >= 4 else {
                return FittedPlane(plane: plane, inliers: near, distance: distance, rms: 0, coreCentred: coreCentred)
            }
            let sorted = residuals.sorted()
            let sigma = 1.4826 * sorted[sorted.count / 2]
            let bounds = distanceRange ?? settings.distanceRange
            distance = min(max(3 * sigma, bounds.lowerBound), bounds.upperBound)
            inliers = zip(near, residuals).filter { $0.1 < distance }.map(\.0)
            guard inliers.count >= 4 else { break }
            plane = try set.fit(inliers, like: plane, coreCentred: coreCentred)
        }
        let squares = inliers.reduce(0.0) {
            let r = plane.distance(set.points[Int($1)])
            return $0 + r * r
        }
        return FittedPlane(
            plane: plane, inliers: inliers, distance: distance, rms: (squares / Double(max(1, inliers.count))).squareRoot(),
            coreCentred: coreCentred)
    }

    /// `indices` without `taken` (both index the working set of `count` points).
    static func removing(_ taken: [UInt32], from indices: [UInt32], count: Int) -> [UInt32] {
        var mask = [Bool](repeating: false, count: count)
        for i in taken { mask[Int(i)] = true }
        return indices.filter { !mask[Int($0)] }
    }
}
