import CloudCore
import CloudPCL
import Foundation

/// A wall's slab can hold another surface in line with it: a cabinet's side 2 cm behind an L's
/// inner wall, continuing its line beyond the corner. Too close to the wall's line for the span's
/// column step (`VerticalPlanes.maxColumnStep`, which a far wall's noise bounds), it turned a
/// plane fitted through both by 0.6 degrees and moved the inner corner 8 mm (Kinect room 9 of
/// seed 2026). Judged column by column against a line that most columns agree on, it stands out.
extension VerticalPlanes {
    /// Columns with fewer points say too little of where they stand to be judged; kept.
    static let judgedColumnPoints = 20
    /// A column stands off the line by more than this many of the columns' own robust scatter
    /// about it, and by at least `minColumnOffset`: the scatter is measured, not predicted, since
    /// a Kinect's disparity steps and the voxel grid make neighbouring points' errors alike.
    static let columnOffsetScatters = 3.0
    static let minColumnOffset = 0.01

    /// `points` (indices and their positions along the plane) without the columns that stand off
    /// the line through the others, or all of them when that would leave fewer than half.
    static func inLine(_ points: [(index: UInt32, along: Double)], plane: Plane, set: WorkingSet) -> [UInt32] {
        let all = points.map(\.index)
        guard let first = points.map(\.along).min() else { return all }
        let columns = points.map { Int((($0.along - first) / column).rounded(.down)) }
        var offsets: [Int: [Double]] = [:]
        for (p, c) in zip(points, columns) {
            offsets[c, default: []].append(plane.distance(set.points[Int(p.index)]))
        }
        let judged = offsets.filter { $0.value.count >= judgedColumnPoints }
            .map { (column: $0.key, centre: ColumnPosition($0.value).centre) }
        guard judged.count >= 4 else { return all }
        // Theil and Sen's line: the median of the slopes between columns, through the median
        // intercept; a quarter of the columns off it do not move it.
        var slopes: [Double] = []
        for (i, a) in judged.enumerated() {
            for b in judged[(i + 1)...] where b.column != a.column {
                slopes.append((b.centre - a.centre) / Double(b.column - a.column))
            }
        }
        let slope = WorkingSet.median(&slopes)
        var intercepts = judged.map { $0.centre - slope * Double($0.column) }
        let intercept = WorkingSet.median(&intercepts)
        let residuals = judged.map { (column: $0.column, off: abs($0.centre - intercept - slope * Double($0.column))) }
        var scatter = residuals.map(\.off)
        let limit = max(minColumnOffset, columnOffsetScatters * 1.4826 * WorkingSet.median(&scatter))
        let off = Set(residuals.filter { $0.off > limit }.map(\.column))
        guard !off.isEmpty else { return all }
        let kept = zip(points, columns).filter { !off.contains($0.1) }.map(\.0.index)
        return kept.count * 2 >= all.count ? kept : all
    }
}

/// Where a column of a plane's points stands across it: the mean of their middle half.
/// - Not the mean: a phone's mixed pixels at a shelf's edge pull a column's mean 8 cm off its wall.
/// - Not the median: a Kinect's depth comes in disparity steps, 14 cm apart at 7 m, and a far
///   wall's points lie in two or three of them; a median jumps a whole step from one column to
///   the next where their shares cross a half. The middle half's mean moves with the shares.
struct ColumnPosition {
    var centre: Double

    init(_ offsets: [Double]) {
        let sorted = offsets.sorted()
        let middle = sorted[(sorted.count / 4)..<(sorted.count - sorted.count / 4)]
        centre = middle.isEmpty ? 0 : middle.reduce(0, +) / Double(middle.count)
    }
}
