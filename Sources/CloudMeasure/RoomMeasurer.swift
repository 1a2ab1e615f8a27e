import CloudCore
import CloudPCL
import Foundation

/// A measured room: the report, and what its floor plan draws.
public struct RoomMeasurement: Sendable {
    public var report: RoomReport
    public var plan: RoomPlanData
}

/// `cloudgen measure`: finds up, the floor, the ceiling and the walls of a scanned room with PCL's
/// plane fitting, joins the walls into an outline, and measures it with bootstrap uncertainties.
/// Docs/measure.md describes each step and its thresholds.
public enum RoomMeasurer {
    public static func measure(_ scan: RoomScan, settings: MeasureSettings = MeasureSettings()) throws -> RoomMeasurement {
        try settings.check()
        let clock = Stopwatch()
        var scan = scan
        var set = try WorkingSet(scan, settings: settings)
        var surfaces = try RoomSurfaces.find(scan, set: set, settings: settings)
        // Frames whose poses drifted are moved back onto the planes they share, and the room is
        // found again in the corrected cloud (PoseRefinement).
        if let refined = PoseRefinement.corrections(scan, set: set, surfaces: surfaces) {
            scan = scan.moved(by: refined.corrections)
            set = try WorkingSet(scan, settings: settings)
            set.poseTerms = refined.planes
            surfaces = try RoomSurfaces.find(scan, set: set, settings: settings)
        }
        let layout = RoomLayout(surfaces, scan: scan, set: set, settings: settings)
        let numbers = try RoomNumbers(surfaces, layout: layout, set: set, settings: settings)
        let (levels, frame, u) = (surfaces.levels, layout.frame, surfaces.up.vector)

        var reasons: [String: String] = [:]
        if let reason = levels.floorReason { reasons["floor"] = reason }
        if let reason = levels.ceilingReason { reasons["ceiling"] = reason }
        let height = numbers.measured(\.height)
        if height == nil { reasons["height"] = levels.floor == nil ? "no floor seen" : "no ceiling seen" }
        var area = numbers.measured(\.area)
        var perimeter = numbers.measured(\.perimeter)
        var extents = RoomReport.Extents(x: numbers.measured(\.extentX), y: numbers.measured(\.extentY), z: height, from: "outline")
        var warnings: [String] = []
        if !layout.outline.isClosed {
            let why = layout.walls.count < 3 ? "fewer than 3 walls seen" : "the walls seen do not meet around the room"
            warnings.append("\(scan.name): \(why); area and perimeter are those of the floor seen (outline \"open\")")
            if let floor = levels.floor, case let hull = try floorOutline(floor, set: set, frame: frame, settings: settings),
                hull.count >= 3
            {
                let (a, p) = RoomOutline.areaAndPerimeter(hull)
                // The hull's edge is known to about half a leaf all round.
                area = RoomReport.Measured(value: a, sigma: p * settings.leaf / 2)
                perimeter = RoomReport.Measured(value: p, sigma: Double(hull.count).squareRoot() * settings.leaf / 2)
            }
            if area == nil {
                reasons["area"] = levels.floor == nil ? "no floor seen and \(why)" : "the floor seen has no outline"
                reasons["perimeter"] = reasons["area"]
            }
            extents = pointExtents(levels.floor, layout.walls, set: set, frame: frame, height: height, settings: settings)
        }
        if extents.x == nil { reasons["extents"] = "no outline and no floor seen" }
        let cameras = scan.cameraPositions
        let cameraHeight = numbers.measured(\.cameraHeight)
        if cameraHeight == nil {
            reasons["cameraHeight"] = cameras.count > 1 ? "several cameras: their positions are in cameras.positions" : "no floor seen"
        }
        let walls = wallReports(layout, numbers: numbers, levels: levels, settings: settings)
        let tilt = levels.floor.map { acos(min(1, abs(dot($0.plane.normal, u)))) * 180 / .pi }
        let report = RoomReport(
            schema: RoomReport.schemaVersion, source: scan.name, units: "m",
            points: .init(input: set.inputCount, finite: set.finiteCount, working: set.count, leaf: settings.leaf),
            up: .init(vector: array(u), method: surfaces.up.method.rawValue, floorTiltDegrees: tilt),
            frame: .init(origin: array(frame.origin), x: array(frame.x), y: array(frame.y), z: array(frame.up)),
            floor: numbers.floor.map { surface($0, settings) }, ceiling: numbers.ceiling.map { surface($0, settings) },
            height: height, outline: layout.outline.isClosed ? "closed" : "open", area: area, perimeter: perimeter,
            corners: numbers.fitted.corners.map { [$0.x, $0.y] }, extents: extents, walls: walls,
            clutter: clutterReports(surfaces, set: set, settings: settings),
            cameras: .init(
                count: cameras.count, height: cameraHeight,
                positions: cameras.map {
                    let q = frame.plan($0)
                    return [q.x, q.y, dot($0, u) - surfaces.base]
                }),
            reasons: reasons, warnings: warnings, milliseconds: clock.total)
        return RoomMeasurement(report: report, plan: planData(report, levels: levels, set: set, frame: frame, scan: scan))
    }

