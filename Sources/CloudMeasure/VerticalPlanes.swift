import CloudCore
import CloudPCL
import Foundation

/// A vertical plane of the room and what its points span.
struct VerticalPlane {
    var fitted: FittedPlane
    /// Level unit normal, pointing into the room (toward the cameras).
    var normal: SIMD3<Double>
    var centroid: SIMD3<Double>
    /// Level unit vector along the plane: up x normal.
    var along: SIMD3<Double>
    /// The span of its points along `along` (from the centroid) and in height above the floor
    /// (above the lowest points when there is no floor), without the outermost half percent.
    var start: Double
    var end: Double
    var bottom: Double
    var top: Double
    /// Why it is not a wall, or nil for a wall.
    var clutter: String?
    /// Whether it was seen to reach the ceiling (or no ceiling was seen to judge by). A tall plane
    /// whose top was out of view may be a wall or a cupboard's face: a corner with it is not certain.
    var reachesCeiling = true

    var length: Double { end - start }

    /// Whether `point` lies behind the plane (on its back, more than `margin` from it) and within
    /// its span by more than `margin` (a wall meeting it at its end lies along that end): outside
    /// the room, where the cameras could have seen it only through an opening.
    func hides(_ point: SIMD3<Double>, margin: Double) -> Bool {
        let d = point - centroid
        let t = dot(d, along)
        return t > start + margin && t < end - margin && dot(d, normal) < -margin
    }
}

/// Finds the walls among the vertical planes: tall enough, reaching the ceiling when one was
/// seen, neither standing in front of a larger wall (a bookshelf's front) nor beyond one (a
/// corridor's far wall seen through a doorway).
enum VerticalPlanes {
    /// A plane whose span is this much covered by a larger wall is in front of it (when within
    /// `maxDepthBehind` of it) or beyond it.
    static let coveredFraction = 0.5
    static let maxDepthBehind = 1.5
    /// A plane's span is read in columns this wide...
    static let column = 0.1
    /// ...that rise to within this of its top, or above `tallEnough` (near a camera a wall's top
    /// is out of view, and furniture in a wall's plane is lower), in stretches without a gap
    /// wider than a doorway.
    static let tallColumn = 0.15
    static let tallEnough = 1.5
    static let maxColumnGap = 1.0
    /// Neighbouring columns whose points stand farther apart across the plane than this are two
    /// surfaces in one slab (a corridor's wall 17-21 cm behind a wall's line, seen through a
    /// doorway beside it), not one wall: a column's mean is over hundreds of points, a few
    /// millimetres even at a Kinect's 6 m.
    static let maxColumnStep = 0.08
    /// Coplanar pieces: normals within this angle and centroids within the inlier distance.
    static let coplanarAngle = 3 * Double.pi / 180

