import CloudCore
import CloudPCL

/// The room on its floor plan: the frame, the walls in the outline's order (the outline's walls
/// first), their traces, how they join, and the geometry that turns planes into numbers.
struct RoomLayout {
    let frame: FloorFrame
    let walls: [VerticalPlane]
    let traces: [RoomOutline.Trace]
    let outline: RoomOutline
    let geometry: RoomGeometry

    init(_ surfaces: RoomSurfaces, scan: RoomScan, set: WorkingSet, settings: MeasureSettings) {
        var walls = surfaces.walls
        let cameras = scan.cameraPositions
        // The frame: x along the longest wall, or the first camera's right when no wall was seen.
        let cameraRight = scan.cameras[0].apply(SIMD3(1, 0, 0)) - scan.cameras[0].translation
        let along = walls.max { $0.length < $1.length }?.along ?? cameraRight
        let frame = FloorFrame(up: surfaces.up.vector, along: along, camera: cameras[0], floorHeight: surfaces.base)
        // The ceiling's height above the floor, when seen.
        let ceiling = surfaces.levels.ceiling.map { set.meanHeight($0, up: surfaces.up.vector) - surfaces.base }
        func trace(_ wall: VerticalPlane) -> RoomOutline.Trace {
            let line = frame.line(of: wall.fitted.plane, near: wall.centroid, facing: wall.centroid + wall.normal)
            let ends = [wall.start, wall.end].map { line.position(frame.plan(wall.centroid + $0 * wall.along)) }
            let fullHeight = ceiling.map { wall.top >= $0 - VerticalPlanes.tallColumn } ?? false
            return RoomOutline.Trace(line: line, start: ends.min()!, end: ends.max()!, fullHeight: fullHeight)
        }
        var outline = RoomOutline(walls.map(trace), maxGap: settings.maxCornerGap, maxOverrun: settings.maxCornerOverrun)
        if outline.isClosed {
            let order = outline.loop + walls.indices.filter { !outline.loop.contains($0) }
            walls = order.map { walls[$0] }
            outline = RoomOutline(walls.map(trace), maxGap: settings.maxCornerGap, maxOverrun: settings.maxCornerOverrun)
        }
        outline.dropDoubtfulCorners(walls.map { !$0.reachesCeiling })
        self.frame = frame
        self.walls = walls
        traces = walls.map(trace)
        self.outline = outline
        let floorCentre = surfaces.levels.floor.map { frame.plan(set.centroid($0.inliers)) } ?? frame.plan(surfaces.interior)
        geometry = RoomGeometry(
            frame: frame, outline: outline, wallCentroids: walls.map(\.centroid), wallNormals: walls.map(\.normal),
            floorCentre: floorCentre, camera: cameras.count == 1 ? cameras[0] : nil)
    }
}

/// Every number of the room from its fitted planes, and the bootstrap's rounds of the same.
struct RoomNumbers {
    let fitted: RoomGeometry.Numbers
    let rounds: [RoomGeometry.Numbers]
    /// The planes measured: the layout's, each refitted clear of the sensor's range limit.
    let floor: FittedPlane?
    let ceiling: FittedPlane?
    let walls: [FittedPlane]

    init(_ surfaces: RoomSurfaces, layout: RoomLayout, set: WorkingSet, settings: MeasureSettings) throws {
        let levels = surfaces.levels
        // Each plane as its frames saw it clear of the sensor's range limit.
        let planes = ([levels.floor, levels.ceiling].compactMap { $0 } + layout.walls.map(\.fitted)).map {
            RangeLimitFit.refit($0, set: set)
        }
        // The planes in `planes`' order, back into their roles.
        func roles<T>(_ list: [T]) -> (floor: T?, ceiling: T?, walls: [T]) {
            var rest = list[...]
            let floor = levels.floor != nil ? rest.popFirst() : nil
            let ceiling = levels.ceiling != nil ? rest.popFirst() : nil
            return (floor, ceiling, Array(rest))
        }
        func roles(_ list: [Plane]) -> RoomGeometry.Planes {
            let (floor, ceiling, walls) = roles(list)
            return RoomGeometry.Planes(floor: floor, ceiling: ceiling, walls: walls)
        }
        (floor, ceiling, walls) = roles(planes)
        fitted = layout.geometry.numbers(roles(planes.map(\.plane)))
        rounds = try Bootstrap(set: set, settings: settings).replicates(
            planes, upright: planes.indices.map { $0 >= planes.count - layout.walls.count }
        ).map { layout.geometry.numbers(roles($0)) }
    }

    /// A number with its sigma over the rounds; nil when it was not measured.
    func measured(_ pick: (RoomGeometry.Numbers) -> Double?) -> RoomReport.Measured? {
        guard let value = pick(fitted), let sigma = Bootstrap.sigma(rounds.map(pick)) else { return nil }
        return RoomReport.Measured(value: value, sigma: sigma)
    }
}