    /// Each wall's report: lengths corner to corner where both ends meet walls, else why not.
    private static func wallReports(
        _ layout: RoomLayout, numbers: RoomNumbers, levels: LevelPlanes,
        settings: MeasureSettings
    ) -> [RoomReport.Wall] {
        layout.walls.enumerated().map { i, wall in
            let ends = numbers.fitted.wallEnds[i]
            let trace = layout.traces[i]
            let start = ends.start ?? point(on: trace.line, at: trace.start)
            let end = ends.end ?? point(on: trace.line, at: trace.end)
            var reason: String?
            if ends.start == nil || ends.end == nil {
                reason =
                    ends.start == nil && ends.end == nil
                    ? "neither end meets another wall" : "one end does not meet another wall (hidden or out of view)"
                if layout.outline.doubted[i] {
                    reason =
                        "a corner of it is with a plane not seen to reach the ceiling (a wall whose top was out of view, or a cupboard's face): not certain"
                }
            }
            let height = numbers.measured { $0.wallHeights[i] }
            if height == nil && reason == nil { reason = "no \(levels.floor == nil ? "floor" : "ceiling") seen for its height" }
            return RoomReport.Wall(
                index: i, length: numbers.measured { $0.wallLengths[i] }, visibleLength: wall.length,
                height: height, visibleTop: wall.top, normal: array(wall.normal), surface: surface(numbers.walls[i], settings),
                start: [start.x, start.y], end: [end.x, end.y], inOutline: layout.outline.loop.contains(i), reason: reason)
        }
    }

    /// The planes that are neither floor, ceiling nor wall, with why.
    private static func clutterReports(_ surfaces: RoomSurfaces, set: WorkingSet, settings: MeasureSettings) -> [RoomReport.Clutter] {
        surfaces.levels.others.map { p in
            RoomReport.Clutter(
                kind: "level", reason: "a level surface between floor and ceiling (table, shelf, bed)",
                top: set.meanHeight(p, up: surfaces.up.vector) - surfaces.base, surface: surface(p, settings))
        }
            + surfaces.levels.beyondWalls.map { p in
                RoomReport.Clutter(
                    kind: "level", reason: "a ceiling behind a wall, seen through an opening in it (the space beyond a doorway)",
                    top: set.meanHeight(p, up: surfaces.up.vector) - surfaces.base, surface: surface(p, settings))
            }
            + surfaces.vertical.compactMap { v in
                v.clutter.map { RoomReport.Clutter(kind: "vertical", reason: $0, top: v.top, surface: surface(v.fitted, settings)) }
            }
    }

    private static func point(on line: PlanLine, at position: Double) -> SIMD2<Double> {
        -line.offset * line.normal + position * line.direction
    }