    /// `base`: the floor's height along up (the room's bottom without one); `ceiling`: the
    /// ceiling's height above it, when seen; `cameras`: where each frame was taken from, looking
    /// which way (which side of a plane is its front, what a camera could have seen).
    static func find(
        set: WorkingSet, up: SIMD3<Double>, base: Double, ceiling: Double?, levels: LevelPlanes, excluding taken: [UInt32],
        cameras: [Pose], settings: MeasureSettings, peeler: PlanePeeler
    ) throws -> [VerticalPlane] {
        var excluded = [Bool](repeating: false, count: set.count)
        for i in taken { excluded[Int(i)] = true }
        let candidates = (0..<set.count).filter { i in
            let n = set.normals[i]
            return !excluded[i] && (!n.x.isFinite || abs(dot(n, up)) < sin(30 * Double.pi / 180))
        }.map { UInt32($0) }
        var peeler = peeler
        peeler.distanceRange = settings.wallDistanceRange
        peeler.coreCentred = true
        peeler.straightenAbout = up
        var fitted = try peeler.peel(
            candidates, orientation: .along(axis: up, maxAngle: settings.verticalAngle),
            minPoints: settings.points(forArea: settings.minVerticalArea), limit: 40
        ).planes
        fitted = try mergeCoplanar(fitted, up: up, peeler: peeler)
        var planes = try fitted.map { f -> VerticalPlane in
            var plane = describe(f, set: set, up: up, base: base, ceiling: ceiling, cameras: cameras.map(\.translation))
            plane.fitted = try fittedOnSpan(plane, set: set, leaf: settings.leaf)
            let level = normalize(plane.fitted.plane.normal - dot(plane.fitted.plane.normal, up) * up)
            plane.normal = dot(level, plane.normal) < 0 ? -level : level
            plane.along = cross(up, plane.normal)
            // Start and end stay where they are, measured from the points now fitted.
            let centroid = set.centroid(plane.fitted.inliers)
            let shift = dot(centroid - plane.centroid, plane.along)
            (plane.centroid, plane.start, plane.end) = (centroid, plane.start - shift, plane.end - shift)
            return plane
        }
        if let floor = levels.floor {
            faceTheFloor(&planes, floor: floor, set: set, up: up)
            cutFloorBehind(&planes, floor: floor, set: set, up: up, base: base, leaf: settings.leaf)
        }
        let views = cameras.map(CameraView.init)
        let ceilingAbove = planes.map { p in ceiling.map { topInView(p, cameras: views, up: up, base: base, ceiling: $0) } ?? false }
        classify(&planes, ceiling: ceiling, ceilingSeenAbove: ceilingAbove, settings: settings)
        refuseEdgeOn(&planes, set: set)
        if let floor = levels.floor { refuseCrossingFloor(&planes, floor: floor, set: set, up: up, cameras: views) }
        refuseBeyondWalls(&planes, set: set)
        return planes
    }

    /// Joins planes that are one surface found twice (RANSAC took one band of a noisy wall first).
    static func mergeCoplanar(_ planes: [FittedPlane], up: SIMD3<Double>, peeler: PlanePeeler) throws -> [FittedPlane] {
        var planes = planes
        var merged = true
        while merged {
            merged = false
            search: for a in planes.indices {
                for b in planes.indices where b > a {
                    let (p, q) = (planes[a], planes[b])
                    guard abs(dot(p.plane.normal, q.plane.normal)) > cos(coplanarAngle) else { continue }
                    let centroid = peeler.set.centroid(q.inliers)
                    guard abs(p.plane.distance(centroid)) < max(p.distance, q.distance) else { continue }
                    let inliers = p.inliers + q.inliers
                    let plane = try peeler.set.fit(inliers, like: p.plane, coreCentred: true)
                    let joined = try peeler.refine(plane, among: inliers)
                    guard joined.inliers.count >= max(p.inliers.count, q.inliers.count) else { continue }
                    planes[a] = joined
                    planes.remove(at: b)
                    merged = true
                    break search
                }
            }
        }
        return planes
    }

