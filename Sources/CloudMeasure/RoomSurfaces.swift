import CloudCore
import CloudPCL
import Foundation

/// The planes of a scanned room: which way is up, the level planes (floor, ceiling, furniture
/// tops) and the vertical ones (walls, furniture faces).
struct RoomSurfaces {
    var up: UpDirection
    var levels: LevelPlanes
    /// Every vertical plane; those without a `clutter` reason are the walls.
    var vertical: [VerticalPlane]
    /// The floor's height along up, or the lowest 1 % of the points' without a floor.
    var base: Double
    /// Where the room's inside is: the cameras' mean position.
    var interior: SIMD3<Double>

    var walls: [VerticalPlane] { vertical.filter { $0.clutter == nil } }

    static func find(_ scan: RoomScan, set: WorkingSet, settings: MeasureSettings) throws -> RoomSurfaces {
        let peeler = PlanePeeler(set: set, settings: settings)
        var up = try UpDirection.decide(scan, settings: settings, set: set, peeler: peeler)
        var levels = try LevelPlanes.find(set: set, up: up.vector, settings: settings, peeler: peeler)
        // Found in the data, up is the floor's normal, fitted to all its points.
        if up.method == .planes, let floor = levels.floor { up.vector = floor.plane.normal }
        let u = up.vector
        let floorHeight = levels.floor.map { set.meanHeight($0, up: u) }
        let ceilingHeight = levels.ceiling.map { set.meanHeight($0, up: u) }
        let cameras = scan.cameraPositions
        let interior = cameras.reduce(.zero, +) / Double(cameras.count)
        let base = floorHeight ?? set.points.map { dot($0, u) }.sorted()[set.count / 100]
        let vertical = try VerticalPlanes.find(
            set: set, up: u, base: base, ceiling: ceilingHeight.map { $0 - base }, levels: levels,
            excluding: levels.taken, cameras: scan.cameras, settings: settings, peeler: peeler)
        levels.refuseCeilingBeyond(vertical.filter { $0.clutter == nil }, set: set)
        return RoomSurfaces(up: up, levels: levels, vertical: vertical, base: base, interior: interior)
    }
}

extension WorkingSet {
    /// The mean height along `up` of a plane's points.
    func meanHeight(_ plane: FittedPlane, up: SIMD3<Double>) -> Double {
        plane.inliers.reduce(0.0) { $0 + dot(points[Int($1)], up) } / Double(plane.inliers.count)
    }
}