    private static func array(_ v: SIMD3<Double>) -> [Double] { [v.x, v.y, v.z] }

    private static func surface(_ p: FittedPlane, _ settings: MeasureSettings) -> RoomReport.Surface {
        RoomReport.Surface(
            plane: [p.plane.normal.x, p.plane.normal.y, p.plane.normal.z, p.plane.offset], points: p.inliers.count,
            area: Double(p.inliers.count) * settings.leaf * settings.leaf, rms: p.rms)
    }

    /// PCL's concave hull of the floor's points on the plan, alpha a few leaves wide so that it
    /// follows the floor's edge without closing over furniture's shadows.
    private static func floorOutline(_ floor: FittedPlane, set: WorkingSet, frame: FloorFrame, settings: MeasureSettings) throws -> [SIMD2<
        Double
    >] {
        let step = max(1, floor.inliers.count / 60_000)
        let points = stride(from: 0, to: floor.inliers.count, by: step).map { k -> SIMD2<Float> in
            let q = frame.plan(set.points[Int(floor.inliers[k])])
            return SIMD2(Float(q.x), Float(q.y))
        }
        return try ConcaveHull.outline(of: points, alpha: 4 * settings.leaf * Double(step).squareRoot()).map {
            SIMD2(Double($0.x), Double($0.y))
        }
    }

    /// The span of the floor's and walls' points on the plan (without the outer half percent), for an open outline.
    private static func pointExtents(
        _ floor: FittedPlane?, _ walls: [VerticalPlane], set: WorkingSet, frame: FloorFrame,
        height: RoomReport.Measured?, settings: MeasureSettings
    ) -> RoomReport.Extents {
        let indices = (floor?.inliers ?? []) + walls.flatMap(\.fitted.inliers)
        guard indices.count >= 10 else { return RoomReport.Extents(x: nil, y: nil, z: height, from: "points") }
        let plan = indices.map { frame.plan(set.points[Int($0)]) }
        func span(_ values: [Double]) -> RoomReport.Measured {
            let sorted = values.sorted()
            return RoomReport.Measured(
                value: sorted[sorted.count - 1 - sorted.count / 200] - sorted[sorted.count / 200], sigma: settings.leaf)
        }
        return RoomReport.Extents(x: span(plan.map(\.x)), y: span(plan.map(\.y)), z: height, from: "points")
    }

    private static func planData(
        _ report: RoomReport, levels: LevelPlanes, set: WorkingSet, frame: FloorFrame,
        scan: RoomScan
    ) -> RoomPlanData {
        var onFloor = [Bool](repeating: false, count: set.count)
        for i in levels.floor?.inliers ?? [] { onFloor[Int(i)] = true }
        var floorPoints: [SIMD2<Float>] = []
        var otherPoints: [SIMD2<Float>] = []
        for (i, p) in set.points.enumerated() {
            let q = frame.plan(p)
            if onFloor[i] { floorPoints.append(SIMD2(Float(q.x), Float(q.y))) } else { otherPoints.append(SIMD2(Float(q.x), Float(q.y))) }
        }
        let cameras = scan.cameras.map { pose -> RoomPlanData.Camera in
            let forward = CameraView(pose).forward
            let level = forward - dot(forward, frame.up) * frame.up
            let length = (level * level).sum().squareRoot()
            return RoomPlanData.Camera(
                position: frame.plan(pose.translation),
                heading: length > 1e-3 ? SIMD2(dot(level, frame.x), dot(level, frame.y)) / length : nil)
        }
        return RoomPlanData(
            floorPoints: floorPoints, otherPoints: otherPoints,
            walls: report.walls.map {
                RoomPlanData.Wall(start: SIMD2($0.start[0], $0.start[1]), end: SIMD2($0.end[0], $0.end[1]), length: $0.length)
            },
            closed: report.outline == "closed", cameras: cameras)
    }
}