    /// The plane faces the side its nearer cameras stood on (each counted by its inverse square
    /// distance): a wall is seen from inside the room, and the cameras' middle can lie outside
    /// a wall's line, or on it, in an L or T.
    static func describe(
        _ fitted: FittedPlane, set: WorkingSet, up: SIMD3<Double>, base: Double, ceiling: Double? = nil, cameras: [SIMD3<Double>]
    ) -> VerticalPlane {
        var normal = normalize(fitted.plane.normal - dot(fitted.plane.normal, up) * up)
        let centroid = set.centroid(fitted.inliers)
        let facing = cameras.reduce(0.0) { sum, c in
            let d = c - centroid
            return sum + (dot(d, normal) > 0 ? 1 : -1) / max(0.01, (d * d).sum())
        }
        if facing < 0 { normal = -normal }
        let along = cross(up, normal)
        let points = fitted.inliers.map { i -> (t: Double, h: Double, across: Double) in
            let p = set.points[Int(i)]
            return (dot(p - centroid, along), dot(p, up) - base, dot(p - centroid, normal))
        }.sorted { $0.t < $1.t }
        let heights = points.map(\.h).sorted()
        let cut = heights.count / 200
        let bottom = heights[cut]
        let top = ceilingStraysLeftOut(heights, top: heights[heights.count - 1 - cut], ceiling: ceiling)
        // The span along the plane is that of its columns that rise to its top: a wall, not the
        // low faces of furniture that happen to stand in its plane. Of several stretches of such
        // columns (a coplanar wall beyond a gap), the one with the most points.
        let first = points[0].t
        let columns = Int(((points[points.count - 1].t - first) / column).rounded(.down)) + 1
        var columnTop = [Double](repeating: -.infinity, count: columns)
        var columnCount = [Int](repeating: 0, count: columns)
        var columnAcross = [[Double]](repeating: [], count: columns)
        for p in points {
            let k = Int((p.t - first) / column)
            columnTop[k] = max(columnTop[k], p.h)
            columnCount[k] += 1
            columnAcross[k].append(p.across)
        }
        // Medians: a phone's mixed pixels at a shelf's edge pull a column's mean off its wall.
        let columnMedian = columnAcross.map { $0.isEmpty ? 0 : $0.sorted()[$0.count / 2] }
        func across(_ k: Int) -> Double { columnMedian[k] }
        var stretches: [(first: Int, last: Int, count: Int)] = []
        for k in 0..<columns where columnTop[k] >= min(top - tallColumn, tallEnough) {
            if let last = stretches.last, Double(k - last.last) * column <= maxColumnGap,
                abs(across(k) - across(last.last)) <= maxColumnStep
            {
                stretches[stretches.count - 1] = (last.first, k, last.count + columnCount[k])
            } else {
                stretches.append((k, k, columnCount[k]))
            }
        }
        let stretch = stretches.max { $0.count < $1.count } ?? (0, columns - 1, points.count)
        return VerticalPlane(
            fitted: fitted, normal: normal, centroid: centroid, along: along,
            start: first + Double(stretch.first) * column, end: first + Double(stretch.last + 1) * column,
            bottom: bottom, top: top, clutter: nil)
    }

    /// A plane's top, unless it is that of a few of the ceiling's own points: where a far ceiling is
    /// noisy, its points off the ceiling's plane (and with them a sprinkling at every height) lie in
    /// the slab of any plane that meets it. A bed's face 0.48 m high held 11 of them 3.44 m up
    /// (Kinect room 43 of seed 2026) and was taken for a wall. Below `ceilingBand` under the
    /// ceiling, the plane's own points fill 10 cm bands of height: where the highest band holding
    /// `bandShare` of the median point's band stops more than `maxHeightGap` short of the ceiling's
    /// band, the points above are not the plane's, and its top is that band's. A wall's own points
    /// fill its bands up to the ceiling; furniture hides it column by column, not along its length.
    static func ceilingStraysLeftOut(_ heights: [Double], top: Double, ceiling: Double?) -> Double {
        guard let ceiling, top > ceiling - ceilingBand else { return top }
        let below = heights.filter { $0 <= ceiling - ceilingBand }
        guard let low = below.first else { return top }
        var bands = [Int](repeating: 0, count: Int((below.last! - low) / heightBand) + 1)
        for h in below { bands[min(bands.count - 1, Int((h - low) / heightBand))] += 1 }
        let typical = Double(bands[min(bands.count - 1, Int((below[below.count / 2] - low) / heightBand))])
        guard let last = bands.indices.last(where: { Double(bands[$0]) >= bandShare * typical }) else { return top }
        let dense = below.last { $0 < low + Double(last + 1) * heightBand }!
        return ceiling - ceilingBand - dense > maxHeightGap ? dense : top
    }

    static let ceilingBand = 0.15
    static let heightBand = 0.1
    static let bandShare = 0.03
    static let maxHeightGap = 1.0

