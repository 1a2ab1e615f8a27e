import CloudCapture
import CloudCore
import XCTest

/// One rendered frame's exact depth, back-projected into the world frame.
struct WorldPoints {
    let width: Int
    let height: Int
    /// Row-major; nil where the pixel has no depth.
    let points: [SIMD3<Double>?]
    let pose: Pose

    init(_ camera: SyntheticCamera, frame: Int = 0) throws {
        let f = camera.renderFrame(frame)
        let depth = try f.depth.data.withUnsafeBytes {
            try DepthMap(
                raw: $0, width: f.depth.width, height: f.depth.height, encoding: f.depth.encoding,
                bytesPerRow: f.depth.bytesPerRow, origin: camera.name)
        }
        let k = f.intrinsics.scaled(toWidth: depth.width, height: depth.height)
        let pose = try XCTUnwrap(f.pose)
        (width, height, self.pose) = (depth.width, depth.height, pose)
        points = (0..<depth.width * depth.height).map { i in
            let z = Double(depth.metres[i])
            guard z > 0 else { return nil }
            return pose.apply(k.backProject(u: Double(i % depth.width), v: Double(i / depth.width), z: z))
        }
    }
}

/// What the room's plan (`RoomTruth`, not the ray caster) says lies at a world point: the names
/// of the walls whose segments it lies on, then "floor" or "ceiling"; empty for furniture, the
/// corridor or air. A point in a corner lies on several.
func truthSurfaces(_ p: SIMD3<Double>, _ truth: RoomTruth, tolerance: Double = 0.001) -> [String] {
    guard p.z > -tolerance, p.z < truth.height + tolerance else { return [] }
    var names: [String] = []
    for wall in truth.walls {
        let along = (wall.end - wall.start) / wall.length
        let q = SIMD2(p.x, p.y) - wall.start
        let t = (q * along).sum()
        let off = (q * wall.inwardNormal).sum()
        if abs(off) <= tolerance && t >= -tolerance && t <= wall.length + tolerance { names.append(wall.wall.rawValue) }
    }
    if abs(p.z) <= tolerance { names.append("floor") }
    if abs(p.z - truth.height) <= tolerance { names.append("ceiling") }
    return names
}

/// The first of `truthSurfaces`: a wall where the point is on one.
func truthSurface(_ p: SIMD3<Double>, _ truth: RoomTruth, tolerance: Double = 0.001) -> String? {
    truthSurfaces(p, truth, tolerance: tolerance).first
}

/// The name `truthSurface` gives a room surface of the scene.
func truthName(_ surface: SyntheticScene.Surface) -> String? {
    switch surface {
    case .floor: return "floor"
    case .ceiling: return "ceiling"
    case .wall(let w): return w.rawValue
    default: return nil
    }
}

/// Whether the world point is inside the floor outline (even-odd rule).
func outlineContains(_ truth: RoomTruth, _ p: SIMD2<Double>) -> Bool {
    var inside = false
    let o = truth.outline
    for i in o.indices {
        let (a, b) = (o[i], o[(i + 1) % o.count])
        if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
    }
    return inside
}
