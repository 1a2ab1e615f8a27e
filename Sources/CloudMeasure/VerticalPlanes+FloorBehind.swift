import CloudCore
import Foundation

extension VerticalPlanes {
    /// Floor behind a plane counts from this far (past the depth noise of a floor seen at 6 m and
    /// a drifted copy of the wall) to this far.
    static let behindReach = 0.15...0.5
    /// A column has floor behind it when its band there holds at least this share of the points
    /// the floor leaves where it is seen whole.
    static let behindShare = 0.25
    /// A plane stands in a column when it holds there, below `tallEnough`, at least this share of
    /// the points a whole wall leaves (a few noisy points are no wall).
    static let standingShare = 0.1

    /// A wall has the room's floor in front of it only; behind it lies the outside, seen at most
    /// through a doorway. Where the floor was seen behind a plane's line and the plane has hardly
    /// any points of its own there below `tallEnough` (a doorway's head is higher), the plane does not
    /// stand there: its span ran on over the room (a T's stem wall across the T's arm, its columns
    /// joined by a few noisy points of the ceiling). Such a span reaches a corner metres from its
    /// own, with a sigma of millimetres. Beside a doorway the floor beyond, seen obliquely through
    /// it, lies behind the wall too; there the wall's own points say it stands.
    ///
    /// The span becomes its longest stretch of columns where the plane stands (or may: its foot
    /// hidden, nothing seen behind), joined across gaps no wider than a doorway; a plane left
    /// shorter than `minWallLength` is not a wall. Unlike `refuseCrossingFloor`, this needs no
    /// sight line through the plane's own points: a span joined over open floor has none where
    /// the sight lines cross it.
    static func cutFloorBehind(
        _ planes: inout [VerticalPlane], floor: FittedPlane, set: WorkingSet, up: SIMD3<Double>, base: Double,
        leaf: Double
    ) {
        let depth = behindReach.upperBound - behindReach.lowerBound
        let wholeColumn = column * depth / (leaf * leaf)
        let wholeWall = column * tallEnough / (leaf * leaf)
        for i in planes.indices where planes[i].clutter == nil {
            let p = planes[i]
            let columns = max(1, Int((p.length / column).rounded(.up)))
            var behind = [Int](repeating: 0, count: columns)
            for k in floor.inliers {
                let q = set.points[Int(k)] - p.centroid
                let t = dot(q, p.along)
                guard t >= p.start, t < p.end, behindReach.contains(-dot(q, p.normal)) else { continue }
                behind[min(columns - 1, Int((t - p.start) / column))] += 1
            }
            var low = [Int](repeating: 0, count: columns)
            for k in p.fitted.inliers {
                let q = set.points[Int(k)]
                let t = dot(q - p.centroid, p.along)
                guard t >= p.start, t < p.end, dot(q, up) - base < tallEnough else { continue }
                low[min(columns - 1, Int((t - p.start) / column))] += 1
            }
            let stands = (0..<columns).map { Double(low[$0]) >= standingShare * wholeWall }
            let open = (0..<columns).map { !stands[$0] && Double(behind[$0]) >= behindShare * wholeColumn }
            guard open.contains(true) else { continue }
            // Between open columns, runs of the others; a run where the plane nowhere stands is
            // not known to be wall (its floor behind unseen, its foot hidden or never there: a
            // far ceiling's stray points ran wall 3 of Kinect room 37 on 1.8 m past its corner,
            // over floor seen behind it along 0.6 m and unseen along 1.2 m), so it joins nothing.
            var runs: [(first: Int, last: Int)] = []
            for k in 0..<columns where !open[k] {
                if let last = runs.last, last.last == k - 1 {
                    runs[runs.count - 1].last = k
                } else {
                    runs.append((k, k))
                }
            }
            var stretches: [(first: Int, last: Int)] = []
            for run in runs where stands[run.first...run.last].contains(true) {
                if let last = stretches.last, Double(run.first - last.last - 1) * column <= maxColumnGap {
                    stretches[stretches.count - 1].last = run.last
                } else {
                    stretches.append(run)
                }
            }
            guard let best = stretches.max(by: { $0.last - $0.first < $1.last - $1.first }),
                Double(best.last - best.first + 1) * column >= minWallLength
            else {
                planes[i].clutter = String(format: "not a wall: the floor was seen behind it along its %.2f m", p.length)
                continue
            }
            planes[i].start = p.start + Double(best.first) * column
            planes[i].end = min(p.end, p.start + Double(best.last + 1) * column)
        }
    }
}