    /// A plane is refitted on the points of its span alone, without those within its inlier
    /// distance and two leaves (the normals' reach) of the span's ends:
    /// - RANSAC's slab, up to 15 cm thick, can hold a second, coplanar-looking piece beyond a
    ///   gap (a corridor's side wall 21 cm behind a wall's line, seen through a doorway), and a
    ///   least-squares plane through both is turned toward it (3 degrees, moving the neighbours'
    ///   corners by 3 to 5 cm); the span is the stretch with the most points, so the other goes;
    /// - where two walls meet, the other wall's points near the corner lie within the inlier
    ///   distance, all on one side (in front at an inside corner, behind at an outside one), with
    ///   normals blurred toward this one's, and would turn it the same way.
    /// The ends are kept when trimming them would leave less than half the span's points. Points
    /// seen only from behind the plane go (`seenFromItsFace`), and so do columns off the line the
    /// others agree on (`inLine`).
    static func fittedOnSpan(_ p: VerticalPlane, set: WorkingSet, leaf: Double) throws -> FittedPlane {
        let f = p.fitted
        let along = f.inliers.map { dot(set.points[Int($0)] - p.centroid, p.along) }
        let onSpan = zip(f.inliers, along).filter { $0.1 >= p.start - leaf && $0.1 <= p.end + leaf }
        let trim = f.distance + 2 * leaf
        let trimmed = onSpan.filter { $0.1 > p.start + trim && $0.1 < p.end - trim }
        let spanned = trimmed.count * 2 >= onSpan.count ? trimmed : onSpan
        let faced = seenFromItsFace(spanned.map { (index: $0.0, along: $0.1) }, plane: f.plane, set: set)
        var kept = inLine(faced, plane: f.plane, set: set)
        guard kept.count >= 4 else { return f }
        var plane = try set.fit(kept, like: f.plane, coreCentred: f.coreCentred)
        let up = cross(p.normal, p.along)
        // Trimmed to its span, a plane can still hold a stretch of a neighbour's far, noisy corner
        // region that turns it toward that neighbour: its larger straight run is the wall.
        if let run = PlanePeeler.largerRunOfBend(
            FittedPlane(plane: plane, inliers: kept, distance: f.distance, rms: 0), up: up, set: set)
        {
            guard run.count >= 4 else { return f }
            kept = run
            plane = try set.fit(kept, like: f.plane, coreCentred: f.coreCentred)
        }
        guard kept.count < f.inliers.count else { return f }
        let squares = kept.reduce(0.0) {
            let r = plane.distance(set.points[Int($1)])
            return $0 + r * r
        }
        return FittedPlane(
            plane: plane, inliers: kept, distance: f.distance, rms: (squares / Double(kept.count)).squareRoot(),
            coreCentred: f.coreCentred)
    }

    /// Whether a camera in front of a plane looked at its top (where it meets the ceiling,
    /// `ceiling` above `base`) along most of its span: only then does a plane that stops below
    /// the ceiling stop short. Near a camera a wall's top is out of view. Its front is the side of
    /// the camera nearest to it (the cameras' middle can lie in its plane, as in an L's notch).
    static func topInView(_ p: VerticalPlane, cameras: [CameraView], up: SIMD3<Double>, base: Double, ceiling: Double) -> Bool {
        let side = { (c: CameraView) in dot(c.position - p.centroid, p.normal) }
        guard let nearest = cameras.min(by: { abs(side($0)) < abs(side($1)) }) else { return false }
        let eyes = cameras.filter { side($0) * side(nearest) > 0 }
        let rise = ceiling - (dot(p.centroid, up) - base)
        let columns = max(1, Int((p.length / column).rounded(.up)))
        let seen = (0..<columns).filter { k in
            let top = p.centroid + (p.start + (Double(k) + 0.5) * column) * p.along + rise * up
            return eyes.contains { $0.looks(at: top, within: topViewCone) }
        }
        return seen.count * 2 >= columns
    }

    /// Half a depth camera's vertical view, with some room: a Kinect's is 24 degrees.
    static let topViewCone = 30 * Double.pi / 180

    /// A plane this close to a larger wall's, front or back, is taken as part of that wall's
    /// surface: farther, it is furniture before it or a wall seen beyond it.
    static let sameSurfaceDepth = 0.05

