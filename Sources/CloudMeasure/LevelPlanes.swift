import CloudCore
import CloudPCL
import Foundation

/// The level planes of a room: the floor, the ceiling, and the rest (table tops, shelves, beds).
struct LevelPlanes {
    var floor: FittedPlane?
    var ceiling: FittedPlane?
    var others: [FittedPlane]
    /// A ceiling seen only beyond a wall (the corridor's, through a doorway): not the room's.
    var beyondWalls: [FittedPlane] = []
    /// Why the floor or ceiling is missing, for the report.
    var floorReason: String?
    var ceilingReason: String?
    /// Every point on a level plane (what wall finding leaves out).
    var taken: [UInt32]

    /// Of the points beyond a floor (below) or a ceiling (above) by more than this...
    static let beyond = 0.1
    /// ...at most this fraction of all points may lie there (noise, a window's sill seen through glass).
    static let maxBeyondFraction = 0.02

    static func find(set: WorkingSet, up: SIMD3<Double>, settings: MeasureSettings, peeler: PlanePeeler) throws -> LevelPlanes {
        let candidates = (0..<set.count).filter { i in
            let n = set.normals[i]
            return !n.x.isFinite || abs(dot(n, up)) > cos(30 * Double.pi / 180)
        }.map { UInt32($0) }
        var planes = try peeler.peel(
            candidates, orientation: .across(axis: up, maxAngle: settings.horizontalAngle),
            minPoints: settings.points(forArea: settings.minHorizontalArea), limit: 8
        ).planes
        for i in planes.indices where dot(planes[i].plane.normal, up) < 0 { planes[i].plane = planes[i].plane.flipped }
        let heights = set.points.map { dot($0, up) }
        let bigEnough = settings.points(forArea: settings.minFloorArea)
        let allowed = Int(maxBeyondFraction * Double(set.count))

        var result = LevelPlanes(floor: nil, ceiling: nil, others: [], taken: planes.flatMap(\.inliers))
        // Each with its place in the peeling order, which the report's clutter keeps.
        let byHeight = planes.enumerated().map { (order: $0.offset, plane: $0.element, height: set.meanHeight($0.element, up: up)) }
            .sorted { $0.height < $1.height }
        let floor = byHeight.firstIndex { p in
            p.plane.inliers.count >= bigEnough && heights.lazy.filter { $0 < p.height - beyond }.count <= allowed
        }
        result.floor = floor.map { byHeight[$0].plane }
        if result.floor == nil {
            result.floorReason =
                byHeight.isEmpty
                ? "no level plane seen"
                : "no level plane of \(settings.minFloorArea) m² or more with nothing below it (is the floor out of view?)"
        }
        let ceiling = byHeight.lastIndex { p in
            if let floor, p.height - byHeight[floor].height < settings.minCeilingHeight { return false }
            return p.plane.inliers.count >= bigEnough && heights.lazy.filter { $0 > p.height + beyond }.count <= allowed
        }
        result.ceiling = ceiling.map { byHeight[$0].plane }
        if result.ceiling == nil {
            result.ceilingReason =
                "no ceiling seen (no level plane of \(settings.minFloorArea) m² or more, \(settings.minCeilingHeight) m or more above the floor, with nothing above it)"
        }
        result.others = byHeight.indices.filter { $0 != floor && $0 != ceiling }.map { byHeight[$0] }.sorted { $0.order < $1.order }.map(
            \.plane)
        return result
    }

    /// A ceiling most of whose points lie behind a wall, within its span, is the ceiling of the
    /// space beyond a doorway: the room's own was out of view (a small room seen from its middle),
    /// and the room's height is unknown rather than that space's.
    mutating func refuseCeilingBeyond(_ walls: [VerticalPlane], set: WorkingSet) {
        guard let found = ceiling else { return }
        let step = max(1, found.inliers.count / 1_000)
        let sample = stride(from: 0, to: found.inliers.count, by: step).map { set.points[Int(found.inliers[$0])] }
        let behind = sample.filter { p in walls.contains { $0.hides(p, margin: VerticalPlanes.floorBeyond) } }.count
        guard Double(behind) > VerticalPlanes.beyondFraction * Double(sample.count) else { return }
        beyondWalls.append(found)
        ceiling = nil
        ceilingReason = String(
            format:
                "the only ceiling seen lies behind a wall (%.0f %% of its points): the ceiling of the space beyond a doorway; the room's own was out of view",
            100 * Double(behind) / Double(sample.count))
    }
}
