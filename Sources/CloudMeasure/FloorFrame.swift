import CloudCore
import CloudPCL
import Foundation

/// The gravity-aligned frame a room is reported in: z up, x along the longest wall, the origin on
/// the floor below the first camera. Floor-plan coordinates are (x, y) in it.
struct FloorFrame {
    var origin: SIMD3<Double>
    var x: SIMD3<Double>
    var y: SIMD3<Double>
    var up: SIMD3<Double>

    init(up: SIMD3<Double>, along: SIMD3<Double>, camera: SIMD3<Double>, floorHeight: Double) {
        self.up = up
        x = normalize(along - dot(along, up) * up)
        y = cross(up, x)
        origin = camera - (dot(camera, up) - floorHeight) * up
    }

    func plan(_ p: SIMD3<Double>) -> SIMD2<Double> {
        let d = p - origin
        return SIMD2(dot(d, x), dot(d, y))
    }

    func world(_ q: SIMD2<Double>) -> SIMD3<Double> { origin + q.x * x + q.y * y }

    /// Height, along up, at which the vertical line through `q` meets `plane`; nil when the plane is vertical.
    func height(of plane: Plane, at q: SIMD2<Double>) -> Double? {
        let along = dot(plane.normal, up)
        guard abs(along) > 1e-6 else { return nil }
        return -plane.distance(world(q)) / along
    }

    /// The line a vertical plane draws on the floor plan, through the plane's point nearest `near`.
    func line(of plane: Plane, near: SIMD3<Double>, facing interior: SIMD3<Double>) -> PlanLine {
        let onPlane = near - plane.distance(near) * plane.normal
        var n = SIMD2(dot(plane.normal, x), dot(plane.normal, y))
        n /= (n * n).sum().squareRoot()
        let p = plan(onPlane)
        if (n * (plan(interior) - p)).sum() < 0 { n = -n }
        return PlanLine(normal: n, offset: -(n * p).sum())
    }
}

/// A line n . q + offset = 0 on the floor plan, its unit normal toward the room.
struct PlanLine {
    var normal: SIMD2<Double>
    var offset: Double

    /// Along the line with the room on the left, as a counter-clockwise outline runs.
    var direction: SIMD2<Double> { SIMD2(normal.y, -normal.x) }

    func position(_ q: SIMD2<Double>) -> Double { (direction * q).sum() }

    /// Where two lines cross; nil when they are within `minAngle` of parallel.
    func crossing(_ other: PlanLine, minAngle: Double = 20 * .pi / 180) -> SIMD2<Double>? {
        let det = normal.x * other.normal.y - normal.y * other.normal.x
        guard abs(det) > sin(minAngle) else { return nil }
        return SIMD2(
            (-offset * other.normal.y + other.offset * normal.y) / det,
            (-normal.x * other.offset + other.normal.x * offset) / det)
    }
}