    static func classify(_ planes: inout [VerticalPlane], ceiling: Double?, ceilingSeenAbove: [Bool], settings: MeasureSettings) {
        for i in planes.indices {
            let p = planes[i]
            if p.top < settings.minWallTop {
                planes[i].clutter = String(format: "furniture: its top is %.2f m above the floor", p.top)
            } else if let ceiling, p.top < ceiling - settings.wallReachesCeiling {
                if ceilingSeenAbove[i] {
                    planes[i].clutter = String(format: "furniture: it stops %.2f m below the ceiling", ceiling - p.top)
                } else {
                    planes[i].reachesCeiling = false
                }
            }
        }
        // Against the planes that are walls by their height and larger than this one: a plane
        // before such a wall is furniture standing against it; one beyond it was seen through
        // an opening (the far wall of a corridor beyond a doorway); one in its plane is it.
        for i in planes.indices where planes[i].clutter == nil {
            let p = planes[i]
            for (j, q) in planes.enumerated()
            where j != i && q.clutter == nil && q.fitted.inliers.count > p.fitted.inliers.count
                && dot(p.normal, q.normal) > cos(5 * Double.pi / 180)
            {
                let qs = [q.start, q.end].map { dot(q.centroid + $0 * q.along - p.centroid, p.along) }
                let overlap = min(p.end, qs.max()!) - max(p.start, qs.min()!)
                guard overlap > coveredFraction * p.length else { continue }
                // How far p stands into the room from q (negative: beyond it).
                let depth = dot(p.centroid - q.centroid, q.normal)
                if depth > sameSurfaceDepth && depth < maxDepthBehind {
                    planes[i].clutter = String(format: "furniture: it stands %.2f m in front of a larger vertical plane", depth)
                    break
                }
                if depth < -sameSurfaceDepth {
                    planes[i].clutter = String(format: "beyond a wall by %.2f m, seen through an opening in it", -depth)
                    break
                }
                // Within a few centimetres, along most of its span: the same surface, a second band
                // of its points that the larger plane's slab left (a phone's smoothed depth bends at
                // an outside corner). Kept as a wall, it met the neighbours 1.7 cm off the larger
                // plane's corners, with a sigma of 1.2 mm from its own 79 points (phone room 10 of
                // seed 2026).
                if abs(depth) <= sameSurfaceDepth {
                    planes[i].clutter = String(format: "a second band of a larger wall's points, %.3f m from it", abs(depth))
                    break
                }
            }
        }
    }
}

extension VerticalPlanes {
    /// A wall has the room's floor along its foot on one side only, the inside (beyond it, only
    /// through a doorway): where more than twice as much floor was seen within `footReach` of a
    /// plane's foot on its back as on its front, the plane is turned round. This holds where the cameras'
    /// positions mislead (an L's inner walls, seen from one arm with cameras in the other).
    static func faceTheFloor(_ planes: inout [VerticalPlane], floor: FittedPlane, set: WorkingSet, up: SIMD3<Double>) {
        for i in planes.indices {
            let p = planes[i]
            var front = 0
            var back = 0
            for k in floor.inliers {
                let q = set.points[Int(k)] - p.centroid
                let t = dot(q, p.along)
                guard t >= p.start, t < p.end else { continue }
                let s = dot(q, p.normal)
                if footReach.contains(s) { front += 1 } else if footReach.contains(-s) { back += 1 }
            }
            if back > 2 * front {
                planes[i].normal = -p.normal
                planes[i].along = cross(up, -p.normal)
                (planes[i].start, planes[i].end) = (-p.end, -p.start)
            }
        }
    }

    static let footReach = 0.05...0.6

