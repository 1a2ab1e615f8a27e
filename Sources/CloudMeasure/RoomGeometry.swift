import CloudCore
import CloudPCL
import Foundation

/// The numbers of a room as functions of its planes, so that the bootstrap can recompute them from
/// refitted planes with everything else (frame, which walls meet, where to measure) held fixed.
struct RoomGeometry {
    struct Planes {
        var floor: Plane?
        var ceiling: Plane?
        var walls: [Plane]
    }

    struct Numbers {
        var height: Double?
        var area: Double?
        var perimeter: Double?
        var wallLengths: [Double?]
        var wallHeights: [Double?]
        var cameraHeight: Double?
        var extentX: Double?
        var extentY: Double?
        var corners: [SIMD2<Double>]
        var wallEnds: [(start: SIMD2<Double>?, end: SIMD2<Double>?)]
    }

    let frame: FloorFrame
    let outline: RoomOutline
    /// A point of each wall (its centroid), to place the wall's plan line.
    let wallCentroids: [SIMD3<Double>]
    /// Each wall's level normal toward the room (the side its cameras stood on).
    let wallNormals: [SIMD3<Double>]
    /// Where on the plan the room height is taken when the outline is open (the floor points' centroid).
    let floorCentre: SIMD2<Double>
    /// The camera whose height is reported (a single frame's), in the cloud's frame.
    let camera: SIMD3<Double>?

    func lines(_ walls: [Plane]) -> [PlanLine] {
        walls.indices.map { frame.line(of: walls[$0], near: wallCentroids[$0], facing: wallCentroids[$0] + wallNormals[$0]) }
    }

    func numbers(_ planes: Planes) -> Numbers {
        let lines = lines(planes.walls)
        let corners = outline.corners(lines)
        let ends = planes.walls.indices.map { (outline.startCorner($0, lines), outline.endCorner($0, lines)) }
        let lengths: [Double?] = ends.map { e in
            guard let s = e.0, let t = e.1 else { return nil }
            return ((t - s) * (t - s)).sum().squareRoot()
        }
        func between(at q: SIMD2<Double>) -> Double? {
            guard let floor = planes.floor, let ceiling = planes.ceiling,
                let low = frame.height(of: floor, at: q), let high = frame.height(of: ceiling, at: q)
            else { return nil }
            return high - low
        }
        let closed = outline.isClosed && corners.count == outline.loop.count
        let polygon = closed ? RoomOutline.areaAndPerimeter(corners) : nil
        let centre = closed ? corners.reduce(.zero, +) / Double(corners.count) : floorCentre
        let heights: [Double?] = ends.map { e in
            guard let s = e.0, let t = e.1 else { return nil }
            return between(at: (s + t) / 2)
        }
        var cameraHeight: Double?
        if let camera, let floor = planes.floor {
            cameraHeight = frame.height(of: floor, at: frame.plan(camera)).map { dot(camera - frame.origin, frame.up) - $0 }
        }
        return Numbers(
            height: between(at: centre), area: polygon?.area, perimeter: polygon?.perimeter,
            wallLengths: lengths, wallHeights: heights, cameraHeight: cameraHeight,
            extentX: closed ? (corners.map(\.x).max()! - corners.map(\.x).min()!) : nil,
            extentY: closed ? (corners.map(\.y).max()! - corners.map(\.y).min()!) : nil,
            corners: closed ? corners : [], wallEnds: ends)
    }
}