    /// Floor seen at least this far beyond a plane (past the noise and a drifted copy of the wall)
    /// was seen across it: no wall stands where the sight line crossed. Through a doorway sight
    /// lines cross a wall at the doorway only, however wide the floor beyond fans out.
    static let floorBeyond = 0.25
    /// A plane left shorter than this is no wall at all.
    static let minWallLength = 0.5
    /// A sight line counts against a plane where it crosses it through points of the plane's own,
    /// in cells a column wide and this tall: not through a doorway, where the plane has none.
    static let band = 0.25
    /// Columns in a row, not looked through, that end a cut.
    static let minRun = 0.3
    /// Half the widest view of a depth camera (a Kinect's diagonal is 37 degrees off axis).
    static let viewCone = 40 * Double.pi / 180

    /// A wall is at the edge of the free space the cameras looked through. A vertical plane the
    /// cameras looked across to the floor beyond (a sofa's back, a plane RANSAC drew through
    /// clutter, a wall drawn twice by a drifting walk) stands in that free space. A floor point
    /// is taken as seen by the nearest camera that looked toward it (within `viewCone` of its
    /// optical axis); a point no camera looked toward tells nothing.
    static func refuseCrossingFloor(
        _ planes: inout [VerticalPlane], floor: FittedPlane, set: WorkingSet, up: SIMD3<Double>,
        cameras: [CameraView]
    ) {
        // A few thousand floor points tell which columns were looked through.
        let step = max(1, floor.inliers.count / 4_000)
        let sightings = stride(from: 0, to: floor.inliers.count, by: step).compactMap { k -> (SIMD3<Double>, SIMD3<Double>)? in
            let f = set.points[Int(floor.inliers[k])]
            let looking = cameras.filter { $0.looks(at: f, within: viewCone) }
            return looking.min { (($0.position - f) * ($0.position - f)).sum() < (($1.position - f) * ($1.position - f)).sum() }.map {
                (f, $0.position)
            }
        }
        for i in planes.indices where planes[i].clutter == nil {
            let p = planes[i]
            let columns = max(1, Int((p.length / column).rounded(.up)))
            func cell(_ q: SIMD3<Double>) -> (column: Int, band: Int)? {
                let t = dot(q - p.centroid, p.along)
                guard t >= p.start, t < p.end else { return nil }
                return (min(columns - 1, Int((t - p.start) / column)), Int((dot(q - p.centroid, up) / band).rounded(.down)))
            }
            // Where the plane has points: a sight line through a doorway passes below its lintel.
            var solid = Set<SIMD2<Int>>()
            for k in p.fitted.inliers { if let c = cell(set.points[Int(k)]) { solid.insert(SIMD2(c.column, c.band)) } }
            var seenThrough = [Bool](repeating: false, count: columns)
            for (f, eye) in sightings {
                let (sf, se) = (dot(f - p.centroid, p.normal), dot(eye - p.centroid, p.normal))
                guard abs(sf) > floorBeyond, sf * se < 0 else { continue }
                if let c = cell(eye + se / (se - sf) * (f - eye)), solid.contains(SIMD2(c.column, c.band)) {
                    seenThrough[c.column] = true
                }
            }
            // The span is cut back from either end to where a run of columns in a row was not
            // looked through: a plane running on along a wall's line over open floor (an
            // L's other arm) loses that part; a doorway in its middle stays.
            let run = Int((minRun / column).rounded(.up))
            func standing(_ k: Int) -> Bool { k + run <= columns && !seenThrough[k..<(k + run)].contains(true) }
            guard let first = (0..<columns).first(where: standing),
                let last = (0..<columns).last(where: standing).map({ $0 + run - 1 }),
                Double(last - first + 1) * column >= minWallLength
            else {
                planes[i].clutter = String(format: "not a wall: the cameras saw the floor beyond it along its %.2f m", p.length)
                continue
            }
            planes[i].start = p.start + Double(first) * column
            planes[i].end = min(p.end, p.start + Double(last + 1) * column)
        }
    }
}

extension WorkingSet {
    func centroid(_ indices: [UInt32]) -> SIMD3<Double> {
        indices.reduce(SIMD3<Double>.zero) { $0 + points[Int($1)] } / Double(max(1, indices.count))
    }
}
